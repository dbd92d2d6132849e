"""Read your writes across processes: no answer is older than an acknowledged commit.

Three server processes share one Postgres and Redis: ``cardroom serve --workers 2`` and a
second ``cardroom serve`` on another port. Every request after a command goes out on a
new connection to the other server, as a phone does after a network change or a load
balancer does per request, so the process that answers is not the one that committed.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from service.write.handler import etag
from tests.support.api import bearer, ok
from tests.support.playout import choose, pick_index
from tests.support.two_servers import clients_of, two_servers

COMMANDS = 1_000
TABLES = 8
FRESH = {"Connection": "close"}  # every request on a connection of its own


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[list[str], str]]:
    """The base URLs of a two-worker server and of a second server, and the operator token."""
    with two_servers("ryw", first_workers=2) as servers:
        yield servers


@pytest.fixture
async def clients(servers: tuple[list[str], str]) -> AsyncIterator[list[httpx.AsyncClient]]:
    async with clients_of(servers[0], headers=FRESH) as clients:
        yield clients


async def _seated(client: httpx.AsyncClient, game: str, seats: int) -> tuple[str, list[str]]:
    table = ok(await client.post("/tables", json={"game": game, "seats": seats}), 201)
    tokens = []
    for seat in range(seats):
        granted = ok(
            await client.post(f"/tables/{table['id']}/seats/{seat}", json={"name": f"p{seat}"}),
            201,
        )
        tokens.append(granted["token"])
    return table["id"], tokens


class Player:
    """Plays tables to the end, switching server after every request."""

    def __init__(self, clients: list[httpx.AsyncClient], seed: int) -> None:
        self.clients = clients
        self.rng = random.Random(seed)
        self.turn = 0
        self.acknowledged = 0  # the highest version a command of ours was answered with
        self.commands = 0

    def client(self) -> httpx.AsyncClient:
        self.turn += 1
        return self.clients[self.turn % len(self.clients)]

    def check(self, view: dict[str, Any], what: str) -> None:
        assert view["version"] >= self.acknowledged, (
            f"{what} answered version {view['version']}"
            f" after a command was acknowledged at {self.acknowledged}"
        )

    async def play(self, game: str, seats: int, commands: int) -> None:
        while self.commands < commands:
            table_id, tokens = await _seated(self.client(), game, seats)
            self.acknowledged = 0
            await self._play_table(table_id, tokens, commands)

    async def _play_table(self, table_id: str, tokens: list[str], commands: int) -> None:
        path = f"/tables/{table_id}"
        etag = None
        while self.commands < commands:
            view = ok(await self.client().get(path))
            self.check(view, "a spectator's view")
            if view["status"] == "finished":
                return
            seat = self.rng.choice(view["to_act"])
            mine = await self.client().get(path, headers=bearer(tokens[seat]))
            self.check(ok(mine), "a seat's view")
            actions = mine.json()["legal_actions"]
            command = choose(actions[pick_index(actions, self.rng)], self.rng)
            answer = await self.client().post(
                f"{path}/actions", json=command, headers=bearer(tokens[seat])
            )
            self.acknowledged = ok(answer)["version"]
            self.commands += 1
            # What the phone asks next: "has it changed since the view I acted on?"
            etag = mine.headers["etag"]
            again = await self.client().get(
                path, headers={**bearer(tokens[seat]), "If-None-Match": etag}
            )
            assert again.status_code == 200, "a 304 for a view the seat has just changed"
            self.check(again.json(), "a conditional GET")
            events = ok(await self.client().get(f"{path}/events?after={self.acknowledged - 1}"))
            assert [e["version"] for e in events["events"]][:1] == [self.acknowledged], (
                "the events after a command do not start with it"
            )


async def test_alternating_servers_never_see_a_version_go_back(
    clients: list[httpx.AsyncClient],
) -> None:
    games = [("forty-five", 4), ("pitch", 3), ("pinochle", 3), ("reserve-bridge", 2)]
    players = [Player(clients, seed) for seed in range(TABLES)]
    share = COMMANDS // TABLES
    await asyncio.gather(*(p.play(*games[i % len(games)], share) for i, p in enumerate(players)))
    assert sum(p.commands for p in players) >= COMMANDS


async def test_uncontended_seat_takes_never_conflict(clients: list[httpx.AsyncClient]) -> None:
    """One client per table takes its seats one after the other, 50 tables at once."""

    async def fill(index: int) -> list[int]:
        game, seats = ("forty-five", 4) if index % 2 else ("pitch", 4)
        created = ok(
            await clients[index % 2].post("/tables", json={"game": game, "seats": seats}), 201
        )
        statuses = []
        for seat in range(seats):
            taken = await clients[(index + seat + 1) % 2].post(
                f"/tables/{created['id']}/seats/{seat}", json={"name": f"p{seat}"}
            )
            statuses.append(taken.status_code)
        return statuses

    results = await asyncio.gather(*(fill(i) for i in range(50)))
    statuses = [s for table in results for s in table]
    assert statuses == [201] * 200, sorted(set(statuses))


async def test_a_burst_of_players_fills_every_free_seat(
    clients: list[httpx.AsyncClient],
) -> None:
    """Five players at once for each of seven seats, at three tables, through both
    servers: every seat is taken by exactly one of them and the others hear
    ``seat-taken``, never a version conflict."""
    tables = [
        ok(await clients[0].post("/tables", json={"game": "pitch", "seats": 7}), 201)["id"]
        for _ in range(3)
    ]
    players = [(table, player) for table in tables for player in range(35)]
    answers = await asyncio.gather(
        *(
            clients[player % 2].post(f"/tables/{table}/seats/{player % 7}", json={"name": "p"})
            for table, player in players
        )
    )
    by_seat: dict[tuple[str, int], list[int]] = {}
    for (table, player), answer in zip(players, answers, strict=True):
        by_seat.setdefault((table, player % 7), []).append(answer.status_code)
        if answer.status_code == 409:
            assert answer.json()["code"] == "seat-taken", answer.text
    assert all(sorted(codes) == [201, 409, 409, 409, 409] for codes in by_seat.values()), by_seat
    for table in tables:
        assert ok(await clients[1].get(f"/tables/{table}"))["status"] == "playing"


async def test_long_poll_wakes_with_the_version_that_woke_it(
    clients: list[httpx.AsyncClient],
) -> None:
    """Pollers on one server, commands on the other: every wake, and every poll sent
    after the command's answer with the ETag from before it, is at least as new as the
    command."""
    rng = random.Random(5)
    table_id, tokens = await _seated(clients[0], "forty-five", 4)
    path = f"/tables/{table_id}"
    for round_no in range(40):
        poller, actor = clients[round_no % 2], clients[(round_no + 1) % 2]
        view = ok(await actor.get(path))
        if view["status"] == "finished":
            table_id, tokens = await _seated(actor, "forty-five", 4)
            path = f"/tables/{table_id}"
            continue
        current = (await actor.get(path)).headers["etag"]
        polls = [
            asyncio.create_task(poller.get(f"{path}?wait=20", headers={"If-None-Match": current}))
            for _ in range(4)
        ]
        await asyncio.sleep(0)  # let the polls go out before the command
        seat = rng.choice(view["to_act"])
        mine = ok(await actor.get(path, headers=bearer(tokens[seat])))
        command = choose(mine["legal_actions"][pick_index(mine["legal_actions"], rng)], rng)
        answer = ok(await actor.post(f"{path}/actions", json=command, headers=bearer(tokens[seat])))
        late = await poller.get(f"{path}?wait=20", headers={"If-None-Match": current})
        assert late.status_code == 200 and late.json()["version"] >= answer["version"]
        for woke in await asyncio.gather(*polls):
            assert woke.status_code == 200, woke.status_code
            assert woke.json()["version"] >= answer["version"]


async def test_a_race_lost_under_if_match_is_412_on_either_server(
    clients: list[httpx.AsyncClient],
) -> None:
    """Two commands of one seat with the same ``If-Match``, sent at once through both
    servers: one is recorded and the other answers 412 with the current ETag, whether or
    not its process had the table in its cache (DESIGN 6: 412 for a stale If-Match)."""
    for race in range(12):
        table_id, tokens = await _seated(clients[race % 2], "forty-five", 4)
        path = f"/tables/{table_id}"
        seat = ok(await clients[0].get(path))["to_act"][0]
        mine = ok(await clients[1].get(path, headers=bearer(tokens[seat])))
        headers = {**bearer(tokens[seat]), "If-Match": etag(mine["version"], seat)}
        answers = await asyncio.gather(
            clients[0].post(f"{path}/actions", json={"type": "pass"}, headers=headers),
            clients[1].post(f"{path}/actions", json={"type": "bid", "amount": 20}, headers=headers),
        )
        codes = sorted(answer.status_code for answer in answers)
        assert codes == [200, 412], [answer.text for answer in answers]
        won = next(answer for answer in answers if answer.status_code == 200)
        lost = next(answer for answer in answers if answer.status_code == 412)
        assert lost.json()["code"] == "precondition-failed"
        assert lost.headers["etag"] == etag(won.json()["version"], seat)
