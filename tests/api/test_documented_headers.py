"""Every header an answer carries is in the OpenAPI document, under its operation and
status: a client generated from the document can read each one (a 412's current ETag, an
export's file name, the rate-limit fields of any counted answer)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import msgspec
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.http.app import create_app
from service.http.spec import spec
from service.settings import Settings
from tests.support.api import OPERATOR, bearer, seat_all

# What every answer may carry, said once in the document's description or by HTTP itself.
GENERIC = {
    "content-type",
    "content-length",
    "date",
    "server",
    "connection",
    "transfer-encoding",
    "x-request-id",
    "x-content-type-options",
}


@pytest.fixture(scope="module")
async def counted(settings: Settings) -> AsyncIterator[AsyncTestClient[Litestar]]:
    """The app with its rate limits on, so that counted answers carry their fields."""
    app = create_app(msgspec.structs.replace(settings, rate_limits=True))
    async with AsyncTestClient(app) as client:
        yield client


def undocumented(response: httpx.Response, method: str, path: str) -> set[str]:
    """The headers of ``response`` that the document does not give its operation (the
    route ``path``, as the document writes it) and status."""
    answer = spec()["paths"][path][method.lower()]["responses"][str(response.status_code)]
    documented = {name.lower() for name in answer.get("headers", {})}
    return set(response.headers.keys()) - GENERIC - documented


async def test_every_header_sent_is_documented(counted: AsyncTestClient[Litestar]) -> None:
    client = counted
    answers: list[tuple[httpx.Response, str, str]] = []

    def seen(response: httpx.Response, method: str, path: str, status: int) -> httpx.Response:
        assert response.status_code == status, response.text
        answers.append((response, method, path))
        return response

    made = seen(
        await client.post("/tables", json={"game": "pitch", "seats": 2}), "POST", "/tables", 201
    )
    table = made.json()["id"]
    tokens = await seat_all(client, table, 2)
    one = "/tables/{table_id}"
    view = seen(await client.get(f"/tables/{table}"), "GET", one, 200)
    again = {"If-None-Match": view.headers["etag"]}
    seen(await client.get(f"/tables/{table}", headers=again), "GET", one, 304)
    seat = view.json()["to_act"][0]
    stale = {**bearer(tokens[seat]), "If-Match": '"1.s0"'}
    command = await client.post(f"/tables/{table}/actions", json={"type": "pass"}, headers=stale)
    seen(command, "POST", f"{one}/actions", 412)
    seen(await client.get(f"/tables/{table}/events"), "GET", f"{one}/events", 200)
    for step in ("pause", "resume"):
        seen(
            await client.post(f"/tables/{table}/{step}", headers=OPERATOR),
            "POST",
            f"{one}/{step}",
            200,
        )
    plain = {**OPERATOR, "Content-Type": "text/plain"}
    refused = await client.post(f"/tables/{table}/pause", content=b"{}", headers=plain)
    seen(refused, "POST", f"{one}/pause", 415)
    compressed = {**OPERATOR, "Content-Type": "application/json", "Content-Encoding": "gzip"}
    refused = await client.post(f"/tables/{table}/pause", content=b"{}", headers=compressed)
    assert seen(refused, "POST", f"{one}/pause", 415).headers["accept-encoding"] == "identity"
    export = await client.get(f"/tables/{table}/export", headers=OPERATOR)
    seen(export, "GET", f"{one}/export", 200)
    stopped = await client.post(f"/tables/{table}/abort", json={"reason": "test"}, headers=OPERATOR)
    seen(stopped, "POST", f"{one}/abort", 200)
    catalogue = seen(await client.get("/games"), "GET", "/games", 200)
    fresh = {"If-None-Match": catalogue.headers["etag"]}
    seen(await client.get("/games", headers=fresh), "GET", "/games", 304)
    seen(await client.get(f"/tables/{table}/nope"), "GET", "/tables/{table_id}", 404)

    assert any("ratelimit-limit" in r.headers for r, _, _ in answers), "nothing was counted"
    missing = {
        f"{method} {path} {response.status_code}": sorted(undocumented(response, method, path))
        for response, method, path in answers
    }
    assert {k: v for k, v in missing.items() if v} == {}


def test_the_header_check_sees_an_undocumented_header() -> None:
    response = httpx.Response(200, headers={"ETag": '"1"', "X-Secret": "1"})
    assert undocumented(response, "GET", "/tables/{table_id}") == {"x-secret"}
