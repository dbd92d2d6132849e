"""Server-Sent Events over a real socket: resume, private cards, keep-alive, Redis down,
and what the fan-out hub delivers: repeats, gaps, forgeries and streams that fall behind."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator
from typing import Any

import httpx
import msgspec
import pytest
from litestar import Litestar
from prometheus_client import REGISTRY
from redis.asyncio import Redis

from domain.cards import standard_pack
from service.http.app import create_app
from service.settings import Settings
from service.workers.fanout import Hub
from service.workers.streams import global_stream
from tests.conftest import make_settings
from tests.support import services
from tests.support.api import (
    OPERATOR,
    all_events,
    bearer,
    new_table,
    ok,
    random_action,
    seat_all,
)
from tests.support.live import serving
from tests.support.redis_server import RedisServer
from tests.support.sse import Message, messages


@pytest.fixture(scope="module")
def stream_settings(redis_server: RedisServer) -> Settings:
    settings = make_settings(services.fresh_database("sse_"))
    return msgspec.structs.replace(settings, redis_url=redis_server.url)


@pytest.fixture(scope="module")
def stream_app(stream_settings: Settings) -> Litestar:
    return create_app(stream_settings)


@pytest.fixture(scope="module")
async def base_url(stream_app: Litestar) -> AsyncIterator[str]:
    async with serving(stream_app) as url:
        yield url


@pytest.fixture
async def http(base_url: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as client:
        yield client


async def seated_table(http: httpx.AsyncClient) -> tuple[dict[str, Any], list[str], int]:
    """A new table with all four seats taken: the table, the seats' tokens, its version."""
    table = await new_table(http)
    tokens = await seat_all(http, table["id"], 4)
    version = ok(await http.get(f"/tables/{table['id']}"))["version"]
    return table, tokens, version


async def step(
    http: httpx.AsyncClient, table_id: str, tokens: list[str], rng: random.Random
) -> None:
    view = ok(await http.get(f"/tables/{table_id}"))
    await random_action(http, table_id, tokens[view["to_act"][0]], rng)


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


async def follow_until(
    http: httpx.AsyncClient,
    url: str,
    after: int,
    final: asyncio.Task[int],
    headers: dict[str, str] | None = None,
) -> list[Message]:
    """The stream's messages after version ``after`` up to the version ``final`` returns."""
    found: list[Message] = []
    newest = after

    async def read() -> None:
        nonlocal newest
        resume = {**(headers or {}), "Last-Event-ID": str(after)}
        async with http.stream("GET", url, headers=resume) as response:
            assert response.status_code == 200
            async for message in messages(response):
                found.append(message)
                newest = int(message.get("id", newest))

    reader = asyncio.create_task(read())
    try:
        version = await final
        while newest < version:
            if reader.done():
                reader.result()
                raise AssertionError("the stream ended early")
            await asyncio.sleep(0.02)
    finally:
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader
    return found


async def test_stream_catches_up_then_follows_live_and_resumes(http: httpx.AsyncClient) -> None:
    rng = random.Random(5)
    table, tokens, start = await seated_table(http)
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
    table, tokens, version = await seated_table(http)
    url = f"/tables/{table['id']}/stream"
    mine = await asyncio.wait_for(collect(http, url, version, bearer(tokens[2])), timeout=20)
    public = await asyncio.wait_for(collect(http, url, version), timeout=20)
    dealt_to_seat = next(m for m in mine if m.get("event") == "cards_dealt")["data"]["event"]
    dealt_public = next(m for m in public if m.get("event") == "cards_dealt")["data"]["event"]
    assert dealt_to_seat["hands"][2] and len(dealt_to_seat["hands"][2]) == 5
    assert [h for i, h in enumerate(dealt_to_seat["hands"]) if i != 2] == [None] * 3
    assert dealt_public["hands"] == [None] * 4 and dealt_public["rest"] is None


