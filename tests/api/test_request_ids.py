"""Request ids and the request log (in-process; through a real server in
tests/integration/test_edge_server.py): an id on every answer, one JSON line a request,
no traceback for a refusal and a single one for an unexpected error."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import pytest
from prometheus_client import REGISTRY

from service.http.access import RequestEdge
from service.logs import JsonFormatter, TextFormatter
from service.read.models import ReadSide
from tests.support.api import bearer, new_table, ok, seat_all

GENERATED = re.compile(r"[0-9a-f]{16}")


def access_lines(caplog: pytest.LogCaptureFixture, request_id: str) -> list[logging.LogRecord]:
    return [
        r
        for r in caplog.records
        if r.name == "cardroom.access" and r.fields["request_id"] == request_id  # type: ignore[attr-defined]
    ]


@pytest.mark.parametrize(
    "sent", ["abc", "A.b-c_9", "x" * 128, "0b6c1f3e-9d2a-4f1b-8e57-2c4a6d8f0e13"]
)
async def test_a_good_request_id_is_echoed(client: Any, sent: str) -> None:
    response = await client.get("/healthz", headers={"X-Request-ID": sent})
    assert response.headers["x-request-id"] == sent


@pytest.mark.parametrize(
    "sent", [b"", b"x" * 129, b"two words", b"a/b", b"caf\xc3\xa9", b"<script>", b"a,b"]
)
async def test_a_bad_request_id_is_replaced(client: Any, sent: bytes) -> None:
    response = await client.get("/healthz", headers={"X-Request-ID": sent})
    assert GENERATED.fullmatch(response.headers["x-request-id"]), response.headers


async def test_without_a_request_id_each_request_gets_its_own(client: Any) -> None:
    ids = {(await client.get("/healthz")).headers["x-request-id"] for _ in range(3)}
    assert len(ids) == 3 and all(GENERATED.fullmatch(i) for i in ids)


@pytest.mark.parametrize(
    ("method", "path", "headers", "status"),
    [
        ("GET", "/no-such-route", {}, 404),
        ("GET", "/tables/00000000-0000-4000-8000-000000000000", {}, 404),
        ("GET", "/tables?limit=0", {}, 400),
        ("GET", "/tables", {"Authorization": "Bearer nobody"}, 401),
        ("DELETE", "/tables", {}, 405),
        ("POST", "/tables", {"Content-Type": "text/plain"}, 415),
        ("OPTIONS", "/tables", {}, 204),
    ],
)
async def test_problems_and_litestars_own_answers_carry_the_id(
    client: Any, method: str, path: str, headers: dict[str, str], status: int
) -> None:
    response = await client.request(
        method, path, headers={**headers, "X-Request-ID": "problem-1"}, content=b"x"
    )
    assert response.status_code == status, response.text
    assert response.headers["x-request-id"] == "problem-1"


async def test_a_refusal_and_a_304_carry_the_id_and_log_no_traceback(
    client: Any, caplog: pytest.LogCaptureFixture
) -> None:
    table = await new_table(client, game="pitch", seats=2)
    tokens = await seat_all(client, table["id"], 2)
    view = ok(await client.get(f"/tables/{table['id']}", headers=bearer(tokens[0])))
    idle = 1 - view["to_act"][0]
    caplog.set_level(logging.INFO)
    refused = await client.post(
        f"/tables/{table['id']}/actions",
        json={"type": "pass"},
        headers={**bearer(tokens[idle]), "X-Request-ID": "refused-1"},
    )
    assert refused.status_code == 409, refused.text
    assert refused.headers["x-request-id"] == "refused-1"
    first = await client.get(f"/tables/{table['id']}")
    again = await client.get(
        f"/tables/{table['id']}",
        headers={"If-None-Match": first.headers["etag"], "X-Request-ID": "poll-1"},
    )
    assert again.status_code == 304
    assert again.headers["x-request-id"] == "poll-1"
    assert not [r for r in caplog.records if r.exc_info], "a refusal logged a traceback"
    [line] = access_lines(caplog, "refused-1")
    assert line.fields == {  # type: ignore[attr-defined]
        "method": "POST",
        "path": f"/tables/{table['id']}/actions",
        "status": 409,
        "duration_ms": line.fields["duration_ms"],  # type: ignore[attr-defined]
        "request_id": "refused-1",
        "table": table["id"],
        "seat": idle,
    }
    assert [r.fields["status"] for r in access_lines(caplog, "poll-1")] == [304]  # type: ignore[attr-defined]


async def test_one_json_line_per_request(client: Any, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    table = await new_table(client, game="pitch", seats=2)
    await client.post(
        f"/tables/{table['id']}/seats/1", json={"name": "Bo"}, headers={"X-Request-ID": "seat-1"}
    )
    [record] = access_lines(caplog, "seat-1")
    line = json.loads(JsonFormatter().format(record))
    assert line["logger"] == "cardroom.access" and line["level"] == "info"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", line["time"])
    assert {k: line[k] for k in ("method", "status", "request_id", "table", "seat")} == {
        "method": "POST",
        "status": 201,
        "request_id": "seat-1",
        "table": table["id"],
        "seat": 1,
    }
    assert isinstance(line["duration_ms"], float) and line["duration_ms"] >= 0
    text = TextFormatter().format(record)
    assert "cardroom.access: request method=POST" in text and "request_id=seat-1" in text


async def test_a_head_is_logged_and_counted_as_a_head_of_its_table(
    client: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A HEAD is answered as its GET: its line lacked the table (routing filled in the
    GET's scope, not the one logged) and the metrics counted it as a GET."""
    caplog.set_level(logging.INFO)
    table = await new_table(client, game="pitch", seats=2)
    labels = {"method": "HEAD", "path": "/tables/{table_id}", "status_code": "200"}
    labels["app_name"] = "cardroom"
    counted = REGISTRY.get_sample_value("cardroom_requests_total", labels) or 0
    answer = await client.head(f"/tables/{table['id']}", headers={"X-Request-ID": "head-1"})
    assert answer.status_code == 200
    [record] = access_lines(caplog, "head-1")
    fields = record.fields  # type: ignore[attr-defined]
    assert (fields["method"], fields["table"]) == ("HEAD", table["id"])
    assert REGISTRY.get_sample_value("cardroom_requests_total", labels) == counted + 1


