"""The event store against real Postgres (DESIGN 4)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import psycopg
import pytest
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest
from psycopg_pool import AsyncConnectionPool

from projections.table_state import TableRow
from service.audit.chain import GENESIS, canonical_bytes, chain
from service.read.catalog import PROJECTIONS
from service.tools.bench import database as bench_database
from service.workers import lag, relay
from service.write.store import (
    CHANNEL,
    READ_ALL,
    Commit,
    EventStore,
    IdempotencyRecord,
    NewEvent,
    Notifier,
    VersionConflict,
    new_table_id,
)
from tests.support import services


@pytest.fixture(scope="module")
def database_url() -> str:
    """Its own database: these tests write raw rows no relay or projection could read."""
    return services.fresh_database("store_")


@pytest.fixture(scope="module")
async def pool(database_url: str) -> AsyncIterator[AsyncConnectionPool[Any]]:
    async with services.connection_pool(database_url, max_size=12) as pool:
        yield pool


@pytest.fixture(scope="module")
def store(pool: AsyncConnectionPool[Any]) -> EventStore:
    return EventStore(pool)


def events(*names: str) -> list[NewEvent]:
    return [NewEvent({"type": name, "n": i}, "seat:0") for i, name in enumerate(names)]


def commit(
    table_id: str,
    expected: int,
    previous: bytes,
    new: list[NewEvent],
    deadline: datetime | None = None,
    **extra: Any,
) -> Commit:
    return Commit(
        table_id=table_id,
        expected_version=expected,
        previous_hash=previous,
        events=new,
        row=TableRow(
            game="forty-five",
            status="playing",
            tournament=None,
            players=[],
            state=b"state-%d" % (expected + len(new)),
            deadline=deadline,
        ),
        at=datetime.now(UTC),
        **extra,
    )


async def open_table(store: EventStore) -> str:
    table_id = new_table_id()
    await store.commit(commit(table_id, 0, GENESIS, events("table_created")))
    return table_id


async def open_table_to_commit(store: EventStore) -> tuple[str, bytes]:
    """A new table, and the hash of its last event: what its next commit chains from."""
    table_id = await open_table(store)
    snapshot = await store.load(table_id)
    assert snapshot is not None
    return table_id, snapshot.last_hash


async def assert_snapshot_at(store: EventStore, table_id: str, version: int) -> None:
    """The table's snapshot is at ``version``, with the state the commit to it wrote."""
    snapshot = await store.load(table_id)
    assert snapshot is not None and snapshot.version == version
    assert snapshot.state == b"state-%d" % version


async def count_rows(pool: AsyncConnectionPool[Any], table: str, table_id: str) -> int:
    async with pool.connection() as conn:
        cur = await conn.execute(f"SELECT count(*) FROM {table} WHERE table_id = %s", (table_id,))
        row = await cur.fetchone()
    assert row is not None
    return int(row[0])


async def test_appends_number_versions_from_one_without_gaps(store: EventStore) -> None:
    table_id, last_hash = await open_table_to_commit(store)
    await store.commit(commit(table_id, 1, last_hash, events("a", "b", "c")))
    stored = await store.read_stream(table_id)
    assert [e.version for e in stored] == [1, 2, 3, 4]
    await assert_snapshot_at(store, table_id, 4)


async def test_stale_append_writes_nothing(
    store: EventStore, pool: AsyncConnectionPool[Any]
) -> None:
    table_id, last_hash = await open_table_to_commit(store)
    await store.commit(commit(table_id, 1, last_hash, events("first")))
    stale = commit(
        table_id,
        1,
        last_hash,
        events("second", "third"),
        seeds=[(9, b"s" * 32)],
        idempotency=IdempotencyRecord("seat:0", "k1", b"h", 200, b"{}", '"3.s0"'),
    )
    with pytest.raises(VersionConflict):
        await store.commit(stale)
    assert [e.version for e in await store.read_stream(table_id)] == [1, 2]
    assert await count_rows(pool, "shuffle_secrets", table_id) == 0
    assert await count_rows(pool, "idempotency_keys", table_id) == 0
    await assert_snapshot_at(store, table_id, 2)


async def test_idempotency_record_commits_with_the_events(
    store: EventStore, pool: AsyncConnectionPool[Any]
) -> None:
    table_id, last_hash = await open_table_to_commit(store)
    record = IdempotencyRecord("seat:1", "key", b"digest", 200, b'{"ok":1}', '"2.s1"')
    await store.commit(commit(table_id, 1, last_hash, events("x"), idempotency=record))
    assert await store.idempotent_answer(table_id, "seat:1", "key") == record
    assert await count_rows(pool, "idempotency_keys", table_id) == 1


