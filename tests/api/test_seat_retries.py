"""Taking a seat with an Idempotency-Key: a phone that lost the answer keeps its seat.

Without a key, the retry of a take whose answer was lost finds its own seat taken (409)
and the token is gone with the answer. With one, the retry gets the first answer again,
token and all, and nothing more is recorded; the store still holds no usable token.
"""

from __future__ import annotations

import base64
import json
import uuid
from typing import Any

import psycopg

from service.write import sealed_tokens
from tests.support.api import bearer, new_table, ok
from tests.support.refusals import stored


def seat_path(table_id: str, seat: int) -> str:
    return f"/tables/{table_id}/seats/{seat}"


def keyed(key: str) -> dict[str, str]:
    return {"Idempotency-Key": key}


async def test_a_retry_with_the_key_gets_the_same_token_and_records_nothing(
    client: Any, database_url: str
) -> None:
    table = await new_table(client)
    key = keyed(str(uuid.uuid4()))
    first = await client.post(seat_path(table["id"], 2), json={"name": "Ann"}, headers=key)
    granted = ok(first, 201)
    before = await stored(database_url, by_requests=True)
    again = await client.post(seat_path(table["id"], 2), json={"name": "Ann"}, headers=key)
    assert ok(again, 201) == granted
    assert await stored(database_url, by_requests=True) == before
    view = ok(await client.get(f"/tables/{table['id']}", headers=bearer(granted["token"])))
    assert view["you"] == 2


async def test_without_a_key_the_retry_finds_the_seat_taken(client: Any) -> None:
    table = await new_table(client)
    ok(await client.post(seat_path(table["id"], 0), json={"name": "Ann"}), 201)
    again = await client.post(seat_path(table["id"], 0), json={"name": "Ann"})
    assert again.status_code == 409 and again.json()["code"] == "seat-taken"


async def test_the_key_with_another_body_is_refused_and_changes_nothing(
    client: Any, database_url: str
) -> None:
    table = await new_table(client)
    key = keyed(str(uuid.uuid4()))
    ok(await client.post(seat_path(table["id"], 1), json={"name": "Ann"}, headers=key), 201)
    before = await stored(database_url, by_requests=True)
    other = await client.post(seat_path(table["id"], 1), json={"name": "Bob"}, headers=key)
    assert other.status_code == 422 and other.json()["code"] == "idempotency-key-reused"
    assert await stored(database_url, by_requests=True) == before


async def test_the_key_belongs_to_its_seat(client: Any) -> None:
    """A client that counts on its keys for one seat cannot reach another seat's token:
    the same key at the next seat takes that seat, with a token of its own."""
    table = await new_table(client)
    key = keyed("the-same-key-for-both")
    one = ok(await client.post(seat_path(table["id"], 0), json={"name": "Ann"}, headers=key), 201)
    two = ok(await client.post(seat_path(table["id"], 1), json={"name": "Ann"}, headers=key), 201)
    assert (one["seat"], two["seat"]) == (0, 1) and one["token"] != two["token"]


async def test_a_short_key_counts_for_nothing_being_too_easy_to_guess(client: Any) -> None:
    """Anyone who guessed a seat's key would get its token; a key of fewer than 16
    characters (``1``, as clients that count their keys send) is taken as none: the take
    is made, and its retry finds the seat taken, as before keys were read here."""
    table = await new_table(client)
    path, body, key = seat_path(table["id"], 0), {"name": "A"}, keyed("1")
    ok(await client.post(path, json=body, headers=key), 201)
    again = await client.post(path, json=body, headers=key)
    assert again.status_code == 409 and again.json()["code"] == "seat-taken"


async def test_the_last_seat_retried_after_the_deal_answers_the_first_version(client: Any) -> None:
    """The last take starts the game; its retry comes when the table has moved on, and
    still gets the first answer: the version the take made, not the table's now."""
    table = await new_table(client, game="pitch", seats=2)
    ok(await client.post(seat_path(table["id"], 0), json={"name": "A"}), 201)
    key = keyed(str(uuid.uuid4()))
    last = ok(await client.post(seat_path(table["id"], 1), json={"name": "B"}, headers=key), 201)
    view = ok(await client.get(f"/tables/{table['id']}", headers=bearer(last["token"])))
    assert view["status"] == "playing" and view["version"] == last["version"]
    seat = view["to_act"][0]
    if seat == 1:
        ok(
            await client.post(
                f"/tables/{table['id']}/actions",
                json={"type": "pass"},
                headers=bearer(last["token"]),
            )
        )
    again = ok(await client.post(seat_path(table["id"], 1), json={"name": "B"}, headers=key), 201)
    assert again == last


async def test_a_computer_seat_retried_still_has_no_token(client: Any) -> None:
    table = await new_table(client)
    key = keyed(str(uuid.uuid4()))
    body = {"computer": True}
    first = ok(await client.post(seat_path(table["id"], 3), json=body, headers=key), 201)
    again = ok(await client.post(seat_path(table["id"], 3), json=body, headers=key), 201)
    assert first == again and first["token"] is None


async def test_the_store_keeps_neither_the_token_nor_the_key(
    client: Any, database_url: str
) -> None:
    """The record gives the token back only with the client's key, which the database
    holds only as a digest: neither the token, its bytes nor the key are in the row, and
    what the row holds does not open the seal."""
    table = await new_table(client)
    key = str(uuid.uuid4())
    path = seat_path(table["id"], 0)
    granted = ok(await client.post(path, json={"name": "Ann"}, headers=keyed(key)), 201)
    token = granted["token"]
    async with await psycopg.AsyncConnection.connect(database_url) as conn:
        cur = await conn.execute(
            "SELECT actor, key, request_hash, body, etag FROM idempotency_keys WHERE table_id = %s",
            (table["id"],),
        )
        ((actor, stored, request_hash, body, etag),) = await cur.fetchall()
    row = b"|".join(
        [actor.encode(), stored.encode(), bytes(request_hash), bytes(body), etag.encode()]
    )
    raw = base64.urlsafe_b64decode(token + "=")
    assert token.encode() not in row and raw not in row and key.encode() not in row
    (kept,) = map(base64.b64decode, json.loads(bytes(body))["sealed"])
    place = f"{table['id']}/0/0"  # the table's seat 0, its one token
    assert sealed_tokens.unseal(kept, key, place) == token
    for guess in (stored, stored.removeprefix("sha256:"), actor):
        assert sealed_tokens.unseal(kept, guess, place) != token
