"""Two batches in flight at once never deadlock on the tables they both write.

Each commit of a batch locks its table's row until the batch's transaction ends. Two
processes (or two lanes of one) whose batches hold commits for the same tables, in
opposite orders, used to wait for each other until Postgres broke the deadlock, and the
commits of the batch it rolled back were answered 503. Batches now apply their commits in
the order of their tables' ids. Postgres counts every deadlock it breaks
(``pg_stat_database.deadlocks``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest
from psycopg_pool import AsyncConnectionPool

from projections.table_state import TableRow
from service.audit.chain import GENESIS
from service.write.store import Commit, EventStore, NewEvent, VersionConflict, new_table_id
from tests.support import services

TABLES = 12
ROUNDS = 3


@pytest.fixture(scope="module")
def database_url() -> str:
    """A database of its own, where every event takes 5 ms to insert: each batch then
    holds its tables' locks long enough for the two to overlap on every run."""
    url = services.fresh_database("group_locks_")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "CREATE FUNCTION slowly() RETURNS trigger LANGUAGE plpgsql AS"
            " $$ BEGIN PERFORM pg_sleep(0.005); RETURN NEW; END $$"
        )
        conn.execute(
            "CREATE TRIGGER slowly BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION slowly()"
        )
    return url


@pytest.fixture
async def pools(database_url: str) -> AsyncIterator[list[AsyncConnectionPool[Any]]]:
    """Two processes' pools."""
    async with (
        services.connection_pool(database_url) as first,
        services.connection_pool(database_url) as second,
    ):
        yield [first, second]


def one_event(table_id: str, expected: int, previous: bytes) -> Commit:
    return Commit(
        table_id=table_id,
        expected_version=expected,
        previous_hash=previous,
        events=[NewEvent({"type": "noted", "n": expected}, "seat:0")],
        row=TableRow(game="pitch", status="playing", tournament=None, players=[], state=b"s"),
        at=datetime.now(UTC),
    )


async def deadlocks(database_url: str) -> int:
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        await conn.execute("SELECT pg_stat_clear_snapshot()")
        cur = await conn.execute(
            "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()"
        )
        row = await cur.fetchone()
    assert row is not None
    return int(row[0])


async def write_each(
    store: EventStore, order: list[str], expected: int, heads: dict[str, bytes]
) -> list[bool]:
    """One commit to every table, all queued at once in ``order``; which were applied."""

    async def one(table_id: str) -> bool:
        try:
            await store.commit(one_event(table_id, expected, heads[table_id]))
        except VersionConflict:
            return False
        return True

    return list(await asyncio.gather(*(one(table_id) for table_id in order)))


async def test_batches_in_opposite_orders_never_deadlock(
    database_url: str, pools: list[AsyncConnectionPool[Any]]
) -> None:
    stores = [EventStore(pool) for pool in pools]
    table_ids = [new_table_id() for _ in range(TABLES)]
    heads = {}
    for table_id in table_ids:
        heads[table_id] = await stores[0].commit(one_event(table_id, 0, GENESIS))
    before = await deadlocks(database_url)
    for expected in range(1, ROUNDS + 1):
        ascending, descending = await asyncio.gather(
            write_each(stores[0], table_ids, expected, heads),
            write_each(stores[1], table_ids[::-1], expected, heads),
        )
        # Each table moved exactly once: one process's commit applied, the other's stale.
        assert [a + b for a, b in zip(ascending, descending[::-1], strict=True)] == [1] * TABLES
        for table_id in table_ids:
            snapshot = await stores[0].load(table_id)
            assert snapshot is not None and snapshot.version == expected + 1
            heads[table_id] = snapshot.last_hash
    assert await deadlocks(database_url) == before
