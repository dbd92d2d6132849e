"""Headers every response carries, whatever answered it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.api import OPERATOR, bearer, new_table, ok, seat_all
from tests.support.tournaments import enter, open_event

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


async def test_answers_that_change_are_revalidated_and_vary_with_the_token(client: Any) -> None:
    """Listings, standings, score sheets and a 404 for a round not paired yet said
    nothing of caching: a shared cache could keep them for minutes (a 200 or a 404 is
    cacheable by default), and hand the anonymous list of a duplicate event's tables to
    its director, who sees the closed tables too."""
    event = await open_event(client, format="duplicate", rounds=1)
    for name in ("Ann", "Bob", "Cid", "Dee"):
        await enter(client, event, name=name)
    director = bearer(event["director_token"])
    ok(await client.post(f"/tournaments/{event['id']}/rounds", headers=director), 201)
    listing = f"/tables?tournament={event['id']}"
    anonymous, directed = await client.get(listing), await client.get(listing, headers=director)
    assert anonymous.json()["tables"] != directed.json()["tables"]
    table = directed.json()["tables"][0]["id"]
    for path in (
        listing,
        "/tournaments",
        f"/tournaments/{event['id']}",
        f"/tournaments/{event['id']}/entries",
        f"/tables/{table}/scoresheet",
        f"/tournaments/{event['id']}/rounds/2",
    ):
        for headers in ({}, director):
            answer = await client.get(path, headers=headers)
            assert answer.headers["cache-control"] == "no-cache", (path, answer.status_code)
            assert "Authorization" in answer.headers["vary"], path


async def test_what_shows_hidden_cards_to_the_operator_is_never_stored(client: Any) -> None:
    """The replay shows every hand of a table still in play; the tournament's deals and
    its verification how deals went at tables still to play them. An export said
    ``no-store``; these said nothing, and an operator tool's own disk cache kept them."""
    table = await new_table(client)
    await seat_all(client, table["id"], 4)
    event = await open_event(client, format="duplicate", rounds=1)
    for path in (
        f"/tables/{table['id']}/replay?version=3",
        f"/tournaments/{event['id']}/deals",
        f"/tournaments/{event['id']}/verification",
    ):
        answer = await client.get(path, headers=OPERATOR)
        assert answer.status_code == 200, answer.text
        assert answer.headers["cache-control"] == "private, no-store", path


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
