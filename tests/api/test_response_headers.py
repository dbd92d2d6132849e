"""Headers every response carries, whatever answered it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.api import bearer, new_table, seat_all

# The application's answers, refusals included...
ANSWERS = [
    ("GET", "/healthz", 200),
    ("GET", "/tables", 200),
    ("GET", "/tables?limit=0", 400),
    ("GET", "/no-such-route", 404),
    ("GET", "/tables/not-a-uuid", 400),
    ("DELETE", "/tables", 405),
    ("OPTIONS", "/tables", 204),
    ("POST", "/tables", 415),
]
# ... and those of what is mounted beside it, the docs and the metrics, to a GET.
MOUNTED = {
    "/docs": 200,
    "/docs/openapi.json": 200,
    "/docs/assets/swagger-ui.css": 200,
    "/docs/assets/x%00": 404,
    "/metrics": 200,
}


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [*ANSWERS, *(("GET", path, status) for path, status in MOUNTED.items())],
)
async def test_every_response_says_nosniff(
    client: Any, method: str, path: str, status: int
) -> None:
    response = await client.request(method, path, content=b"x")
    assert response.status_code == status, response.text
    assert response.headers["x-content-type-options"] == "nosniff"


async def test_a_not_modified_answer_says_nosniff(client: Any) -> None:
    table = await new_table(client)
    first = await client.get(f"/tables/{table['id']}")
    again = await client.get(
        f"/tables/{table['id']}", headers={"If-None-Match": first.headers["etag"]}
    )
    assert again.status_code == 304
    assert again.headers["x-content-type-options"] == "nosniff"


async def test_what_a_seat_sees_is_never_kept_by_a_shared_cache(client: Any) -> None:
    """A seat's view, its 304, its events and its stream hold (or stand for) its cards:
    ``private``, and varying with the token; a spectator's may be cached, still varying
    with it."""
    table = await new_table(client)
    tokens = await seat_all(client, table["id"], 4)
    path = f"/tables/{table['id']}"
    for headers, cache in ((bearer(tokens[1]), "private, no-cache"), ({}, "no-cache")):
        view = await client.get(path, headers=headers)
        unchanged = await client.get(
            path, headers={**headers, "If-None-Match": view.headers["etag"]}
        )
        events = await client.get(f"{path}/events", headers=headers)
        async with client.stream("GET", f"{path}/stream?timeout=1", headers=headers) as live:
            assert live.status_code == 200
        assert [view.status_code, unchanged.status_code, events.status_code] == [200, 304, 200]
        for answer in (view, unchanged, events, live):
            assert answer.headers["cache-control"] == cache, answer.request.url
            assert answer.headers["vary"] == "Authorization", answer.request.url


async def test_a_401_says_how_to_authenticate_and_whether_the_token_was_refused(
    client: Any,
) -> None:
    """RFC 9110 §15.5.2 and RFC 6750 §3: every 401 carries a Bearer challenge."""
    table = await new_table(client)
    missing = await client.post(f"/tables/{table['id']}/actions", json={"type": "pass"})
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"] == 'Bearer realm="cardroom"'
    refused = await client.post(
        f"/tables/{table['id']}/actions", json={"type": "pass"}, headers=bearer("not-a-token")
    )
    assert refused.status_code == 401
    assert refused.headers["www-authenticate"] == 'Bearer realm="cardroom", error="invalid_token"'