async def test_a_seat_stream_ends_when_its_token_is_revoked_and_shows_no_newcomer_cards(
    http: httpx.AsyncClient,
) -> None:
    table = await new_table(http)
    table_id = table["id"]
    url = f"/tables/{table_id}/stream?timeout=60"
    ann = ok(await http.post(f"/tables/{table_id}/seats/0", json={"name": "Ann"}), 201)["token"]
    found: list[Message] = []

    async def read() -> None:
        async with http.stream("GET", url, headers=bearer(ann)) as response:
            assert response.status_code == 200
            async for message in messages(response):
                found.append(message)

    reader = asyncio.create_task(read())
    while not any(m.get("event") == "seat_taken" for m in found):
        await asyncio.sleep(0.02)
    replace = f"/tables/{table_id}/seats/0/replace"
    eve = ok(await http.post(replace, json={"name": "Eve"}, headers=OPERATOR))["token"]
    assert (await http.get(f"/tables/{table_id}", headers=bearer(ann))).status_code == 401
    for seat in (1, 2, 3):  # the last seat taken deals: Eve's first hand
        ok(await http.post(f"/tables/{table_id}/seats/{seat}", json={"name": f"P{seat}"}), 201)
    eves_hand = ok(await http.get(f"/tables/{table_id}", headers=bearer(eve)))["hand"]
    assert len(eves_hand) == 5

    await asyncio.wait_for(reader, timeout=20)  # the stream ended on its own
    sent = [m["data"]["event"]["type"] for m in found if "data" in m]
    assert "cards_dealt" not in sent, "a card dealt to Eve reached Ann"


async def test_at_a_table_closed_to_spectators_a_revoked_seats_stream_gets_no_more_play(
    http: httpx.AsyncClient,
) -> None:
    """A table dealt the tournament's decks is for its seats alone while it plays. A seat
    replaced there, its stream still open, must not go on receiving the table's public
    events (a bid, a card played) the way a spectator would: nobody may spectate here."""
    deck = list(standard_pack())
    random.Random(4).shuffle(deck)
    body = {"game": "pitch", "name": "Duplicate night", "deals": [{"deck": deck}]}
    tournament = ok(await http.post("/tournaments", json=body, headers=OPERATOR), 201)["id"]
    players = {"players": ["Ann", "Bob", "Cy"]}
    opened = await http.post(f"/tournaments/{tournament}/tables", json=players, headers=OPERATOR)
    table_id = ok(opened, 201)["table"]["id"]
    tokens = [seat["token"] for seat in ok(opened, 201)["seats"]]
    assert (await http.get(f"/tables/{table_id}")).status_code == 401  # closed
    view = ok(await http.get(f"/tables/{table_id}", headers=OPERATOR))
    mover = view["to_act"][0]
    quiet = (mover + 1) % 3
    found: list[Message] = []

    async def read(headers: dict[str, str], into: list[Message]) -> None:
        resume = {**headers, "Last-Event-ID": str(view["version"])}
        async with http.stream("GET", f"/tables/{table_id}/stream", headers=resume) as answer:
            assert answer.status_code == 200
            async for message in messages(answer):
                into.append(message)

    # The operator's stream first: the hub is reading Redis before the seat's opens.
    watching = asyncio.create_task(read(OPERATOR, []))
    await asyncio.sleep(0.3)
    reader = asyncio.create_task(read(bearer(tokens[quiet]), found))
    await asyncio.sleep(0.3)  # the stream is open and following the hub
    replace = f"/tables/{table_id}/seats/{quiet}/replace"
    replaced = ok(await http.post(replace, json={"computer": True}, headers=OPERATOR))["version"]
    rng = random.Random(2)
    while (now := ok(await http.get(f"/tables/{table_id}", headers=OPERATOR)))["version"] < (
        replaced + 4
    ):  # bids and plays, the computer's among them: nothing a spectator may not see
        if now["to_act"] and now["to_act"][0] != quiet:
            await random_action(http, table_id, tokens[now["to_act"][0]], rng)
        await asyncio.sleep(0.05)
    await asyncio.wait_for(reader, timeout=20)  # the stream ended on its own
    watching.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await watching
    versions = [int(m["id"]) for m in found if "id" in m]
    assert all(v < replaced for v in versions), versions


