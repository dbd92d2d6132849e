"""``GET /tournaments/{id}/stream`` (DESIGN 14) over a real socket, as a small
all-computer Reserve Bridge Swiss event plays: every event once, in order, resumed after
``Last-Event-ID`` without a gap or a repeat, the stream's end after
``tournament_finished``; the relay's ``{prefix}:tournament:{id}`` entries carry the same
records; and a stream served by one process follows commands sent to another."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import jsonschema
import pytest
from litestar import Litestar
from redis.asyncio import Redis

from service.http.app import create_app
from service.http.asyncapi import document
from service.settings import Settings
from service.workers.streams import STREAM_IDLE_SECONDS, tournament_stream
from tests.conftest import OPERATOR_TOKEN, make_settings
from tests.support import services
from tests.support.api import bearer, ok
from tests.support.live import serving
from tests.support.sse import Message, messages
from tests.support.two_servers import two_servers

PATIENCE = 60  # seconds for a one-table event to play out on a busy machine
PLAYED = ["tournament_created", "entry_added", "entry_added", "round_paired", "table_scored"]


@pytest.fixture(scope="module")
def stream_settings() -> Settings:
    return make_settings(services.fresh_database("tstream_"))


@pytest.fixture(scope="module")
def stream_app(stream_settings: Settings) -> Litestar:
    return create_app(stream_settings)


@pytest.fixture(scope="module")
async def http(stream_app: Litestar) -> AsyncIterator[httpx.AsyncClient]:
    async with serving(stream_app) as url, httpx.AsyncClient(base_url=url, timeout=30) as client:
        yield client


async def open_swiss(http: httpx.AsyncClient, operator: str) -> dict[str, Any]:
    """A Reserve Bridge Swiss event of one round, not entered yet."""
    body = {"game": "reserve-bridge", "name": "Stream night", "format": "swiss", "rounds": 1}
    return ok(await http.post("/tournaments", json=body, headers=bearer(operator)), 201)  # type: ignore[no-any-return]


async def enter_two_and_pair(http: httpx.AsyncClient, event: dict[str, Any]) -> None:
    """Two computer entries, then the round: one table the computers play out."""
    director = bearer(event["director_token"])
    path = f"/tournaments/{event['id']}"
    for n in range(2):
        body = {"name": f"Bot {n}", "computer": True}
        ok(await http.post(f"{path}/entries", json=body, headers=director), 201)
    ok(await http.post(f"{path}/rounds", headers=director), 201)


async def read(
    http: httpx.AsyncClient,
    url: str,
    headers: dict[str, str] | None = None,
    *,
    upon: Callable[[list[Message]], Awaitable[bool]] | None = None,
) -> list[Message]:
    """The stream's event messages until it ends, or until ``upon`` (called after each
    message) says to hang up."""
    found: list[Message] = []
    async with http.stream("GET", url, headers=headers or {}) as response:
        assert response.status_code == 200, await response.aread()
        assert response.headers["content-type"].startswith("text/event-stream")
        async for message in messages(response):
            if "id" not in message:
                continue  # a keep-alive
            found.append(message)
            if upon is not None and await upon(found):
                break
    return found


def check_messages(found: list[Message], first: int) -> None:
    """Versions ``first``, ``first + 1``, … each once; ``event`` and ``data`` agree."""
    assert [int(m["id"]) for m in found] == list(range(first, first + len(found)))
    for m in found:
        assert m["data"]["version"] == int(m["id"])
        assert m["data"]["event"]["type"] == m["event"]


async def published(redis_url: str, key: str, count: int) -> list[tuple[str, dict[str, str]]]:
    """The relay's entries under ``key`` once there are ``count``."""
    async with Redis.from_url(redis_url, decode_responses=True) as redis:
        for _ in range(100):
            entries: list[Any] = await redis.xrange(key)
            if len(entries) >= count:
                return entries
            await asyncio.sleep(0.1)
    raise AssertionError(f"{len(entries)} of {count} entries published under {key}")


