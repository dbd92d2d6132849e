"""The relay to Redis Streams and its faults, against real Postgres and Redis (DESIGN 7)."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import AsyncIterator
from typing import Any, cast

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient
from redis.asyncio import Redis
from redis.exceptions import RedisError

from domain import table as tables
from service.http.app import create_app
from service.read.watch import TableWatcher
from service.settings import Settings
from service.workers import relay as relays
from service.workers.relay import CHECKPOINT, PER_CALL, Relay
from service.workers.streams import (
    STREAM_IDLE_SECONDS,
    global_stream,
    table_stream,
    version_of,
)
from service.write.handler import TableService
from service.write.store import EventStore, Notifier, new_table_id
from tests.api.test_asyncapi import entry_validator
from tests.api.test_forty_five_api import operator_events
from tests.conftest import make_settings
from tests.support import services
from tests.support.api import OPERATOR, new_table, ok, random_action, seat_all
from tests.support.invariants import assert_only_known, cards_in
from tests.support.knowledge import Knowledge
from tests.support.redis_server import RedisServer


@pytest.fixture(scope="module")
def relay_settings(redis_server: RedisServer) -> Settings:
    settings = make_settings(services.fresh_database("relay_"))
    return msgspec.structs.replace(settings, redis_url=redis_server.url)


@pytest.fixture(scope="module")
async def relay_client(relay_settings: Settings) -> AsyncIterator[AsyncTestClient[Litestar]]:
    async with AsyncTestClient(create_app(relay_settings)) as client:
        yield client


@pytest.fixture
async def redis(redis_server: RedisServer) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_server.url)
    yield client
    await client.aclose()


async def play(client: Any, table_id: str, tokens: list[str], steps: int, seed: int) -> None:
    """``steps`` random legal commands (fewer if the game ends)."""
    rng = random.Random(seed)
    view = ok(await client.get(f"/tables/{table_id}"))
    for _ in range(steps):
        if view["status"] == "finished":
            return
        seat = view["to_act"][0]
        view = (await random_action(client, table_id, tokens[seat], rng))["table"]


async def versions_of(client: Any, table_id: str) -> int:
    return int(ok(await client.get(f"/tables/{table_id}", headers=OPERATOR))["version"])


async def wait_until(check: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def table_stream_versions(redis: Redis, prefix: str, table_id: str) -> list[int]:
    entries = await redis.xrange(table_stream(prefix, table_id))
    return [version_of(entry) for entry, _ in entries]


async def test_concurrent_writers_reach_the_global_stream_without_gaps_or_reordering(
    relay_client: Any, relay_settings: Settings, redis: Redis
) -> None:
    tables = []
    for _ in range(10):
        created = await new_table(relay_client)
        tables.append((created["id"], await seat_all(relay_client, created["id"], 4)))
    await asyncio.gather(
        *(play(relay_client, t, tokens, 40, seed) for seed, (t, tokens) in enumerate(tables))
    )
    expected = {t: await versions_of(relay_client, t) for t, _ in tables}
    seen: dict[str, list[int]] = defaultdict(list)
    last_id = "0-0"

    async def consumed_everything() -> bool:
        nonlocal last_id
        found = await redis.xread({global_stream(relay_settings.redis_prefix): last_id}, count=500)
        for _, entries in found:
            for entry_id, fields in entries:
                last_id = entry_id
                seen[fields[b"table"].decode()].append(int(fields[b"version"]))
        return all(len(set(seen[t])) >= v for t, v in expected.items())

    await wait_until(consumed_everything)
    for table_id, count in expected.items():
        distinct = list(dict.fromkeys(seen[table_id]))  # duplicates allowed, in first order
        assert distinct == list(range(1, count + 1)), f"gap or reordering in {table_id}"
        per_table = await table_stream_versions(redis, relay_settings.redis_prefix, table_id)
        assert per_table == list(range(1, count + 1))


async def test_nothing_hidden_is_ever_published_and_entries_match_the_asyncapi(
    relay_client: Any, relay_settings: Settings, redis: Redis
) -> None:
    """Every card in every published entry was public at the version it was published."""
    created = await new_table(relay_client)
    tokens = await seat_all(relay_client, created["id"], 4)
    await play(relay_client, created["id"], tokens, 400, seed=99)
    count = await versions_of(relay_client, created["id"])
    prefix = relay_settings.redis_prefix

    async def published() -> bool:
        return len(await table_stream_versions(redis, prefix, created["id"])) == count

    await wait_until(published)
    knowledge = Knowledge(["spectator"])
    known_at = {}
    for version, event in enumerate(await operator_events(relay_client, created["id"]), 1):
        public_now = knowledge.learn(event)
        known_at[version] = knowledge.known["spectator"] + public_now
    everything = await redis.xrange(global_stream(prefix))
    everything += await redis.xrange(table_stream(prefix, created["id"]))
    entry_schema, record_schema = entry_validator()
    checked = 0
    for _, fields in everything:
        if fields[b"table"].decode() != created["id"]:
            continue
        entry_schema.validate({k.decode(): v.decode() for k, v in fields.items()})
        record = msgspec.json.decode(fields[b"data"])
        record_schema.validate(record)
        assert_only_known(cards_in(record), known_at[record["version"]], f"published {record}")
        if record["event"]["type"] == "seed_revealed":
            assert record["event"]["seed"] is None
        checked += 1
    assert checked >= 2 * count


async def test_commands_succeed_with_redis_down_and_the_relay_catches_up(
    relay_client: Any, relay_settings: Settings, redis_server: RedisServer, redis: Redis
) -> None:
    created = await new_table(relay_client)
    tokens = await seat_all(relay_client, created["id"], 4)
    redis_server.stop()
    try:
        await play(relay_client, created["id"], tokens, 15, seed=3)
    finally:
        redis_server.start()  # an empty Redis: the relay republishes from its checkpoint
    count = await versions_of(relay_client, created["id"])
    assert count > 15
    prefix = relay_settings.redis_prefix

    async def caught_up() -> bool:
        versions = await table_stream_versions(redis, prefix, created["id"])
        return bool(versions) and versions[-1] == count

    await wait_until(caught_up)
    versions = await table_stream_versions(redis, prefix, created["id"])
    assert versions == list(range(versions[0], count + 1)), "a gap after Redis came back"


async def test_only_one_relay_leads_and_another_takes_over(redis_server: RedisServer) -> None:
    """Leader election through a Postgres advisory lock (its own database: no app relay)."""
    from psycopg_pool import AsyncConnectionPool

    database_url = services.fresh_database("leader_")
    async with AsyncConnectionPool(database_url, kwargs={"autocommit": True}) as pool:
        client = Redis.from_url(redis_server.url)
        relays = [Relay(EventStore(pool), client, "leader", database_url) for _ in range(3)]
        stops = [asyncio.Event() for _ in relays]
        tasks = [asyncio.create_task(r.run(s)) for r, s in zip(relays, stops, strict=True)]

        def leaders() -> list[int]:
            return [i for i, r in enumerate(relays) if r.leading.is_set()]

        async def one_leads() -> bool:
            return len(leaders()) == 1

        await wait_until(one_leads, timeout=10)
        await asyncio.sleep(0.5)
        assert len(leaders()) == 1
        first = leaders()[0]
        stops[first].set()
        await tasks[first]
        await wait_until(one_leads, timeout=10)  # a standby takes over
        assert leaders()[0] != first
        for stop in stops:
            stop.set()
        await asyncio.gather(*tasks)
        await client.aclose()


async def test_a_killed_relay_republishes_from_its_checkpoint_without_gaps(
    redis_server: RedisServer,
) -> None:
    """SIGKILL a standalone relay mid-backlog: after a restart every version is there."""
    settings = msgspec.structs.replace(
        make_settings(services.fresh_database("kill_")), redis_url=redis_server.url, relay=False
    )
    async with AsyncTestClient(create_app(settings)) as client:
        tables = []
        for _ in range(4):
            created = await new_table(client)
            tables.append((created["id"], await seat_all(client, created["id"], 4)))
        await asyncio.gather(*(play(client, t, tok, 300, i) for i, (t, tok) in enumerate(tables)))
        expected = {t: await versions_of(client, t) for t, _ in tables}
    total = sum(expected.values())
    env = {
        **os.environ,
        "CARDROOM_DATABASE_URL": settings.database_url or "",
        "CARDROOM_REDIS_URL": redis_server.url,
        "CARDROOM_REDIS_PREFIX": settings.redis_prefix,
        "CARDROOM_OPERATOR_TOKEN": "x",
    }
    redis = Redis.from_url(redis_server.url)
    stream = global_stream(settings.redis_prefix)
    relay = subprocess.Popen([sys.executable, "-m", "service.tools.cli", "relay"], env=env)
    try:
        while await redis.xlen(stream) < total // 4:  # part of the backlog is out
            assert relay.poll() is None
            await asyncio.sleep(0.005)
        relay.send_signal(signal.SIGKILL)
        relay.wait()
        assert await redis.xlen(stream) < total, "killed too late to test a partial relay"
        relay = subprocess.Popen([sys.executable, "-m", "service.tools.cli", "relay"], env=env)

        async def complete() -> bool:
            for table_id, count in expected.items():
                versions = await table_stream_versions(redis, settings.redis_prefix, table_id)
                if len(versions) < count:
                    return False
            return True

        await wait_until(complete, timeout=60)
    finally:
        relay.terminate()
        relay.wait()
    for table_id, count in expected.items():
        assert await table_stream_versions(redis, settings.redis_prefix, table_id) == list(
            range(1, count + 1)
        )
    everything = Counter(
        (f[b"table"].decode(), int(f[b"version"])) for _, f in await redis.xrange(stream)
    )
    assert set(everything) == {(t, v) for t, c in expected.items() for v in range(1, c + 1)}
    await redis.aclose()


async def test_a_busy_relay_saves_its_checkpoint_at_a_pace_and_reads_tournaments_when_told(
    redis_server: RedisServer,
) -> None:
    """While commits stream in, the relay's steps neither save the checkpoint nor look for
    tournament events each time (a round trip each); once idle, the saved checkpoint is
    the last event published. Its own database: no app relay beside this one."""
    from psycopg_pool import AsyncConnectionPool

    database_url = services.fresh_database("pace_")
    async with AsyncConnectionPool(database_url, kwargs={"autocommit": True}) as pool:
        notifier = Notifier(pool)
        notifier.start()
        watcher = TableWatcher(database_url)
        await watcher.start()
        client = Redis.from_url(redis_server.url)
        service = TableService(EventStore(pool, notifier))
        relay = Relay(service.store, client, "pace", database_url, watcher)
        calls: Counter[str] = Counter()
        for owner, name in ((relay.store, "save_checkpoint"), (relay.tournaments, "read_all")):
            counted = getattr(owner, name)

            async def counting(
                *args: Any, _name: str = name, _call: Any = counted, **kw: Any
            ) -> Any:
                calls[_name] += 1
                return await _call(*args, **kw)

            setattr(owner, name, counting)

        async def leading() -> bool:
            return relay.leading.is_set()

        async def published() -> bool:
            return relay.published >= len(everything)

        stop = asyncio.Event()
        running = asyncio.create_task(relay.run(stop))
        try:
            await wait_until(leading, timeout=10)
            await asyncio.sleep(0.2)
            before = calls.copy()
            for _ in range(30):  # thirty commits, one after another
                created = tables.create(new_table_id(), "forty-five", 4, {})
                await service.create(created, {}, "operator", players=["A", "B", "C", "D"])
            everything = await service.store.read_all((0, 0), limit=10_000)
            await wait_until(published, timeout=10)
            busy = calls - before
            assert busy["read_all"] <= 2, busy  # not one a step
            assert busy["save_checkpoint"] <= 4, busy
            last = everything[-1]

            async def saved_last() -> bool:
                return await service.store.checkpoint(CHECKPOINT) == (last[0], last[1].position)

            await wait_until(saved_last, timeout=5)
        finally:
            stop.set()
            await running
            await watcher.stop()
            await notifier.stop()
            await client.aclose()


@pytest.fixture
async def stored_batch(redis_server: RedisServer) -> AsyncIterator[tuple[Relay, list[Any]]]:
    """Three new tables' events as the store returns them, and a relay that has not run:
    each test publishes them itself (its own database and prefix: no app relay)."""
    from psycopg_pool import AsyncConnectionPool

    async with AsyncConnectionPool(
        services.fresh_database("publish_"), kwargs={"autocommit": True}
    ) as pool:
        service = TableService(EventStore(pool))
        for _ in range(3):
            created = tables.create(new_table_id(), "forty-five", 4, {})
            await service.create(created, {}, "operator", players=["A", "B", "C", "D"])
        batch = [stored for _, stored in await service.store.read_all((0, 0), limit=1000)]
        client = Redis.from_url(redis_server.url)
        prefix = f"publish-{new_table_id()}"
        yield Relay(service.store, client, prefix, ""), batch
        await client.delete(
            global_stream(prefix), *(table_stream(prefix, s.table_id) for s in batch)
        )
        await client.aclose()


async def test_a_published_batch_reaches_each_table_stream_and_the_global_one_in_order(
    stored_batch: tuple[Relay, list[Any]],
) -> None:
    """Every event once on its table's stream under ``{version}-0`` and once on the global
    stream in store order, each entry's fields as the AsyncAPI document names them, the
    dealt hands hidden from everybody."""
    relay, batch = stored_batch
    before = await script_calls(relay)
    await relay.publish(batch)
    assert await script_calls(relay) == before + 1, "one script call for the batch"
    redis = relay.redis
    on_global = await redis.xrange(global_stream(relay.prefix))
    assert [(f[b"table"].decode(), int(f[b"version"])) for _, f in on_global] == [
        (s.table_id, s.version) for s in batch
    ]
    for stored in batch:
        entries = await redis.xrange(
            table_stream(relay.prefix, stored.table_id),
            f"{stored.version}-0",
            f"{stored.version}-0",
        )
        assert len(entries) == 1
        fields = entries[0][1]
        assert list(fields) == [b"table", b"version", b"position", b"type", b"data", b"whole"]
        assert fields[b"position"] == str(stored.position).encode()
        record = msgspec.json.decode(fields[b"data"])
        assert record["version"] == stored.version
        assert record["event"]["type"] == fields[b"type"].decode()
        # ``whole``: the record is the event as stored, nothing hidden from anybody.
        unchanged = record["event"] == msgspec.json.decode(stored.data)
        assert fields[b"whole"] == (b"1" if unchanged else b"0")
        if fields[b"type"] == b"cards_dealt":
            assert record["event"]["hands"] == [None] * 4
    assert {f[b"type"] for _, f in on_global} >= {b"table_created", b"cards_dealt"}


@pytest.mark.parametrize("way", ["script", "pipeline"])
async def test_a_table_stream_is_kept_a_day_after_its_last_entry_not_for_good(
    stored_batch: tuple[Relay, list[Any]], way: str
) -> None:
    """Each table's stream expires a day after the relay last wrote to it: trimming bounds
    its length, and the expiry how many streams Redis holds (one a table ever played,
    before). A republished entry gives it its day again. The pipeline is a cluster's way."""
    relay, batch = stored_batch
    if way == "pipeline":
        relay._publish_script = None
    await relay.publish(batch)
    for table_id in {s.table_id for s in batch}:
        stream = table_stream(relay.prefix, table_id)
        assert 0 < await relay.redis.ttl(stream) <= STREAM_IDLE_SECONDS
        await relay.redis.expire(stream, 5)
    await relay.publish(batch[-1:])
    assert await relay.redis.ttl(table_stream(relay.prefix, batch[-1].table_id)) > 5
    assert await relay.redis.ttl(global_stream(relay.prefix)) == -1, "trimmed, never expired"