async def test_each_event_carries_a_sha256_chain_hash(store: EventStore) -> None:
    table_id, last_hash = await open_table_to_commit(store)
    await store.commit(commit(table_id, 1, last_hash, events("a", "b")))
    previous = GENESIS
    for stored in await store.read_stream(table_id):
        data = msgspec.json.decode(stored.data)
        command = msgspec.json.decode(stored.command) if stored.command else None
        event = NewEvent(data, stored.actor, command)
        previous = chain(
            previous, canonical_bytes(table_id, stored.version, stored.recorded_at, event)
        )
        assert stored.hash == previous.hex()
    final = await store.load(table_id)
    assert final is not None and final.last_hash == previous


async def test_events_are_append_only(store: EventStore, database_url: str) -> None:
    table_id = await open_table(store)
    with psycopg.connect(database_url, autocommit=True) as conn:
        for sql in (
            "UPDATE events SET actor = 'x' WHERE table_id = %s",
            "DELETE FROM events WHERE table_id = %s",
        ):
            with pytest.raises(psycopg.errors.RaiseException):
                conn.execute(sql, (table_id,))
    assert len(await store.read_stream(table_id)) == 1


async def test_concurrent_appends_to_one_stream_have_exactly_one_winner(
    store: EventStore,
) -> None:
    table_id, last_hash = await open_table_to_commit(store)
    attempts = [store.commit(commit(table_id, 1, last_hash, events(f"w{i}"))) for i in range(8)]
    results = await asyncio.gather(*attempts, return_exceptions=True)
    assert sum(isinstance(r, bytes) for r in results) == 1
    assert sum(isinstance(r, VersionConflict) for r in results) == 7
    assert [e.version for e in await store.read_stream(table_id)] == [1, 2]


# --- group commit ------------------------------------------------------------------------


async def _next_commits(store: EventStore, tables: list[str]) -> list[Commit]:
    """One append after the current version of each table."""
    loaded = [await store.load(table_id) for table_id in tables]
    return [
        commit(table_id, snapshot.version, snapshot.last_hash, events(f"e{snapshot.version}"))
        for table_id, snapshot in zip(tables, loaded, strict=True)
        if snapshot is not None
    ]


async def _chain_holds(store: EventStore, table_id: str) -> bool:
    stored = await store.read_stream(table_id)
    previous = GENESIS
    for event in stored:
        appended = NewEvent(msgspec.json.decode(event.data), event.actor)
        previous = chain(
            previous, canonical_bytes(table_id, event.version, event.recorded_at, appended)
        )
        if previous.hex() != event.hash:
            return False
    return [e.version for e in stored] == list(range(1, len(stored) + 1))


async def test_concurrent_commits_of_different_tables_travel_in_one_call(
    store: EventStore,
) -> None:
    tables = [await open_table(store) for _ in range(20)]
    calls, members = (
        _sample("cardroom_commit_batch_size_count"),
        _sample("cardroom_commit_batch_size_sum"),
    )
    commits = await _next_commits(store, tables)
    await asyncio.gather(*(store.commit(c) for c in commits))
    # All twenty queued before the first flush ran: one call carried them.
    assert _sample("cardroom_commit_batch_size_count") - calls == 1
    assert _sample("cardroom_commit_batch_size_sum") - members == 20
    for table_id in tables:
        assert await _chain_holds(store, table_id)
        snapshot = await store.load(table_id)
        assert snapshot is not None and snapshot.version == 2


async def test_a_stale_commit_fails_alone_in_its_batch(store: EventStore) -> None:
    tables = [await open_table(store) for _ in range(3)]
    fresh = await _next_commits(store, tables)
    await store.commit(fresh[0])  # the first table moves on: fresh[0] is now stale
    stale = commit(tables[0], 1, fresh[0].previous_hash, events("late"))
    results = await asyncio.gather(
        *(store.commit(c) for c in (fresh[1], stale, fresh[2])), return_exceptions=True
    )
    assert isinstance(results[1], VersionConflict)
    assert all(isinstance(r, bytes) for r in (results[0], results[2]))
    assert [e.version for e in await store.read_stream(tables[0])] == [1, 2]
    assert all([await _chain_holds(store, t) for t in tables])


