"""``GET /me``: who a bearer token is — the operator, a tournament's director, a seat or
an entry — and a 401 for a token that no longer works, an unknown one, or none."""

from __future__ import annotations

from typing import Any

from tests.support.api import OPERATOR, bearer, new_table, ok, seat_all
from tests.support.refusals import assert_problem
from tests.support.tournaments import open_event


async def holder(client: Any, headers: dict[str, str]) -> dict[str, Any]:
    answer = await client.get("/me", headers=headers)
    assert answer.headers["Cache-Control"] == "private, no-store"
    return ok(answer)  # type: ignore[no-any-return]


async def test_each_kind_of_token_says_who_it_is(client: Any) -> None:
    nobody = {"table": None, "seat": None, "tournament": None, "entry": None}
    assert await holder(client, OPERATOR) == {"kind": "operator", **nobody}

    table = await new_table(client, "pitch", seats=3)
    tokens = await seat_all(client, table["id"], 3)
    seat = {**nobody, "table": table["id"], "seat": 2}
    assert await holder(client, bearer(tokens[2])) == {"kind": "seat", **seat}

    event = await open_event(client, "reserve-bridge", format="swiss", rounds=1)
    director = bearer(event["director_token"])
    tournament = {**nobody, "tournament": event["id"]}
    assert await holder(client, director) == {"kind": "director", **tournament}
    path = f"/tournaments/{event['id']}/entries"
    entered = ok(await client.post(path, json={"name": "Ann"}, headers=director), 201)
    entry = {**tournament, "entry": entered["entry"]}
    assert await holder(client, bearer(entered["token"])) == {"kind": "entry", **entry}


async def test_a_revoked_seat_token_is_refused(client: Any) -> None:
    table = await new_table(client, "pitch", seats=2)
    tokens = await seat_all(client, table["id"], 2)
    path = f"/tables/{table['id']}/seats/1/replace"
    ok(await client.post(path, json={"name": "Zed"}, headers=OPERATOR))
    assert_problem(await client.get("/me", headers=bearer(tokens[1])), 401, "unauthorized")
    assert (await holder(client, bearer(tokens[0])))["seat"] == 0


async def test_no_token_or_an_unknown_one_is_refused(client: Any) -> None:
    assert_problem(await client.get("/me"), 401, "unauthorized")
    assert_problem(await client.get("/me", headers=bearer("no-such-token")), 401, "unauthorized")