async def test_seat_and_operator_streams_read_postgres_only_for_what_hides_cards(
    http: httpx.AsyncClient,
) -> None:
    """A bid or a card played hides nothing: the relay marks it whole and a seat's or the
    operator's stream takes it from the hub; a deal hides hands: those streams read it
    from Postgres, their own cards included. Either way each stream is exactly what
    `GET /events` gives its audience."""
    rng = random.Random(5)
    table, tokens, start = await seated_table(http)
    table_id = table["id"]
    audiences = {"seat": bearer(tokens[1]), "operator": OPERATOR}

    def reads_from_postgres() -> dict[str, float]:
        return {
            reason: REGISTRY.get_sample_value(
                "cardroom_live_postgres_reads_total", {"reason": reason}
            )
            or 0.0
            for reason in ("private", "lost", "quiet", "gap")
        }

    async def play_past_the_next_deal() -> int:
        await asyncio.sleep(0.3)  # both streams are following the hub
        deal = ok(await http.get(f"/tables/{table_id}"))["deal"]
        while ok(await http.get(f"/tables/{table_id}"))["deal"] == deal:
            await step(http, table_id, tokens, rng)
        return int(ok(await http.get(f"/tables/{table_id}"))["version"])

    before = reads_from_postgres()
    actor = asyncio.create_task(play_past_the_next_deal())
    url = f"/tables/{table_id}/stream"
    streamed = await asyncio.wait_for(
        asyncio.gather(
            *(follow_until(http, url, start, actor, headers) for headers in audiences.values())
        ),
        timeout=60,
    )
    after = reads_from_postgres()
    reads = {reason: after[reason] - before[reason] for reason in after}

    public = await all_events(http, table_id)
    everything = await all_events(http, table_id, OPERATOR)
    hiding = [s for s, e in zip(public, everything, strict=True) if s != e and s["version"] > start]
    assert hiding, "the next deal hides the hands from spectators"
    for (name, headers), got in zip(audiences.items(), streamed, strict=True):
        expected = [e for e in await all_events(http, table_id, headers) if e["version"] > start]
        assert [m["data"] for m in got if "id" in m] == expected, name
    # A seat's own cards reach its stream from Postgres only: each stream read it at least
    # once. At most one read per stream for each event that hides something, none for the
    # rest (fewer when a keep-alive's look at Postgres got there first).
    assert sum(reads.values()) >= len(audiences), reads
    assert reads["private"] <= 2 * len(hiding) < len(public) - start, reads