async def test_a_commit_the_server_refuses_fails_alone(store: EventStore) -> None:
    tables = [await open_table(store) for _ in range(2)]
    good = await _next_commits(store, tables)
    # Not a commit Postgres can read (no such table id): the whole call fails, and each
    # member is sent again alone, so only this one sees the error.
    refused = store.group.apply("not-a-uuid", b'{"table": "not-a-uuid", "expected": 1}')
    results = await asyncio.gather(
        store.commit(good[0]), refused, store.commit(good[1]), return_exceptions=True
    )
    assert isinstance(results[1], psycopg.errors.InvalidTextRepresentation)
    assert isinstance(results[0], bytes) and isinstance(results[2], bytes)
    assert all([await _chain_holds(store, t) for t in tables])


async def test_a_cancelled_caller_cannot_cancel_the_batch_it_joined(store: EventStore) -> None:
    tables = [await open_table(store) for _ in range(2)]
    first, second = await _next_commits(store, tables)
    abandoned = asyncio.create_task(store.commit(first))
    kept = asyncio.create_task(store.commit(second))
    await asyncio.sleep(0)  # both have queued their commits
    abandoned.cancel()  # as a request's deadline cancels its handler
    assert isinstance(await kept, bytes)
    with pytest.raises(asyncio.CancelledError):
        await abandoned
    # The abandoned caller stopped waiting; its commit had gone out with the batch.
    for table_id in tables:
        snapshot = await store.load(table_id)
        assert snapshot is not None and snapshot.version == 2


# --- the global order ------------------------------------------------------------------


def _raw_insert(conn: psycopg.Connection[Any], table_id: str, version: int) -> None:
    conn.execute(
        "INSERT INTO events (table_id, version, type, data, actor, recorded_at, hash)"
        " VALUES (%s, %s, 'x', '{}', 'test', now(), %s)",
        (table_id, version, b"\0" * 32),
    )


async def _read_everything(store: EventStore, checkpoint: tuple[int, int]) -> list[Any]:
    return await store.read_all(checkpoint, limit=10_000)


async def test_consumer_does_not_pass_a_transaction_still_in_flight(
    store: EventStore, database_url: str
) -> None:
    """A later position committed first stays invisible until the earlier one commits."""
    start = await _read_everything(store, (0, 0))
    checkpoint = (start[-1][0], start[-1][1].position) if start else (0, 0)
    early, late = new_table_id(), new_table_id()
    slow = psycopg.connect(database_url)
    fast = psycopg.connect(database_url)
    try:
        _raw_insert(slow, early, 1)  # takes the lower position, does not commit yet
        _raw_insert(fast, late, 1)
        fast.commit()
        seen = await _read_everything(store, checkpoint)
        assert [e.table_id for _, e in seen] == [], "read past an uncommitted earlier event"
        slow.commit()
        # Any transaction in the cluster older than ours holds the horizon back a moment.
        for _ in range(200):
            seen = [e for _, e in await _read_everything(store, checkpoint)]
            if seen:
                break
            await asyncio.sleep(0.01)
        assert [e.table_id for e in seen] == [early, late]
    finally:
        slow.close()
        fast.close()


async def test_the_global_read_walks_the_index_in_order(
    store: EventStore, pool: AsyncConnectionPool[Any]
) -> None:
    """A batch is read in the order of ``events_global_order``, with no sort: a read that
    sorted every event after the checkpoint made a rebuild's batches cost as much as the
    whole store (seconds each at 5 million events)."""
    await open_table(store)
    async with pool.connection() as conn, conn.transaction():
        # With sorting priced out, only a read the index can order goes without a Sort.
        await conn.execute("SET LOCAL enable_sort = off")
        cur = await conn.execute("EXPLAIN (FORMAT JSON) " + READ_ALL, ("0", 0, 500))
        row = await cur.fetchone()
    assert row is not None
    plan = row[0][0]["Plan"]
    nodes = []
    while plan is not None:
        nodes.append(plan["Node Type"])
        plan = (plan.get("Plans") or [None])[0]
    assert "Sort" not in nodes and "Incremental Sort" not in nodes, nodes
    assert "Index Scan" in nodes or "Index Only Scan" in nodes, nodes


