"""Several server processes on one table: one success per version, nothing lost."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from service.tools.bench.harness import running_server
from tests.support import services
from tests.support.api import all_events, bearer, ok
from tests.support.playout import choose, pick_index

CLIENTS = 8


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, str]]:
    database_url = services.fresh_database("workers_")
    with running_server(database_url, services.redis_url(), workers=2) as found:
        yield found.base, found.operator


@pytest.fixture
async def http(server: tuple[str, str]) -> AsyncIterator[httpx.AsyncClient]:
    limits = httpx.Limits(max_connections=CLIENTS * 2)
    async with httpx.AsyncClient(base_url=server[0], timeout=30, limits=limits) as client:
        yield client


async def seated_table(http: httpx.AsyncClient) -> tuple[str, list[str]]:
    table = ok(await http.post("/tables", json={"game": "forty-five", "seats": 4}), 201)
    tokens = []
    for seat in range(4):
        granted = ok(
            await http.post(f"/tables/{table['id']}/seats/{seat}", json={"name": f"p{seat}"}), 201
        )
        tokens.append(granted["token"])
    return table["id"], tokens


async def test_racing_clients_get_exactly_one_success_per_version(
    http: httpx.AsyncClient, server: tuple[str, str]
) -> None:
    table_id, tokens = await seated_table(http)
    rng = random.Random(9)
    accepted_versions = []
    for _ in range(25):
        view = ok(await http.get(f"/tables/{table_id}"))
        seat = view["to_act"][0]
        mine = await http.get(f"/tables/{table_id}", headers=bearer(tokens[seat]))
        actions = mine.json()["legal_actions"]
        command = choose(actions[pick_index(actions, rng)], rng)
        headers = {**bearer(tokens[seat]), "If-Match": mine.headers["etag"]}
        answers = await asyncio.gather(
            *(
                http.post(f"/tables/{table_id}/actions", json=command, headers=headers)
                for _ in range(CLIENTS)
            )
        )
        statuses = sorted(a.status_code for a in answers)
        assert statuses.count(200) == 1, statuses
        assert set(statuses) <= {200, 409, 412}, statuses
        accepted_versions.append(next(a for a in answers if a.status_code == 200).json()["version"])
    events = await all_events(http, table_id, bearer(server[1]))
    versions = [e["version"] for e in events]
    assert versions == list(range(1, len(versions) + 1)), "a gap in the stream"
    assert set(accepted_versions) <= set(versions)
    acted = [
        e for e in events if e["actor"].startswith("seat:") and e["event"]["type"] != "seat_taken"
    ]
    first_of_each_command = {e["version"] for e in acted}
    assert len([v for v in accepted_versions if v in versions]) == 25
    assert first_of_each_command, "no command was recorded"


async def test_racing_retries_with_one_idempotency_key_append_once(
    http: httpx.AsyncClient, server: tuple[str, str]
) -> None:
    table_id, tokens = await seated_table(http)
    view = ok(await http.get(f"/tables/{table_id}"))
    seat = view["to_act"][0]
    before = len(await all_events(http, table_id, bearer(server[1])))
    headers = {**bearer(tokens[seat]), "Idempotency-Key": "the-only-pass"}
    answers = await asyncio.gather(
        *(
            http.post(f"/tables/{table_id}/actions", json={"type": "pass"}, headers=headers)
            for _ in range(CLIENTS)
        )
    )
    assert {a.status_code for a in answers} == {200}
    assert len({a.content for a in answers}) == 1, "retries must get the very first answer"
    after = await all_events(http, table_id, bearer(server[1]))
    assert len(after) - before == len(answers[0].json()["events"])