async def test_keep_alive_comments_flow_while_nothing_happens(
    http: httpx.AsyncClient, stream_app: Litestar, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = msgspec.structs.replace(stream_app.state.settings, keep_alive_seconds=0.2)
    monkeypatch.setattr(stream_app.state, "settings", settings)
    table = await new_table(http)
    comments = 0
    async with http.stream("GET", f"/tables/{table['id']}/stream") as response:
        assert response.headers["cardroom-keep-alive"] == "0.2"
        async for message in messages(response):
            if message.get("comment") == "keep-alive":
                comments += 1
                if comments == 2:
                    break
    assert comments == 2


async def test_a_stream_ends_at_once_after_a_resignation(
    http: httpx.AsyncClient, stream_app: Litestar, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table that ends other than by its last deal (resigned, forfeited, timed,
    expired) ended its streams only at the next keep-alive's look, up to a minute later,
    the place held meanwhile: only ``game_won`` and ``table_aborted`` were read as ends."""
    settings = msgspec.structs.replace(stream_app.state.settings, keep_alive_seconds=60)
    monkeypatch.setattr(stream_app.state, "settings", settings)
    table, tokens, version = await seated_table(http)
    seen: list[str] = []

    async def follow() -> None:
        headers = {"Last-Event-ID": str(version)}
        async with http.stream("GET", f"/tables/{table['id']}/stream", headers=headers) as answer:
            async for message in messages(answer):
                if "data" in message:
                    seen.append(message["data"]["event"]["type"])

    following = asyncio.create_task(follow())
    rng = random.Random(3)
    for moves in range(1, 4):  # until the stream follows the hub live
        await step(http, table["id"], tokens, rng)
        for _ in range(500):  # ten seconds at most: a stream that stalls fails, not hangs
            if len(seen) >= moves:
                break
            await asyncio.sleep(0.02)
        assert len(seen) >= moves, seen
    resigned = await http.post(
        f"/tables/{table['id']}/actions", json={"type": "resign"}, headers=bearer(tokens[0])
    )
    assert resigned.status_code == 200, resigned.text
    await asyncio.wait_for(following, 20)  # well inside the minute of a keep-alive
    assert "game_resigned" in seen, seen


async def test_with_redis_down_the_stream_falls_back_to_postgres(
    http: httpx.AsyncClient, redis_server: RedisServer
) -> None:
    rng = random.Random(11)
    table, tokens, start = await seated_table(http)

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


async def test_a_stream_asked_to_resume_past_the_tables_version_is_not_found(
    http: httpx.AsyncClient,
) -> None:
    """Another table's Last-Event-ID, say: following from there would skip every event up
    to it in silence. At the table's own version the stream opens (nothing to catch up)."""
    table, _, start = await seated_table(http)
    url = f"/tables/{table['id']}/stream"
    short = {"timeout": 1}  # were it opened, it would end at once
    for headers, params in (
        ({"Last-Event-ID": str(start + 1)}, short),
        ({}, {"after": 500, **short}),
    ):
        response = await http.get(url, headers=headers, params=params)
        assert response.status_code == 404, response.text
        assert response.json()["code"] == "version-not-found"
    async with http.stream("GET", url, headers={"Last-Event-ID": str(start)}) as response:
        assert response.status_code == 200


async def test_a_stream_follows_the_hub_and_leaves_it_when_closed(
    http: httpx.AsyncClient, stream_app: Litestar
) -> None:
    hub: Hub = stream_app.state.hub
    rng = random.Random(3)
    table, tokens, start = await seated_table(http)
    before, received = hub.subscriptions, hub.received

    async def act_later() -> None:
        await asyncio.sleep(0.3)
        assert hub.subscriptions == before + 1
        # The stream started the hub if it was idle (or back from a test that stopped
        # Redis): what follows comes through it.
        await asyncio.wait_for(hub.connected.wait(), timeout=10)
        for _ in range(3):
            await step(http, table["id"], tokens, rng)

    actor = asyncio.create_task(act_later())
    url = f"/tables/{table['id']}/stream"
    found = await asyncio.wait_for(
        collect(http, url, start + 3, {"Last-Event-ID": str(start)}), timeout=20
    )
    await actor
    assert [int(m["id"]) for m in found if "id" in m] == [start + 1, start + 2, start + 3]
    assert hub.received >= received + 3  # the entries came through the hub
    for _ in range(100):
        if hub.subscriptions == before:
            break
        await asyncio.sleep(0.05)
    assert hub.subscriptions == before  # the closed stream unsubscribed


async def test_repeated_forged_and_missing_entries_never_reach_a_stream(
    http: httpx.AsyncClient, stream_settings: Settings, redis_server: RedisServer
) -> None:
    """A repeat is dropped, a version past the next one is a gap filled from Postgres, an
    entry that is no event record is ignored: the stream is the table's events, once."""
    rng = random.Random(17)
    table, tokens, start = await seated_table(http)
    key = global_stream(stream_settings.redis_prefix)
    redis = Redis.from_url(redis_server.url)

    async def forge(version: int, data: bytes) -> None:
        fields: dict[Any, Any] = {"table": table["id"], "version": version, "position": 0}
        await redis.xadd(key, {**fields, "type": "card_played", "data": data})

    async def meddle() -> int:
        await asyncio.sleep(0.3)
        await step(http, table["id"], tokens, rng)
        await asyncio.sleep(0.2)
        # The entry just published, again (a relay that restarted republishes a batch).
        newest: Any = await redis.xrevrange(key, count=1)
        ((_, repeat),) = newest
        await redis.xadd(key, repeat)
        version = ok(await http.get(f"/tables/{table['id']}"))["version"]
        await forge(version + 1, b'{"not": "a record"}')
        await forge(version + 1, b"\xff")
        await asyncio.sleep(0.2)
        await step(http, table["id"], tokens, rng)
        await forge(version + 40, b"{}")  # a gap: Postgres has nothing past the table
        await asyncio.sleep(0.2)
        await step(http, table["id"], tokens, rng)
        return int(ok(await http.get(f"/tables/{table['id']}"))["version"])

    try:
        actor = asyncio.create_task(meddle())
        url = f"/tables/{table['id']}/stream"
        streamed = await asyncio.wait_for(follow_until(http, url, start, actor), timeout=20)
    finally:
        await redis.aclose()
    expected = [e for e in await all_events(http, table["id"]) if e["version"] > start]
    assert [int(m["id"]) for m in streamed if "id" in m] == [e["version"] for e in expected]
    assert [m["data"] for m in streamed if "id" in m] == expected


async def test_a_stream_that_falls_behind_the_hub_catches_up_from_postgres(
    http: httpx.AsyncClient,
    stream_app: Litestar,
    stream_settings: Settings,
    redis_server: RedisServer,
) -> None:
    hub: Hub = stream_app.state.hub
    await asyncio.wait_for(hub.connected.wait(), timeout=10)
    overflows = REGISTRY.get_sample_value("cardroom_live_overflows_total") or 0.0
    rng = random.Random(23)
    table, tokens, start = await seated_table(http)
    key = global_stream(stream_settings.redis_prefix)
    redis = Redis.from_url(redis_server.url)
    limit, hub.limit = hub.limit, 1  # a stream holds one entry, then is marked lost
    try:

        async def act_later() -> int:
            await asyncio.sleep(0.3)
            for _ in range(6):
                await step(http, table["id"], tokens, rng)
                await asyncio.sleep(0.1)
                # A burst that the hub reads in one go, faster than any stream takes it.
                newest: Any = await redis.xrevrange(key, count=1)
                ((_, repeat),) = newest
                pipe = redis.pipeline(transaction=False)
                for _ in range(4):
                    pipe.xadd(key, repeat)
                await pipe.execute()
            return int(ok(await http.get(f"/tables/{table['id']}"))["version"])

        actor = asyncio.create_task(act_later())
        url = f"/tables/{table['id']}/stream"
        found = await asyncio.wait_for(follow_until(http, url, start, actor), timeout=20)
    finally:
        hub.limit = limit
        await redis.aclose()
    events = [e for e in await all_events(http, table["id"]) if e["version"] > start]
    assert [int(m["id"]) for m in found if "id" in m] == [e["version"] for e in events]
    assert (REGISTRY.get_sample_value("cardroom_live_overflows_total") or 0.0) > overflows


async def test_a_stream_survives_redis_restarting_empty(
    http: httpx.AsyncClient, stream_app: Litestar, redis_server: RedisServer
) -> None:
    hub: Hub = stream_app.state.hub
    rng = random.Random(29)
    table, tokens, start = await seated_table(http)

    async def act_across_a_restart() -> int:
        await asyncio.sleep(0.3)
        await step(http, table["id"], tokens, rng)
        redis_server.stop()
        try:
            await step(http, table["id"], tokens, rng)
        finally:
            redis_server.start()
        await asyncio.wait_for(hub.connected.wait(), timeout=10)
        for _ in range(2):
            await step(http, table["id"], tokens, rng)
        return int(ok(await http.get(f"/tables/{table['id']}"))["version"])

    actor = asyncio.create_task(act_across_a_restart())
    url = f"/tables/{table['id']}/stream"
    found = await asyncio.wait_for(follow_until(http, url, start, actor), timeout=30)
    events = [e for e in await all_events(http, table["id"]) if e["version"] > start]
    assert [int(m["id"]) for m in found if "id" in m] == [e["version"] for e in events]