async def test_the_relay_keeps_the_games_of_at_most_games_kept_tables(
    stored_batch: tuple[Relay, list[Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The leader looks each table's game up once, but does not keep every table it ever
    relayed: past the bound it forgets them and looks the batch's tables up again."""
    relay, batch = stored_batch
    monkeypatch.setattr(relays, "GAMES_KEPT", 2)
    for stored in batch:  # three tables, one at a time
        await relay.publish([stored])
        assert len(relay.games) <= 2
        assert relay.games[stored.table_id] == "forty-five"
    assert await relay.redis.xlen(global_stream(relay.prefix)) == len(batch), "none skipped"


async def script_calls(relay: Relay) -> int:
    """How many script calls (EVALSHA) the relay's Redis has run without an error (the
    first, which finds the script not yet loaded, fails and is sent again)."""
    stats = (await relay.redis.info("commandstats")).get("cmdstat_evalsha", {})
    return int(stats.get("calls", 0)) - int(stats.get("failed_calls", 0))


async def test_a_long_batch_goes_out_in_calls_of_at_most_per_call_events_in_order(
    stored_batch: tuple[Relay, list[Any]],
) -> None:
    """Redis runs a script whole, so a backlog's batch is cut into calls; the global
    stream still holds every event in the batch's order."""
    relay, batch = stored_batch
    long = batch * (PER_CALL // len(batch) + 2)  # repeats: refused by the table streams
    before = await script_calls(relay)
    await relay.publish(long)
    assert await script_calls(relay) == before + -(-len(long) // PER_CALL)
    on_global = await relay.redis.xrange(global_stream(relay.prefix))
    assert [(f[b"table"].decode(), int(f[b"version"])) for _, f in on_global] == [
        (s.table_id, s.version) for s in long
    ]


async def test_large_versions_and_positions_are_written_exactly(
    stored_batch: tuple[Relay, list[Any]],
) -> None:
    """Lua's numbers are doubles: the script is given text, never a number to format."""
    relay, batch = stored_batch
    big = msgspec.structs.replace(batch[0], version=10**15 + 1, position=2**60 + 1)
    await relay.publish([big])
    [(entry, fields)] = await relay.redis.xrange(table_stream(relay.prefix, big.table_id))
    assert entry == b"1000000000000001-0"
    assert fields[b"version"] == b"1000000000000001"
    assert fields[b"position"] == str(2**60 + 1).encode()


async def test_a_republished_batch_leaves_the_table_streams_as_they_were(
    stored_batch: tuple[Relay, list[Any]],
) -> None:
    """A relay that restarts from an older checkpoint publishes a batch again: each table
    stream refuses the repeats by id, quietly; the global stream's readers drop them."""
    relay, batch = stored_batch
    await relay.publish(batch)
    await relay.publish(batch[len(batch) // 2 :])
    for table_id in {s.table_id for s in batch}:
        versions = await table_stream_versions(cast(Redis, relay.redis), relay.prefix, table_id)
        assert versions == [s.version for s in batch if s.table_id == table_id]
    assert await relay.redis.xlen(global_stream(relay.prefix)) == len(batch) + len(
        batch[len(batch) // 2 :]
    )


async def test_a_redis_that_lost_the_publish_script_is_given_it_again(
    stored_batch: tuple[Relay, list[Any]],
) -> None:
    relay, batch = stored_batch
    await relay.publish(batch[:1])
    await relay.redis.script_flush()
    await relay.publish(batch[1:])
    assert await relay.redis.xlen(global_stream(relay.prefix)) == len(batch)


async def test_an_entry_refused_for_another_reason_fails_the_publish_and_skips_nothing(
    stored_batch: tuple[Relay, list[Any]],
) -> None:
    """A table stream's key holding something else (WRONGTYPE) fails the call, so the relay
    keeps its checkpoint and retries; once the key is fixed, the batch goes out whole."""
    relay, batch = stored_batch
    broken = table_stream(relay.prefix, batch[-1].table_id)
    await relay.redis.set(broken, "not a stream")
    with pytest.raises(RedisError, match="WRONGTYPE"):
        await relay.publish(batch)
    await relay.redis.delete(broken)
    await relay.publish(batch)
    versions = await table_stream_versions(
        cast(Redis, relay.redis), relay.prefix, batch[-1].table_id
    )
    assert versions == [s.version for s in batch if s.table_id == batch[-1].table_id]
