"""Entering players with an Idempotency-Key: a director's tablet that lost the answer
enters nobody twice.

Without a key the retry of an entry whose answer was lost enters the same players again,
to be paired twice. With one, the retry gets the first answer again — the same entry and
tokens, which still work — and the tournament's stream gains nothing.
"""

from __future__ import annotations

import base64
import uuid
from typing import Any

import psycopg

from tests.support.api import OPERATOR, bearer, ok
from tests.support.refusals import stored
from tests.support.tournaments import open_event, round_over


def entries_path(event: dict[str, Any]) -> str:
    return f"/tournaments/{event['id']}/entries"


async def test_a_retry_with_the_key_gets_the_same_entry_and_tokens(
    client: Any, database_url: str
) -> None:
    event = await open_event(client, "forty-five", format="swiss", rounds=1, entry="pair")
    headers = {**bearer(event["director_token"]), "Idempotency-Key": str(uuid.uuid4())}
    body = {"names": ["Cy", "Di"]}
    first = ok(await client.post(entries_path(event), json=body, headers=headers), 201)
    before = await stored(database_url, event["id"])
    again = ok(await client.post(entries_path(event), json=body, headers=headers), 201)
    assert again == first and first["token"] and first["partner_token"]
    assert await stored(database_url, event["id"]) == before
    listed = ok(await client.get(entries_path(event)))["entries"]
    assert [e["entry"] for e in listed] == [first["entry"]]
    for token in (first["token"], first["partner_token"]):
        me = ok(await client.get(f"/tournaments/{event['id']}/me", headers=bearer(token)))
        assert me["entry"] == first["entry"]


async def test_without_a_key_a_retry_enters_the_players_twice(client: Any) -> None:
    """What the key is for: the plain retry is a second entry."""
    event = await open_event(client, "reserve-bridge", format="swiss", rounds=1)
    director = bearer(event["director_token"])
    for _ in range(2):
        ok(await client.post(entries_path(event), json={"name": "Ann"}, headers=director), 201)
    assert len(ok(await client.get(entries_path(event)))["entries"]) == 2


async def test_the_key_with_another_body_is_refused_and_enters_nobody(
    client: Any, database_url: str
) -> None:
    event = await open_event(client, "reserve-bridge", format="swiss", rounds=1)
    headers = {**bearer(event["director_token"]), "Idempotency-Key": "entry-1"}
    ok(await client.post(entries_path(event), json={"name": "Ann"}, headers=headers), 201)
    before = await stored(database_url, event["id"])
    other = await client.post(entries_path(event), json={"name": "Bob"}, headers=headers)
    assert other.status_code == 422 and other.json()["code"] == "idempotency-key-reused"
    assert await stored(database_url, event["id"]) == before


async def test_keys_are_the_callers_and_the_tournaments(client: Any) -> None:
    """The same key from the operator, or at another tournament, is another request."""
    event = await open_event(client, "reserve-bridge", format="swiss", rounds=1)
    other = await open_event(client, "reserve-bridge", format="swiss", rounds=1)
    key = {"Idempotency-Key": "entry-1"}
    body = {"name": "Ann"}
    by_director = {**bearer(event["director_token"]), **key}
    one = ok(await client.post(entries_path(event), json=body, headers=by_director), 201)
    two = ok(await client.post(entries_path(event), json=body, headers={**OPERATOR, **key}), 201)
    elsewhere = {**bearer(other["director_token"]), **key}
    three = ok(await client.post(entries_path(other), json=body, headers=elsewhere), 201)
    assert len({one["entry"], two["entry"], three["entry"]}) == 3
    assert len({one["token"], two["token"], three["token"]}) == 3


async def test_a_computer_entry_retried_is_the_same_entry(client: Any) -> None:
    event = await open_event(client, "reserve-bridge", format="swiss", rounds=1)
    headers = {**bearer(event["director_token"]), "Idempotency-Key": str(uuid.uuid4())}
    body = {"name": "Bot", "computer": True}
    first = ok(await client.post(entries_path(event), json=body, headers=headers), 201)
    again = ok(await client.post(entries_path(event), json=body, headers=headers), 201)
    assert first == again


async def test_the_store_keeps_neither_the_tokens_nor_the_key(
    client: Any, database_url: str
) -> None:
    event = await open_event(client, "forty-five", format="swiss", rounds=1, entry="pair")
    key = str(uuid.uuid4())
    headers = {**bearer(event["director_token"]), "Idempotency-Key": key}
    body = {"names": ["Cy", "Di"]}
    first = ok(await client.post(entries_path(event), json=body, headers=headers), 201)
    async with await psycopg.AsyncConnection.connect(database_url) as conn:
        cur = await conn.execute(
            "SELECT key, body FROM idempotency_keys WHERE table_id = %s", (event["id"],)
        )
        ((stored, kept),) = await cur.fetchall()
    row = stored.encode() + bytes(kept)
    assert key.encode() not in row
    for token in (first["token"], first["partner_token"]):
        assert token.encode() not in row
        assert base64.urlsafe_b64decode(token + "=") not in row


async def test_a_pairing_retried_with_the_key_is_the_round_it_paired(
    client: Any, database_url: str
) -> None:
    """A director whose tablet lost the pairing's answer sends it again: with the key, the
    same round, not the next one paired once the first is over (nor 409 while it plays)."""
    event = await open_event(client, "reserve-bridge", format="swiss", rounds=3)
    director = bearer(event["director_token"])
    for name in ("Ann", "Bob", "Cy", "Di"):
        entry = {"name": name, "computer": True}
        ok(await client.post(entries_path(event), json=entry, headers=director), 201)
    path = f"/tournaments/{event['id']}/rounds"
    keyed = {**director, "Idempotency-Key": str(uuid.uuid4())}
    first = await client.post(path, headers=keyed)
    paired = ok(first, 201)
    assert paired["round"] == 1
    await round_over(client, event["id"], 1)  # the computers play it out at once
    before = await stored(database_url, event["id"])
    again = await client.post(path, headers=keyed)
    assert ok(again, 201) == paired
    assert again.headers["location"] == first.headers["location"]
    assert await stored(database_url, event["id"]) == before
    assert ok(await client.get(f"/tournaments/{event['id']}"))["round"] == 1
    # Without the key, a pairing now is the next round's.
    assert ok(await client.post(path, headers=director), 201)["round"] == 2