async def test_concurrent_writers_never_make_a_tailing_consumer_skip(
    database_url: str, store: EventStore
) -> None:
    """Writers commit out of order on many tables while a consumer tails: none is skipped."""
    start = await _read_everything(store, (0, 0))
    checkpoint = (start[-1][0], start[-1][1].position) if start else (0, 0)
    tables = [new_table_id() for _ in range(6)]
    per_table = 25
    done = asyncio.Event()

    async def writer(table_id: str, seed: int) -> None:
        rng = random.Random(seed)
        async with await psycopg.AsyncConnection.connect(database_url) as conn:
            for version in range(1, per_table + 1):
                async with conn.transaction():
                    await conn.execute(
                        "INSERT INTO events (table_id, version, type, data, actor,"
                        " recorded_at, hash) VALUES (%s, %s, 'x', '{}', 'w', now(), %s)",
                        (table_id, version, b"\0" * 32),
                    )
                    # Hold the transaction open for a while: commits land out of order.
                    await asyncio.sleep(rng.random() * 0.01)

    seen: list[tuple[str, int]] = []

    async def consumer() -> None:
        nonlocal checkpoint
        patience = 0
        while True:
            finished = done.is_set()
            batch = await store.read_all(checkpoint, limit=50)
            for tx, event in batch:
                checkpoint = (tx, event.position)
                if event.table_id in tables:
                    seen.append((event.table_id, event.version))
            # A transaction elsewhere in the cluster may hold the horizon back a moment
            # after the writers are done: keep tailing a while before calling it a skip.
            if finished and len(batch) < 50:
                if len(seen) == len(tables) * per_table or patience > 500:
                    return
                patience += 1
            await asyncio.sleep(0.001)

    reader = asyncio.create_task(consumer())
    await asyncio.gather(*(writer(t, i) for i, t in enumerate(tables)))
    done.set()
    await reader
    assert sorted(seen) == sorted((t, v) for t in tables for v in range(1, per_table + 1))
    for table_id in tables:
        versions = [v for t, v in seen if t == table_id]
        assert versions == sorted(versions), "a consumer saw a table's events out of order"


# --- what /metrics reports of the store ------------------------------------------------


def _sample(name: str) -> float:
    return REGISTRY.get_sample_value(name) or 0.0


async def test_appends_and_lost_races_are_counted_where_the_store_commits(
    store: EventStore,
) -> None:
    appended, conflicts = (
        _sample("cardroom_events_appended_total"),
        _sample("cardroom_version_conflicts_total"),
    )
    table_id, last_hash = await open_table_to_commit(store)
    await store.commit(commit(table_id, 1, last_hash, events("a", "b")))
    for stale in range(2):
        with pytest.raises(VersionConflict):
            await store.commit(commit(table_id, 1, last_hash, events(f"late{stale}")))
    assert _sample("cardroom_events_appended_total") - appended == 3
    assert _sample("cardroom_version_conflicts_total") - conflicts == 2


async def everything_readable(store: EventStore, pool: AsyncConnectionPool[Any]) -> list[Any]:
    """Every stored event, once the consumers' read returns them all: it stops short of a
    commit while an older transaction anywhere in the cluster (another test's, say) is
    open, where the lag counts every committed event."""
    async with pool.connection() as conn:
        stored = (await (await conn.execute("SELECT count(*) FROM events")).fetchone() or [0])[0]
    for _ in range(500):
        readable = await store.read_all((0, 0), limit=lag.COUNT_CAP)
        if len(readable) == stored:
            return readable
        await asyncio.sleep(0.01)
    raise AssertionError(f"the consumers' read stays short of the {stored} events stored")


async def test_lag_counts_what_each_consumer_has_not_read_yet(
    store: EventStore, pool: AsyncConnectionPool[Any]
) -> None:
    async with pool.connection() as conn:
        await conn.execute("DELETE FROM consumer_checkpoints")
        await conn.execute("DELETE FROM timekeeper_heartbeat")
    await open_table(store)
    total = len(await everything_readable(store, pool))
    measured = await lag.measure(pool, timeout=5)
    assert measured.relay.events == total
    assert measured.relay.seconds > 0
    assert set(measured.projections) == {"scoresheet", "standings"}
    assert all(p.events == total for p in measured.projections.values())
    assert measured.heartbeat_age is None

    # The relay catches up; a projection stays behind by the events after its checkpoint.
    everything = await everything_readable(store, pool)
    last_tx, last = everything[-1]
    await store.save_checkpoint(relay.CHECKPOINT, (last_tx, last.position))
    before_tx, before = everything[-3]
    await store.save_checkpoint("projection:standings", (before_tx, before.position))
    # A clock expired three seconds ago, not fired yet; a heartbeat a second old.
    expired = datetime.now(UTC) - timedelta(seconds=3)
    await store.commit(commit(new_table_id(), 0, GENESIS, events("created"), deadline=expired))
    async with pool.connection() as conn:
        await conn.execute(
            "INSERT INTO timekeeper_heartbeat (id, alive_at) VALUES (1, now() - interval '1 s')"
        )
    measured = await lag.measure(pool, timeout=5)
    assert measured.relay.events == 1  # the overdue table's creation
    assert measured.projections["standings"].events == 3
    assert measured.projections["scoresheet"].events == total + 1
    assert 3 <= measured.timekeeper_seconds < 10
    assert measured.heartbeat_age is not None and 1 <= measured.heartbeat_age < 10

    text = generate_latest(registry_of(lag.LagCollector(measured))).decode()
    assert "cardroom_relay_lag_events 1.0" in text
    assert 'cardroom_projector_lag_events{projection="standings"} 3.0' in text
    async with pool.connection() as conn:  # leave no armed clock to the module's other tests
        await conn.execute("UPDATE tables SET deadline = NULL")


