"""Server-Sent Events over a real socket: resume, private cards, keep-alive, Redis down."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import httpx
import msgspec
import pytest

from service.http import live
from service.http.app import create_app
from service.settings import Settings
from tests.conftest import make_settings
from tests.support import services
from tests.support.api import bearer, new_table, ok, seat_all
from tests.support.live import serving
from tests.support.playout import choose, pick_index
from tests.support.redis_server import RedisServer
from tests.support.sse import Message, messages


@pytest.fixture(scope="module")
def stream_settings(redis_server: RedisServer) -> Settings:
    settings = make_settings(services.fresh_database("sse_"))
    return msgspec.structs.replace(settings, redis_url=redis_server.url)


@pytest.fixture(scope="module")
async def base_url(stream_settings: Settings) -> AsyncIterator[str]:
    async with serving(create_app(stream_settings)) as url:
        yield url


@pytest.fixture
async def http(base_url: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as client:
        yield client


async def step(
    http: httpx.AsyncClient, table_id: str, tokens: list[str], rng: random.Random
) -> None:
    view = ok(await http.get(f"/tables/{table_id}"))
    seat = view["to_act"][0]
    mine = ok(await http.get(f"/tables/{table_id}", headers=bearer(tokens[seat])))
    actions = mine["legal_actions"]
    command = choose(actions[pick_index(actions, rng)], rng)
    ok(await http.post(f"/tables/{table_id}/actions", json=command, headers=bearer(tokens[seat])))


async def collect(
    http: httpx.AsyncClient, url: str, until_version: int, headers: dict[str, str] | None = None
) -> list[Message]:
    """Messages of a stream until one with ``id`` ``until_version`` arrives."""
    found: list[Message] = []
    async with http.stream("GET", url, headers=headers or {}) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        async for message in messages(response):
            found.append(message)
            if message.get("id") == str(until_version):
                return found
    raise AssertionError("the stream ended early")


async def test_stream_catches_up_then_follows_live_and_resumes(http: httpx.AsyncClient) -> None:
    rng = random.Random(5)
    table = await new_table(http)
    tokens = await seat_all(http, table["id"], 4)
    start = ok(await http.get(f"/tables/{table['id']}"))["version"]
    url = f"/tables/{table['id']}/stream"

    async def act_later() -> None:
        await asyncio.sleep(0.3)
        for _ in range(5):
            await step(http, table["id"], tokens, rng)

    actor = asyncio.create_task(act_later())
    found = await asyncio.wait_for(collect(http, url, start + 5), timeout=20)
    await actor
    events = [m for m in found if "id" in m]
    assert [int(m["id"]) for m in events] == list(range(1, start + 6))
    assert all(m["event"] == m["data"]["event"]["type"] for m in events)

    resumed = await asyncio.wait_for(
        collect(http, url, start + 5, headers={"Last-Event-ID": str(start)}), timeout=20
    )
    assert [int(m["id"]) for m in resumed if "id" in m] == list(range(start + 1, start + 6))


async def test_a_seat_stream_carries_its_own_cards_and_no_one_elses(
    http: httpx.AsyncClient,
) -> None:
    table = await new_table(http)
    tokens = await seat_all(http, table["id"], 4)
    version = ok(await http.get(f"/tables/{table['id']}"))["version"]
    url = f"/tables/{table['id']}/stream"
    mine = await asyncio.wait_for(collect(http, url, version, bearer(tokens[2])), timeout=20)
    public = await asyncio.wait_for(collect(http, url, version), timeout=20)
    dealt_to_seat = next(m for m in mine if m.get("event") == "cards_dealt")["data"]["event"]
    dealt_public = next(m for m in public if m.get("event") == "cards_dealt")["data"]["event"]
    assert dealt_to_seat["hands"][2] and len(dealt_to_seat["hands"][2]) == 5
    assert [h for i, h in enumerate(dealt_to_seat["hands"]) if i != 2] == [None] * 3
    assert dealt_public["hands"] == [None] * 4 and dealt_public["rest"] is None


async def test_keep_alive_comments_flow_while_nothing_happens(
    http: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live, "KEEP_ALIVE", 0.2)
    table = await new_table(http)
    comments = 0
    async with http.stream("GET", f"/tables/{table['id']}/stream") as response:
        async for message in messages(response):
            if message.get("comment") == "keep-alive":
                comments += 1
                if comments == 2:
                    break
    assert comments == 2


async def test_with_redis_down_the_stream_falls_back_to_postgres(
    http: httpx.AsyncClient, redis_server: RedisServer
) -> None:
    rng = random.Random(11)
    table = await new_table(http)
    tokens = await seat_all(http, table["id"], 4)
    start = ok(await http.get(f"/tables/{table['id']}"))["version"]

    async def act_without_redis() -> None:
        await asyncio.sleep(0.3)
        redis_server.stop()
        for _ in range(3):
            await step(http, table["id"], tokens, rng)

    actor = asyncio.create_task(act_without_redis())
    try:
        url = f"/tables/{table['id']}/stream"
        found = await asyncio.wait_for(
            collect(http, url, start + 3, {"Last-Event-ID": str(start)}), timeout=30
        )
        await actor
    finally:
        redis_server.start()
    assert [int(m["id"]) for m in found if "id" in m] == [start + 1, start + 2, start + 3]


async def test_stream_of_an_unknown_table_is_not_found(http: httpx.AsyncClient) -> None:
    response = await http.get("/tables/00000000-0000-0000-0000-000000000000/stream")
    assert response.status_code == 404
    assert response.json()["code"] == "table-not-found"
