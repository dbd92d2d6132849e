"""A store copied with pg_dump onto a new cluster (a disaster recovery, a major upgrade by
dump, a move to a managed service): its rows keep the transaction ids of the cluster
they were written on, ahead of the new cluster's own. Consumers read below the current
snapshot's xmin, so everything written after the restore sorted behind their
checkpoints and was never read; the migrations restamp such a store."""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg_pool import AsyncConnectionPool

from domain import table as tables
from service.workers.projector import Projector
from service.write.handler import TableService
from service.write.migrate import migrate
from service.write.restored import RELAY as RELAY_CHECKPOINT
from service.write.restored import RESTAMPED
from service.write.store import EventStore, new_table_id
from tests.support.postgres_server import PostgresServer, _bin

BURNT = 3_000  # transactions the first cluster ran before the dump: ids the second lacks


async def seated_table(pool: AsyncConnectionPool[Any]) -> str:
    created = tables.create(new_table_id(), "forty-five", 4, {})
    table, _ = await TableService(EventStore(pool)).create(
        created, {}, "operator", players=["Ann", "Bob", "Cy", "Di"]
    )
    return table.id


def open_pool(url: str) -> AsyncConnectionPool[Any]:
    return AsyncConnectionPool(url, min_size=1, max_size=3, open=False, kwargs={"autocommit": True})


@pytest.fixture
async def restored() -> AsyncIterator[tuple[str, str]]:
    """A store with a table, its read models folded and its relay's checkpoint at the
    dump, restored onto a cluster of its own: (its URL, the table)."""
    first, second = PostgresServer(), PostgresServer()
    try:
        first.start()
        migrate(first.url)
        with psycopg.connect(first.url, autocommit=True) as conn:
            for _ in range(BURNT):
                conn.execute("SELECT pg_current_xact_id()")
        async with open_pool(first.url) as pool:
            before = await seated_table(pool)
            assert await Projector(pool).step() > 0
            with psycopg.connect(first.url, autocommit=True) as conn:
                conn.execute(
                    "INSERT INTO consumer_checkpoints (name, tx, position)"
                    " SELECT %s, max(tx)::text::bigint, max(position) FROM events",
                    (RELAY_CHECKPOINT,),
                )
        second.start()
        with tempfile.TemporaryDirectory() as folder:
            dump = str(Path(folder) / "store.dump")
            subprocess.run([_bin("pg_dump"), "-Fc", "-f", dump, first.url], check=True)
            subprocess.run(
                [_bin("pg_restore"), "--no-owner", "-d", second.url, dump],
                check=True,
            )
        yield second.url, before
    finally:
        for server in (first, second):
            server.stop()
            server.remove()


async def test_a_store_restored_onto_another_cluster_is_read_on_after_the_restore(
    restored: tuple[str, str],
) -> None:
    url, before = restored
    assert migrate(url) == []  # nothing pending: the restamp is not a migration
    async with open_pool(url) as pool:
        store = EventStore(pool)
        after = await seated_table(pool)  # written by this cluster
        # The relay reads on from its checkpoint: the new table's events, none of the
        # ones it had published.
        async with pool.connection() as conn:
            checkpoint = (await store.checkpoints([RELAY_CHECKPOINT], conn))[0]
        unread = {stored.table_id for _, stored in await store.read_all(checkpoint)}
        assert unread == {after}
        assert checkpoint[0] == RESTAMPED
        # The read models are built again, the restored table's and the new one's.
        while await Projector(pool).step():
            pass
        async with pool.connection() as conn:
            cur = await conn.execute("SELECT DISTINCT key FROM read_models")
            keys = {row[0] for row in await cur.fetchall()}
        assert {before, after} <= keys
        # Once restamped, a store is left as it is.
        with psycopg.connect(url, autocommit=True) as conn:
            cur = conn.execute("SELECT count(*) FROM events WHERE tx = %s::text::xid8", ("3",))
            restamped = cur.fetchone()
        assert migrate(url) == []
        with psycopg.connect(url, autocommit=True) as conn:
            again = conn.execute(
                "SELECT count(*) FROM events WHERE tx = %s::text::xid8", ("3",)
            ).fetchone()
        assert restamped == again
