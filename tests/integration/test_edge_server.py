"""CORS, request ids and the JSON log through a real ``cardroom serve`` (uvicorn and
httptools), its stderr captured: CARDROOM_CORS_ORIGINS names one origin, the log level
is ``info`` and the format the default, JSON."""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Iterator
from typing import IO, Any, NamedTuple

import httpx
import pytest

from service.tools.bench.harness import running_server
from tests.support import services

ORIGIN = "https://app.example"


class Served(NamedTuple):
    base: str
    output: IO[str]

    def lines(self) -> list[str]:
        time.sleep(0.2)  # each line is flushed as it is written; let the last ones land
        self.output.seek(0)
        return self.output.read().splitlines()

    def access(self, request_id: str) -> list[dict[str, Any]]:
        found = []
        for line in self.lines():
            if line.startswith("{") and '"cardroom.access"' in line:
                record = json.loads(line)
                if record["request_id"] == request_id:
                    found.append(record)
        return found


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    env = {"CARDROOM_CORS_ORIGINS": ORIGIN, "CARDROOM_LOG_LEVEL": "info"}
    with (
        tempfile.TemporaryFile("w+", encoding="utf-8") as output,
        running_server(
            services.fresh_database("edge_"), services.redis_url(), extra_env=env, output=output
        ) as server,
    ):
        yield Served(server.base, output)


@pytest.fixture(scope="module")
def seat(served: Served) -> tuple[str, str]:
    """A pitch table and the token of its seat 0."""
    table = httpx.post(f"{served.base}/tables", json={"game": "pitch", "seats": 2}).json()
    granted = httpx.post(f"{served.base}/tables/{table['id']}/seats/0", json={"name": "Ann"})
    return table["id"], granted.json()["token"]


def test_a_preflight_from_the_origin_is_allowed(served: Served, seat: tuple[str, str]) -> None:
    response = httpx.options(
        f"{served.base}/tables/{seat[0]}/actions",
        headers={
            "Origin": ORIGIN,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type,if-match,idempotency-key",
            "X-Request-ID": "preflight-1",
        },
    )
    assert response.status_code == 204
    assert response.headers["access-control-allow-origin"] == ORIGIN
    assert response.headers["access-control-allow-methods"] == "GET, POST, OPTIONS"
    allowed = {
        h.strip().lower() for h in response.headers["access-control-allow-headers"].split(",")
    }
    assert {"authorization", "content-type", "if-match", "idempotency-key"} <= allowed
    assert {"if-none-match", "last-event-id", "x-request-id"} <= allowed
    assert response.headers["x-request-id"] == "preflight-1"
    assert response.headers["x-content-type-options"] == "nosniff"
    [line] = served.access("preflight-1")
    assert (line["method"], line["status"]) == ("OPTIONS", 204)


def test_a_preflight_from_another_origin_is_not(served: Served) -> None:
    response = httpx.options(
        f"{served.base}/tables",
        headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
    )
    assert response.status_code == 204
    assert response.headers["allow"] == "GET, HEAD, OPTIONS, POST"
    assert "access-control-allow-origin" not in response.headers


def test_a_cross_origin_view_exposes_its_headers_and_keeps_vary(
    served: Served, seat: tuple[str, str]
) -> None:
    table, token = seat
    response = httpx.get(
        f"{served.base}/tables/{table}",
        headers={"Origin": ORIGIN, "Authorization": f"Bearer {token}", "X-Request-ID": "view-1"},
    )
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == ORIGIN
    exposed = {h.strip() for h in response.headers["access-control-expose-headers"].split(",")}
    assert {"ETag", "Retry-After", "Location", "X-Request-ID"} <= exposed
    vary = {v.strip() for v in response.headers["vary"].split(",")}
    assert vary == {"Authorization", "Origin"}
    assert response.headers["x-request-id"] == "view-1"
    [line] = served.access("view-1")
    assert line["level"] == "info" and line["logger"] == "cardroom.access"
    assert {k: line[k] for k in ("method", "path", "status", "table", "seat")} == {
        "method": "GET",
        "path": f"/tables/{table}",
        "status": 200,
        "table": table,
        "seat": 0,
    }
    assert line["duration_ms"] >= 0


def test_a_problem_carries_cors_headers_and_the_request_id(served: Served) -> None:
    response = httpx.get(
        f"{served.base}/tables",
        headers={"Origin": ORIGIN, "Authorization": "Bearer nobody", "X-Request-ID": "denied-1"},
    )
    assert response.status_code == 401
    assert response.headers["access-control-allow-origin"] == ORIGIN
    assert response.headers["x-request-id"] == "denied-1"
    assert [line["status"] for line in served.access("denied-1")] == [401]


def test_a_bad_request_id_is_replaced_and_logged_as_replaced(served: Served) -> None:
    response = httpx.get(f"{served.base}/no-such-route", headers={"X-Request-ID": "no good!"})
    assert response.status_code == 404
    replaced = response.headers["x-request-id"]
    assert replaced != "no good!" and len(replaced) == 16
    [line] = served.access(replaced)
    assert (line["path"], line["status"]) == ("/no-such-route", 404)


def test_every_line_is_json_and_uvicorns_access_log_is_off(served: Served) -> None:
    httpx.get(f"{served.base}/healthz", headers={"X-Request-ID": "health-1"})
    lines = served.lines()
    records = [json.loads(line) for line in lines]  # every line, the banner included
    assert {"uvicorn.error", "cardroom", "cardroom.access"} <= {r["logger"] for r in records}
    assert not [r for r in records if r["logger"] == "uvicorn.access"]
    assert not [r for r in records if "traceback" in r]
    assert len(served.access("health-1")) == 1
