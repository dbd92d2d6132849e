"""A tournament seen through two server processes (DESIGN 14): each process folds a
tournament once and reads only the events after it, so what one process appends the
other shows at once — entries, rounds, withdrawals and the player's seat."""

from __future__ import annotations

import asyncio

import httpx

from tests.support.api import bearer, ok


async def swiss_at(a: httpx.AsyncClient, operator: str, rounds: int) -> tuple[str, dict[str, str]]:
    """A Reserve Bridge Swiss event opened through ``a``: its path and its director."""
    body = {"game": "reserve-bridge", "name": "Two halls", "format": "swiss", "rounds": rounds}
    event = ok(await a.post("/tournaments", json=body, headers=bearer(operator)), 201)
    return f"/tournaments/{event['id']}", bearer(event["director_token"])


async def test_what_one_process_appends_the_other_shows_at_once(
    clients: list[httpx.AsyncClient], servers: tuple[list[str], str]
) -> None:
    a, b = clients
    path, director = await swiss_at(a, servers[1], rounds=2)
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


async def test_a_me_parked_at_one_process_answers_when_the_other_pairs_the_round(
    clients: list[httpx.AsyncClient], servers: tuple[list[str], str]
) -> None:
    a, b = clients
    path, director = await swiss_at(a, servers[1], rounds=1)
    ann = ok(await a.post(f"{path}/entries", json={"name": "Ann"}, headers=director), 201)
    ok(await a.post(f"{path}/entries", json={"name": "Bob"}, headers=director), 201)
    waiting = await b.get(f"{path}/me", headers=bearer(ann["token"]))
    assert waiting.json()["round"] == 0
    headers = {**bearer(ann["token"]), "If-None-Match": waiting.headers["etag"]}
    poll = asyncio.create_task(b.get(f"{path}/me?wait=30", headers=headers))
    paired = ok(await a.post(f"{path}/rounds", headers=director), 201)
    answer = await poll
    assert answer.status_code == 200, "b's answer is not the one it folded before a paired"
    assert answer.json()["table"] == paired["tables"][0]["table"]
    again = {**headers, "If-None-Match": answer.headers["etag"]}
    unchanged = await a.get(f"{path}/me", headers=again)
    assert unchanged.status_code == 304, "both processes tag the same answer alike"


async def test_a_me_parked_at_one_process_answers_when_the_other_ends_the_tournament(
    clients: list[httpx.AsyncClient], servers: tuple[list[str], str]
) -> None:
    """The answer did not change when the tournament ended: a phone waiting for the next
    round was answered 304 for ever."""
    a, b = clients
    path, director = await swiss_at(a, servers[1], rounds=3)
    ann = ok(await a.post(f"{path}/entries", json={"name": "Ann"}, headers=director), 201)
    ok(await a.post(f"{path}/entries", json={"name": "Bob"}, headers=director), 201)
    ok(await a.post(f"{path}/rounds", headers=director), 201)
    seat = ok(await a.get(f"{path}/me", headers=bearer(ann["token"])))
    resign = {"type": "resign"}
    ok(await a.post(f"/tables/{seat['table']}/actions", json=resign, headers=bearer(seat["token"])))
    for _ in range(200):  # the round ends once its result is in the tournament's stream
        if ok(await a.get(f"{path}/rounds/1"))["status"] != "playing":
            break
        await asyncio.sleep(0.05)
    playing = await b.get(f"{path}/me", headers=bearer(ann["token"]))
    assert playing.json()["status"] == "playing"
    headers = {**bearer(ann["token"]), "If-None-Match": playing.headers["etag"]}
    poll = asyncio.create_task(b.get(f"{path}/me?wait=30", headers=headers))
    ok(await a.post(f"{path}/finish", headers=director))
    answer = await poll
    assert answer.status_code == 200, "the end of the tournament did not answer the poll"
    assert answer.json()["status"] == "finished"
    assert answer.json()["round"] == 1