async def test_an_unexpected_error_logs_one_line_with_the_id_and_one_traceback(
    client: Any, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the list is on fire")

    monkeypatch.setattr(ReadSide, "list_tables", broken)
    caplog.set_level(logging.INFO)
    response = await client.get("/tables", headers={"X-Request-ID": "boom-1"})
    assert response.status_code == 500
    assert response.json()["code"] == "internal-error"
    assert response.headers["x-request-id"] == "boom-1"
    [failure] = [r for r in caplog.records if r.exc_info]
    line = json.loads(JsonFormatter().format(failure))
    assert line["request_id"] == "boom-1" and line["level"] == "error"
    assert line["traceback"].count("Traceback (most recent call last)") == 1
    assert "the list is on fire" in line["traceback"]
    assert [r.fields["status"] for r in access_lines(caplog, "boom-1")] == [500]  # type: ignore[attr-defined]


def test_text_lines_quote_a_field_that_would_break_the_line() -> None:
    record = logging.LogRecord("cardroom.access", logging.INFO, "", 0, "request", (), None)
    record.fields = {"path": "/tables/x\nFAKE line", "status": 404, "method": "GET"}
    text = TextFormatter().format(record)
    assert "\n" not in text
    assert text.endswith('request path="/tables/x\\nFAKE line" status=404 method=GET')


async def test_the_logged_duration_is_what_the_client_waited(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A request past its deadline is answered 503 at once while its task goes on being
    cancelled, for seconds: the access line once said the whole time (8 s) where the
    client had its answer at the deadline."""
    now = [0.0]

    async def answers_then_lingers(scope: Any, receive: Any, send: Any) -> None:
        now[0] = 1.5  # the answer goes out at the deadline
        await send({"type": "http.response.start", "status": 503, "headers": []})
        await send({"type": "http.response.body", "body": b"{}", "more_body": False})
        now[0] = 8.0  # the cancelled query's end, which nobody waits for

    async def send(message: Any) -> None:
        pass

    async def receive() -> Any:
        return {"type": "http.request", "body": b"", "more_body": False}

    scope = {"type": "http", "method": "GET", "path": "/tables", "headers": []}
    edge = RequestEdge(answers_then_lingers, None, clock=lambda: now[0])
    with caplog.at_level(logging.INFO, logger="cardroom.access"):
        await edge(scope, receive, send)
    [line] = [r for r in caplog.records if r.name == "cardroom.access"]
    assert line.fields["status"] == 503  # type: ignore[attr-defined]
    assert line.fields["duration_ms"] == 1500.0  # type: ignore[attr-defined]