async def test_a_swiss_event_streams_live_and_resumes_without_gap_or_repeat(
    http: httpx.AsyncClient, stream_settings: Settings
) -> None:
    event = await open_swiss(http, OPERATOR_TOKEN)
    url = f"/tournaments/{event['id']}/stream"

    async def play_then_hang_up(found: list[Message]) -> bool:
        if len(found) == 1:  # caught up: the rest arrives live
            await enter_two_and_pair(http, event)
        return found[-1]["event"] == "round_paired"

    first = await asyncio.wait_for(read(http, url, upon=play_then_hang_up), PATIENCE)
    check_messages(first, 1)
    resumed = await asyncio.wait_for(
        read(http, url, {"Last-Event-ID": first[-1]["id"]}), PATIENCE
    )  # ends by itself after tournament_finished
    check_messages(resumed, len(first) + 1)
    whole = first + resumed
    assert [m["event"] for m in whole] == [*PLAYED, "tournament_finished"]
    paired, scored = whole[3]["data"]["event"], whole[4]["data"]["event"]
    assert scored["round"] == 1 and scored["table"] == paired["tables"][0]["table"]

    # A finished tournament's stream: the rest after ``after``, or nothing, then the end.
    tail = await asyncio.wait_for(read(http, f"{url}?after=3"), 10)
    assert tail == whole[3:]
    assert await asyncio.wait_for(read(http, url, {"Last-Event-ID": str(len(whole))}), 10) == []

    # The relay published the same records, one entry per version, as the AsyncAPI says.
    key = tournament_stream(stream_settings.redis_prefix, event["id"])
    entries = await published(stream_settings.redis_url or "", key, len(whole))
    assert [entry_id for entry_id, _ in entries] == [f"{v}-0" for v in range(1, len(whole) + 1)]
    root = {"components": document()["components"]}
    entry = jsonschema.Draft202012Validator(
        {**root, "$ref": "#/components/schemas/TournamentRedisEntry"}
    )
    record = jsonschema.Draft202012Validator(
        {**root, "$ref": "#/components/schemas/TournamentEventRecord"}
    )
    for (_, fields), message in zip(entries, whole, strict=True):
        entry.validate(fields)
        assert fields["tournament"] == event["id"] and fields["type"] == message["event"]
        record.validate(json.loads(fields["data"]))
        assert json.loads(fields["data"]) == message["data"]
    async with Redis.from_url(stream_settings.redis_url or "") as redis:
        assert 0 < await redis.ttl(key) <= STREAM_IDLE_SECONDS, "kept a day, not for good"


async def test_the_stream_of_an_unknown_tournament_is_not_found(http: httpx.AsyncClient) -> None:
    response = await http.get("/tournaments/00000000-0000-4000-8000-000000000000/stream")
    assert response.status_code == 404
    assert response.json()["code"] == "tournament-not-found"


async def test_a_tournament_stream_asked_to_resume_past_its_version_is_not_found(
    http: httpx.AsyncClient, stream_settings: Settings
) -> None:
    event = await open_swiss(http, stream_settings.operator_token)
    url = f"/tournaments/{event['id']}/stream"
    # It is at version 1; the short timeout ends the stream at once were it opened.
    response = await http.get(url, headers={"Last-Event-ID": "2"}, params={"timeout": 1})
    assert response.status_code == 404, response.text
    assert response.json()["code"] == "version-not-found"


async def test_a_stream_from_one_process_follows_commands_sent_to_another() -> None:
    with two_servers("tstream") as (bases, operator):
        async with (
            httpx.AsyncClient(base_url=bases[0], timeout=30) as reader,
            httpx.AsyncClient(base_url=bases[1], timeout=30) as writer,
        ):
            event = await open_swiss(writer, operator)

            async def play_elsewhere(found: list[Message]) -> bool:
                if len(found) == 1:
                    await enter_two_and_pair(writer, event)
                return False

            url = f"/tournaments/{event['id']}/stream"
            found = await asyncio.wait_for(read(reader, url, upon=play_elsewhere), PATIENCE)
    check_messages(found, 1)
    assert [m["event"] for m in found] == [*PLAYED, "tournament_finished"]


async def test_a_duplicate_rounds_results_wait_for_the_round_but_not_for_its_director(
    http: httpx.AsyncClient,
) -> None:
    """Two tables play the same deals; the computers' table ends first. Until Ann's ends
    too, nobody but the director learns how the computers scored those deals."""
    body = {"game": "reserve-bridge", "name": "Pairs", "format": "duplicate", "rounds": 1}
    event = ok(await http.post("/tournaments", json=body, headers=bearer(OPERATOR_TOKEN)), 201)
    director, path = bearer(event["director_token"]), f"/tournaments/{event['id']}"
    ann = ok(await http.post(f"{path}/entries", json={"name": "Ann"}, headers=director), 201)
    for n in range(3):
        bot = {"name": f"Bot {n}", "computer": True}
        ok(await http.post(f"{path}/entries", json=bot, headers=director), 201)
    ok(await http.post(f"{path}/rounds", headers=director), 201)

    async def scored(found: list[Message]) -> bool:
        return found[-1]["event"] == "table_scored"

    seen = await asyncio.wait_for(read(http, f"{path}/stream", director, upon=scored), PATIENCE)
    public = await read(http, f"{path}/stream?timeout=2")
    assert [m["event"] for m in public] == [m["event"] for m in seen[:-1]]
    page = ok(await http.get(f"{path}/standings"))
    assert all(s["wins"] == s["losses"] == s["matchpoints"] == 0 for s in page["entries"])
    assert not page["standings"].get("tables") and not page["standings"].get("players")

    me = ok(await http.get(f"{path}/me", headers=bearer(ann["token"])))
    resign = {"type": "resign"}
    ok(await http.post(f"/tables/{me['table']}/actions", json=resign, headers=bearer(me["token"])))
    rest = await asyncio.wait_for(
        read(http, f"{path}/stream", {"Last-Event-ID": public[-1]["id"]}), PATIENCE
    )
    assert [m["event"] for m in rest] == ["table_scored", "table_scored", "tournament_finished"]
    check_messages(public + rest, 1)
