"""A tournament seen through two server processes (DESIGN 14): each process folds a
tournament once and reads only the events after it, so what one process appends the
other shows at once — entries, rounds, withdrawals and the player's seat."""

from __future__ import annotations

import httpx

from tests.support.api import bearer, ok


async def test_what_one_process_appends_the_other_shows_at_once(
    clients: list[httpx.AsyncClient], servers: tuple[list[str], str]
) -> None:
    a, b = clients
    body = {"game": "reserve-bridge", "name": "Two halls", "format": "swiss", "rounds": 2}
    event = ok(await a.post("/tournaments", json=body, headers=bearer(servers[1])), 201)
    path = f"/tournaments/{event['id']}"
    director = bearer(event["director_token"])
    assert ok(await b.get(f"{path}/entries"))["entries"] == []  # b folds it now
    ann = ok(await a.post(f"{path}/entries", json={"name": "Ann"}, headers=director), 201)
    assert [e["names"] for e in ok(await b.get(f"{path}/entries"))["entries"]] == [["Ann"]]
    ok(await b.post(f"{path}/entries", json={"name": "Bob"}, headers=director), 201)
    assert ok(await a.get(f"{path}/me", headers=bearer(ann["token"])))["round"] == 0
    paired = ok(await b.post(f"{path}/rounds", headers=director), 201)
    me = ok(await a.get(f"{path}/me", headers=bearer(ann["token"])))
    assert me["round"] == 1 and me["table"] == paired["tables"][0]["table"]
    view = ok(await b.get(f"/tables/{me['table']}", headers=bearer(me["token"])))
    assert view["you"] == me["seat"], "the seat token from one process works at the other"
    withdrawn = ok(await a.post(f"{path}/entries/{ann['entry']}/withdraw", headers=director))
    assert withdrawn["withdrawn"] is True
    entries = ok(await b.get(f"{path}/entries"))["entries"]
    assert [e["withdrawn"] for e in entries] == [True, False]
