"""Opening a table or a tournament with an Idempotency-Key: a client that lost the answer
opens nothing twice.

Without a key, the retry of an opening whose answer was lost opens a second table (a
lobby then lists two, and friends join the wrong one) or a second tournament. With one,
the retry gets the first answer again — the table as it opened, or the same tournament
and director's token — and the store gains nothing.
"""

from __future__ import annotations

import uuid
from typing import Any

from domain.registry import GAMES
from tests.support.api import OPERATOR, bearer, ok
from tests.support.refusals import assert_problem, stored
from tests.support.tournaments import open_event


def keyed(headers: dict[str, str] | None = None) -> dict[str, str]:
    return {**(headers or {}), "Idempotency-Key": str(uuid.uuid4())}


async def test_a_table_opened_again_with_the_key_is_the_same_table(
    client: Any, database_url: str
) -> None:
    headers = keyed()
    body = {"game": "pitch", "seats": 3}
    first = await client.post("/tables", json=body, headers=headers)
    opened = ok(first, 201)
    ok(await client.post(f"/tables/{opened['id']}/seats/0", json={"name": "Ann"}), 201)
    before = await stored(database_url, by_requests=True)
    again = await client.post("/tables", json=body, headers=headers)
    assert ok(again, 201) == opened  # the table as it opened, not as it is now
    assert again.headers["location"] == first.headers["location"]
    assert again.headers["etag"] == first.headers["etag"]
    assert await stored(database_url, by_requests=True) == before


async def test_without_a_key_a_retry_opens_a_second_table(client: Any) -> None:
    """What the key is for: the plain retry is another table."""
    body = {"game": "pitch", "seats": 3}
    one = ok(await client.post("/tables", json=body), 201)
    two = ok(await client.post("/tables", json=body), 201)
    assert one["id"] != two["id"]


async def test_the_key_with_another_body_is_refused_and_opens_nothing(
    client: Any, database_url: str
) -> None:
    headers = keyed()
    ok(await client.post("/tables", json={"game": "pitch", "seats": 3}, headers=headers), 201)
    before = await stored(database_url, by_requests=True)
    other = await client.post("/tables", json={"game": "pitch", "seats": 4}, headers=headers)
    assert_problem(other, 422, "idempotency-key-reused")
    assert await stored(database_url, by_requests=True) == before


async def test_the_operators_keys_are_apart_from_everybody_elses(client: Any) -> None:
    headers = keyed()
    body = {"game": "pitch", "seats": 3}
    anyone = ok(await client.post("/tables", json=body, headers=headers), 201)
    operator = ok(await client.post("/tables", json=body, headers={**OPERATOR, **headers}), 201)
    assert anyone["id"] != operator["id"]


async def test_a_tournament_table_opened_again_is_opened_once(
    client: Any, database_url: str
) -> None:
    """Its key is the operator's at that tournament, and the tournament's stream records
    the one table."""
    event = await open_event(client, "pitch")
    headers = keyed(OPERATOR)
    body = {"game": "pitch", "seats": 3, "tournament": event["id"]}
    opened = ok(await client.post("/tables", json=body, headers=headers), 201)
    before = await stored(database_url, event["id"])
    assert ok(await client.post("/tables", json=body, headers=headers), 201) == opened
    assert await stored(database_url, event["id"]) == before
    assert ok(await client.get(f"/tournaments/{event['id']}"))["tables"] == [opened["id"]]


async def test_a_tournament_table_retried_once_the_event_finished_gets_its_first_answer(
    client: Any, database_url: str
) -> None:
    """The director's tablet lost the answer, the one place the seat tokens are handed
    out; the table has ended and the event finished since. The retry was refused 409
    ``tournament-finished`` (checked before the key was): the tokens were lost for good."""
    event = await open_event(client, "pitch")
    director = keyed(bearer(event["director_token"]))
    path = f"/tournaments/{event['id']}/tables"
    body = {"players": ["Ann", "Bob"]}
    opened = ok(await client.post(path, json=body, headers=director), 201)
    ok(
        await client.post(
            f"/tables/{opened['table']['id']}/abort",
            json={"reason": "hall closes"},
            headers=OPERATOR,
        )
    )
    ok(await client.post(f"/tournaments/{event['id']}/finish", headers=director))
    before = await stored(database_url, event["id"])
    assert ok(await client.post(path, json=body, headers=director), 201) == opened
    assert await stored(database_url, event["id"]) == before
    # A new request (another key) is refused as before.
    refused = await client.post(path, json=body, headers=keyed(bearer(event["director_token"])))
    assert_problem(refused, 409, "tournament-finished")
    assert await stored(database_url, event["id"]) == before


async def test_a_tournament_opened_again_is_the_same_with_the_same_directors_token(
    client: Any, database_url: str
) -> None:
    headers = keyed(OPERATOR)
    body = {"game": "reserve-bridge", "name": "Club night", "format": "swiss", "rounds": 2}
    first = await client.post("/tournaments", json=body, headers=headers)
    opened = ok(first, 201)
    # Every tournament, and this one's stream (others' computers play on meanwhile).
    before = await stored(database_url, opened["id"])
    again = await client.post("/tournaments", json=body, headers=headers)
    assert ok(again, 201) == opened
    assert again.headers["location"] == first.headers["location"]
    assert await stored(database_url, opened["id"]) == before
    path = f"/tournaments/{opened['id']}/entries"
    director = bearer(opened["director_token"])
    for name in ("Ann", "Bob"):
        ok(await client.post(path, json={"name": name}, headers=director), 201)
    paired = f"/tournaments/{opened['id']}/rounds"
    ok(await client.post(paired, headers=director), 201)
    # Its first answer still, not the tournament as it is now (playing round 1).
    later = await client.post("/tournaments", json=body, headers=headers)
    assert ok(later, 201) == opened and opened["status"] == "open"
    assert later.content == first.content
    other = await client.post("/tournaments", json={**body, "rounds": 3}, headers=headers)
    assert_problem(other, 422, "idempotency-key-reused")


async def test_a_tournament_retried_with_other_decks_is_another_request(client: Any) -> None:
    """The duplicate decks stay out of the recorded command, not out of the request."""
    headers = keyed(OPERATOR)
    body: dict[str, Any] = {
        "game": "pitch",
        "name": "Duplicate",
        "format": "duplicate",
        "rounds": 1,
    }
    deck = list(GAMES["pitch"].pack)
    first = {**body, "deals": [{"deck": deck}]}
    ok(await client.post("/tournaments", json=first, headers=headers), 201)
    second = {**body, "deals": [{"deck": deck[::-1]}]}
    other = await client.post("/tournaments", json=second, headers=headers)
    assert_problem(other, 422, "idempotency-key-reused")
