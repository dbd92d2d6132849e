"""Database-side figures: the raw INSERT + COMMIT ceiling, and event-store appends
beside the ``eventsourcing`` library's PostgreSQL recorder, on the same database."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import psycopg
from psycopg_pool import AsyncConnectionPool

from projections.table_state import TableRow
from service.audit.chain import GENESIS
from service.workers.lag import measure as lag_of
from service.write.store import Commit, EventStore, NewEvent


async def _rate(clients: int, seconds: float, client: Callable[[float], Awaitable[int]]) -> float:
    """Operations per second of ``clients`` concurrent ``client`` loops, each given the
    deadline to stop at and answering how many operations it did."""
    started = time.monotonic()
    done = await asyncio.gather(*(client(started + seconds) for _ in range(clients)))
    return sum(done) / (time.monotonic() - started)


async def raw_insert_commit(database_url: str, clients: int, seconds: float) -> float:
    """One-row INSERT + COMMIT per second with ``clients`` connections at once."""
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS bench_raw (id bigserial PRIMARY KEY, payload text)"
        )

    async def client(deadline: float) -> int:
        done = 0
        async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
            while time.monotonic() < deadline:
                await conn.execute("INSERT INTO bench_raw (payload) VALUES ('x')")
                done += 1
        return done

    return await _rate(clients, seconds, client)


async def store_appends(database_url: str, clients: int, seconds: float) -> float:
    """Events per second through our store, one event per append, a stream per client."""
    async with AsyncConnectionPool(
        database_url, min_size=clients, max_size=clients, kwargs={"autocommit": True}
    ) as pool:
        store = EventStore(pool)

        async def client(deadline: float) -> int:
            table_id = str(uuid.uuid4())
            version, previous = 0, GENESIS
            done = 0
            while time.monotonic() < deadline:
                commit = Commit(
                    table_id=table_id,
                    expected_version=version,
                    previous_hash=previous,
                    events=[NewEvent({"type": "bench", "n": version}, "bench")],
                    row=TableRow(
                        game="bench", status="playing", tournament=None, players=[], state=b""
                    ),
                    at=datetime.now(UTC),
                )
                previous = await store.commit(commit)
                version += 1
                done += 1
            return done

        return await _rate(clients, seconds, client)


def eventsourcing_appends(database_url: str, clients: int, seconds: float) -> float:
    """The same through ``eventsourcing``'s PostgreSQL application recorder."""
    from eventsourcing.persistence import StoredEvent
    from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore

    info = psycopg.conninfo.conninfo_to_dict(database_url)
    datastore = PostgresDatastore(
        dbname=str(info.get("dbname", "postgres")),
        host=str(info.get("host", "127.0.0.1")),
        port=str(info.get("port", "5432")),
        user=str(info.get("user", "postgres")),
        password=str(info.get("password", "")),
        pool_size=clients,
    )
    recorder = PostgresApplicationRecorder(datastore, events_table_name="es_bench_events")
    recorder.create_table()

    def client() -> int:
        originator = uuid.uuid4()
        done = 0
        while time.monotonic() < deadline:
            event = StoredEvent(
                originator_id=originator,
                originator_version=done + 1,
                topic="bench:Event",
                state=b'{"type":"bench"}',
            )
            recorder.insert_events([event])
            done += 1
        return done

    started = time.monotonic()
    deadline = started + seconds
    with ThreadPoolExecutor(max_workers=clients) as pool:
        done = list(pool.map(lambda _: client(), range(clients)))
    rate = sum(done) / (time.monotonic() - started)
    datastore.close()
    return rate


def wait_for_consumers(database_url: str, timeout: float = 120) -> float:
    """Block until the relay and the projections have consumed every stored event, so
    the next figure is not measured beside their backlog; the seconds it took.

    "Consumed" is what ``/metrics`` reports as no lag (service.workers.lag): no event
    after a consumer's ``(tx, position)`` checkpoint. Comparing positions alone would
    wait for ever whenever the last transaction to commit holds lower positions than
    one before it, since consumers read in transaction order."""
    return asyncio.run(_wait_for_consumers(database_url, timeout))


async def _wait_for_consumers(database_url: str, timeout: float) -> float:
    started = time.monotonic()
    async with AsyncConnectionPool(
        database_url, min_size=1, max_size=1, kwargs={"autocommit": True}, open=False
    ) as pool:
        while True:
            lag = await lag_of(pool, timeout=10)
            behind = [lag.relay, *lag.projections.values()]
            if all(consumer.events == 0 for consumer in behind):
                return time.monotonic() - started
            if time.monotonic() - started > timeout:
                raise RuntimeError("the relay and projections did not catch up")
            await asyncio.sleep(0.2)


def ratio(value: float, base: float) -> float:
    return round(value / base, 3) if base else 0.0
