"""CORS: off unless CARDROOM_CORS_ORIGINS names origins (the app of these tests has none);
the answers with origins configured, on a stand-in app here and through a real server in
tests/integration/test_edge_server.py."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.types import Message, Receive, Scope, Send

from service.http.access import RequestEdge
from service.http.cors import ALLOW_HEADERS, Cors
from service.settings import from_env

ORIGIN = "https://app.example"
PREFLIGHT = {
    "Origin": ORIGIN,
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "authorization, content-type, if-match",
}


def cors_headers(headers: Any) -> dict[str, str]:
    return {k: v for k, v in headers.items() if k.startswith("access-control-")}


async def test_off_a_preflight_gets_the_allow_answer_and_no_cors_headers(client: Any) -> None:
    response = await client.options("/tables", headers=PREFLIGHT)
    assert response.status_code == 204
    assert response.headers["allow"] == "GET, HEAD, OPTIONS, POST"
    assert cors_headers(response.headers) == {}
    assert "origin" not in response.headers.get("vary", "").lower()


async def test_off_a_cross_origin_request_gets_no_cors_headers(client: Any) -> None:
    for path in ("/tables", "/no-such-route"):
        response = await client.get(path, headers={"Origin": ORIGIN})
        assert cors_headers(response.headers) == {}, path


@pytest.mark.parametrize(
    ("value", "origins"),
    [
        ("", ()),
        ("*", ("*",)),
        (" https://App.example , http://localhost:5173,", (ORIGIN, "http://localhost:5173")),
        ("capacitor://localhost", ("capacitor://localhost",)),
    ],
)
def test_the_setting_reads_origins(value: str, origins: tuple[str, ...]) -> None:
    assert from_env({"CARDROOM_CORS_ORIGINS": value}).cors_origins == origins


@pytest.mark.parametrize(
    "value",
    ["https://app.example/", "app.example", "https://app.example/api", "null", "*, " + ORIGIN],
)
def test_the_setting_refuses_what_is_not_an_origin(value: str) -> None:
    with pytest.raises(ValueError, match="CARDROOM_CORS_ORIGINS"):
        from_env({"CARDROOM_CORS_ORIGINS": value})


# --- the edge on a stand-in app -------------------------------------------------------------


async def answer(origins: tuple[str, ...], method: str, headers: dict[str, str]) -> Any:
    """The status and headers the edge gives a stand-in app's answer (200, Vary: Authorization)."""
    reached = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        reached.append(scope["method"])  # type: ignore[typeddict-item]
        await send(
            {"type": "http.response.start", "status": 200, "headers": [(b"vary", b"Authorization")]}
        )
        await send({"type": "http.response.body", "body": b"{}", "more_body": False})

    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    scope: Any = {
        "type": "http",
        "method": method,
        "path": "/tables",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
    }
    await RequestEdge(app, Cors(origins))(scope, receive, send)
    start = sent[0]
    found: dict[str, list[str]] = {}
    for name, value in start["headers"]:
        found.setdefault(name.decode(), []).append(value.decode())
    return start["status"], found, reached


async def test_a_preflight_from_a_listed_origin_is_answered_at_once() -> None:
    status, headers, reached = await answer((ORIGIN,), "OPTIONS", PREFLIGHT)
    assert status == 204 and reached == []
    assert headers["access-control-allow-origin"] == [ORIGIN]
    assert headers["access-control-allow-methods"] == ["GET, POST, OPTIONS"]
    assert headers["access-control-allow-headers"] == [ALLOW_HEADERS]
    for name in ("Authorization", "If-None-Match", "Idempotency-Key", "Last-Event-ID"):
        assert name in ALLOW_HEADERS
    assert headers["vary"] == ["Origin"]
    assert "x-request-id" in headers


async def test_a_preflight_from_another_origin_goes_on_without_cors_headers() -> None:
    status, headers, reached = await answer(
        (ORIGIN,), "OPTIONS", {**PREFLIGHT, "Origin": "https://evil.example"}
    )
    assert reached == ["OPTIONS"] and status == 200
    assert "access-control-allow-origin" not in headers
    assert headers["vary"] == ["Authorization", "Origin"]


async def test_a_listed_origin_gets_its_origin_and_the_exposed_headers_and_vary_is_kept() -> None:
    status, headers, reached = await answer((ORIGIN,), "GET", {"Origin": ORIGIN})
    assert status == 200 and reached == ["GET"]
    assert headers["access-control-allow-origin"] == [ORIGIN]
    exposed = {h.strip() for h in headers["access-control-expose-headers"][0].split(",")}
    assert {"ETag", "Retry-After", "Location", "X-Request-ID", "Cache-Control"} <= exposed
    assert {"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} <= exposed
    assert headers["vary"] == ["Authorization", "Origin"]


async def test_without_an_origin_a_listed_policy_still_says_vary_origin() -> None:
    _, headers, _ = await answer((ORIGIN,), "GET", {})
    assert "access-control-allow-origin" not in headers
    assert headers["vary"] == ["Authorization", "Origin"]


async def test_any_origin_gets_a_star_and_nothing_varies_by_origin() -> None:
    for request in ({"Origin": "https://anywhere.example"}, {}):
        _, headers, _ = await answer(("*",), "GET", request)
        assert headers["access-control-allow-origin"] == ["*"]
        assert headers["vary"] == ["Authorization"]
    status, headers, reached = await answer(("*",), "OPTIONS", PREFLIGHT)
    assert status == 204 and reached == [] and headers["access-control-allow-origin"] == ["*"]


async def test_an_options_request_that_is_no_preflight_reaches_the_app() -> None:
    """Without Access-Control-Request-Method it asks for the Allow answer (hooks.py)."""
    _, headers, reached = await answer((ORIGIN,), "OPTIONS", {"Origin": ORIGIN})
    assert reached == ["OPTIONS"] and headers["access-control-allow-origin"] == [ORIGIN]