async def test_bench_sees_consumers_caught_up_when_the_last_commit_holds_lower_positions(
    store: EventStore, database_url: str
) -> None:
    """Consumers read in transaction order, so the last event they read may hold a lower
    position than one read before it: the bench's wait must not take that for a backlog
    (it once waited for ever on exactly this), yet must still wait while one is behind."""
    first, second = new_table_id(), new_table_id()
    with psycopg.connect(database_url) as older, psycopg.connect(database_url) as newer:
        older.execute("SELECT pg_current_xact_id()")  # the lower transaction id ...
        _raw_insert(newer, second, 1)
        newer.commit()
        _raw_insert(older, first, 1)  # ... takes the higher position, and commits last
        older.commit()
    read = await store.read_all((0, 0), limit=lag.COUNT_CAP)
    (tx, last), (older_tx, before) = read[-1], read[-2]
    assert (before.table_id, last.table_id) == (first, second)
    assert last.position < before.position
    consumers = [relay.CHECKPOINT, *(p.checkpoint_name for p in PROJECTIONS.values())]
    await store.save_checkpoint(consumers[-1], (older_tx, before.position))  # one behind
    for name in consumers[:-1]:
        await store.save_checkpoint(name, (tx, last.position))
    with pytest.raises(RuntimeError, match="did not catch up"):
        await asyncio.to_thread(bench_database.wait_for_consumers, database_url, 0.5)
    await store.save_checkpoint(consumers[-1], (tx, last.position))
    assert await asyncio.to_thread(bench_database.wait_for_consumers, database_url, 5) < 5


async def test_checkpoints_are_read_together_in_the_order_asked(
    store: EventStore, pool: AsyncConnectionPool[Any]
) -> None:
    await store.save_checkpoint("test:first", (7, 70))
    await store.save_checkpoint("test:second", (9, 90))
    async with pool.connection() as conn:
        found = await store.checkpoints(["test:second", "test:none", "test:first"], conn)
    assert found == [(9, 90), (0, 0), (7, 70)]
    assert await store.checkpoint("test:first") == (7, 70)
    assert await store.checkpoint("test:none") == (0, 0)


def registry_of(collector: lag.LagCollector) -> CollectorRegistry:
    registry = CollectorRegistry()
    registry.register(collector)
    return registry


def test_the_announcer_waits_only_its_delay_when_idle_and_its_interval_when_busy(
    pool: AsyncConnectionPool[Any],
) -> None:
    now = [100.0]
    notifier = Notifier(pool, delay=0.001, interval=0.01, clock=lambda: now[0])
    assert notifier.pause() == 0.001  # nothing sent yet: a commit is announced at once
    notifier.sent_at = 100.0
    now[0] = 100.004
    assert notifier.pause() == pytest.approx(0.006)  # the rest of the interval
    now[0] = 100.5
    assert notifier.pause() == 0.001  # idle again


async def test_a_burst_of_commits_is_announced_in_few_statements_each_table_at_its_latest(
    pool: AsyncConnectionPool[Any], database_url: str
) -> None:
    notifier = Notifier(pool, interval=0.05)
    statements = 0
    send = notifier._send

    async def counted() -> None:
        nonlocal statements
        statements += bool(notifier.pending)
        await send()

    notifier._send = counted  # type: ignore[method-assign]
    heard: dict[str, int] = {}
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as listener:
        await listener.execute(f"LISTEN {CHANNEL}")
        notifier.start()
        try:
            for version in range(1, 31):  # thirty commits a millisecond apart, three tables
                notifier.notify(f"t{version % 3}", version)
                await asyncio.sleep(0.001)
            async with asyncio.timeout(5):
                async for notice in listener.notifies():
                    table, _, version = notice.payload.rpartition(":")
                    heard[table] = int(version)
                    if heard == {"t0": 30, "t1": 28, "t2": 29}:
                        break
        finally:
            await notifier.stop()
    assert statements <= 3, statements  # unpaced, about one a commit
