"""Computer seats (DESIGN 10): a table with one person and the rest computers is played
to its end over HTTP, the computer acting through the ordinary command path; two server
processes share the database, and one of them leads the computer players."""

from __future__ import annotations

import random
from typing import Any

import httpx
import pytest

from domain.registry import GAMES
from service.audit.verify import verify_lines
from service.choices import choose, pick_index
from tests.support.api import bearer, ok

GAME_IDS = sorted(GAMES)
OPTIONS: dict[str, dict[str, Any]] = {"pinochle": {"deals": 2}}  # a short chips game


async def _one_person_table(client: httpx.AsyncClient, game: str) -> tuple[str, str]:
    seats = GAMES[game].min_seats
    body = {"game": game, "seats": seats, "options": OPTIONS.get(game, {})}
    table = ok(await client.post("/tables", json=body), 201)
    path = f"/tables/{table['id']}/seats"
    token = ok(await client.post(f"{path}/0", json={"name": "Ann"}), 201)["token"]
    for seat in range(1, seats):
        ok(await client.post(f"{path}/{seat}", json={"computer": True}), 201)
    return table["id"], token


async def _play_as_the_person(
    clients: list[httpx.AsyncClient], table_id: str, token: str, rng: random.Random
) -> dict[str, Any]:
    """Seat 0 waits for its turn (long-poll) and plays; the computer plays the rest."""
    path = f"/tables/{table_id}"
    mine = await clients[0].get(path, headers=bearer(token))
    for turn in range(5_000):
        view = ok(mine)
        if view["status"] == "finished":
            return view  # type: ignore[no-any-return]
        client = clients[turn % 2]
        if 0 not in view["to_act"]:
            headers = {**bearer(token), "If-None-Match": mine.headers["etag"]}
            mine = await client.get(f"{path}?wait=10", headers=headers)
            assert mine.status_code == 200, "the computer did not act within 10 s"
            continue
        actions = view["legal_actions"]
        command = choose(actions[pick_index(actions, rng)], rng)
        ok(await client.post(f"{path}/actions", json=command, headers=bearer(token)))
        mine = await client.get(path, headers=bearer(token))
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("game", GAME_IDS)
async def test_one_person_and_the_computer_finish_a_game(
    clients: list[httpx.AsyncClient], servers: tuple[list[str], str], game: str
) -> None:
    table_id, token = await _one_person_table(clients[0], game)
    final = await _play_as_the_person(clients, table_id, token, random.Random(game))
    assert [s["computer"] for s in final["seats"]] == [False] + [True] * (len(final["seats"]) - 1)
    export = await clients[1].get(f"/tables/{table_id}/export", headers=bearer(servers[1]))
    lines = export.content.splitlines()
    report = verify_lines(lines)
    assert report.ok, report.failure
    actors = {line.split(b'"actor":"')[1].split(b'"')[0] for line in lines[1:]}
    assert b"computer:1" in actors and b"seat:0" in actors


async def test_on_a_tournament_table_only_the_operator_seats_the_computer(
    clients: list[httpx.AsyncClient], servers: tuple[list[str], str]
) -> None:
    operator = bearer(servers[1])
    tournament = ok(
        await clients[0].post(
            "/tournaments", json={"name": "Club night", "game": "pitch"}, headers=operator
        ),
        201,
    )
    table = ok(
        await clients[0].post(
            "/tables",
            json={"game": "pitch", "seats": 3, "tournament": tournament["id"]},
            headers=operator,
        ),
        201,
    )
    path = f"/tables/{table['id']}/seats/1"
    refused = await clients[1].post(path, json={"computer": True})
    assert refused.status_code == 401, refused.text
    ok(await clients[1].post(path, json={"computer": True}, headers=operator), 201)


async def test_a_seat_taken_without_a_name_is_named_after_it(
    clients: list[httpx.AsyncClient],
) -> None:
    table = ok(await clients[0].post("/tables", json={"game": "pitch", "seats": 3}), 201)
    ok(await clients[0].post(f"/tables/{table['id']}/seats/1", json={}), 201)
    ok(await clients[1].post(f"/tables/{table['id']}/seats/2", json={"computer": True}), 201)
    view = ok(await clients[0].get(f"/tables/{table['id']}"))
    assert [(s["name"], s["computer"]) for s in view["seats"]] == [
        (None, False),
        ("Player 2", False),
        ("Computer", True),
    ]


async def test_seating_the_computer_hands_out_no_token_for_its_seat(
    clients: list[httpx.AsyncClient],
) -> None:
    """Whoever seats the computer gets no way to read its hand or play for it: no token
    is made for the seat, so none can be used."""
    table = ok(await clients[0].post("/tables", json={"game": "pitch", "seats": 3}), 201)
    path = f"/tables/{table['id']}"
    human = ok(await clients[0].post(f"{path}/seats/0", json={"name": "Ann"}), 201)
    assert isinstance(human["token"], str)
    computer = ok(await clients[1].post(f"{path}/seats/1", json={"computer": True}), 201)
    assert computer == {"table": table["id"], "seat": 1, "token": None, "version": 3}


async def test_computers_alone_play_a_table_to_its_end(clients: list[httpx.AsyncClient]) -> None:
    table = ok(await clients[0].post("/tables", json={"game": "reserve-bridge", "seats": 2}), 201)
    path = f"/tables/{table['id']}"
    for seat in (0, 1):
        ok(await clients[seat].post(f"{path}/seats/{seat}", json={"computer": True}), 201)
    answer = await clients[0].get(path)
    for _ in range(500):
        if ok(answer)["status"] == "finished":
            break
        waited = {"If-None-Match": answer.headers["etag"]}
        answer = await clients[1].get(f"{path}?wait=10", headers=waited)
        assert answer.status_code == 200, "the computers stopped playing"
    assert ok(answer)["status"] == "finished"
