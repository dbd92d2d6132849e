"""The primary's position as a replica can reach it (DESIGN 13): after a WAL switch on
an idle primary, the insert position points past the new segment's page header, where
no standby's replay stops. Its own primary and standby: the switch is theirs alone."""

from __future__ import annotations

import time
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

from service.read.replicas import Replicas, lsn, record_end
from tests.support.replicated_postgres import primary_and_replica


async def _port(conn: psycopg.AsyncConnection[Any]) -> int:
    cur = await conn.execute("SELECT inet_server_port()")
    row = await cur.fetchone()
    assert row is not None
    return int(row[0])


def test_the_end_of_a_record_on_a_page_boundary_is_the_boundary() -> None:
    page, segment = 8192, 16 << 20
    assert record_end(3 * segment + 40, page=page, segment=segment) == 3 * segment
    assert record_end(5 * page + 24, page=page, segment=segment) == 5 * page
    assert record_end(5 * page + 64, page=page, segment=segment) == 5 * page + 64
    assert record_end(5 * page, page=page, segment=segment) == 5 * page


async def test_a_caught_up_replica_of_an_idle_primary_after_a_wal_switch_is_current() -> None:
    """Reported lagging, ever further behind, and never read from, until the next write
    on the primary: the replica had replayed everything there was."""
    now = [0.0]
    with primary_and_replica() as (primary, replica):
        with psycopg.connect(primary.url, autocommit=True) as conn:
            conn.execute("CREATE TABLE written (id int)")
            conn.execute("INSERT INTO written VALUES (1)")
            conn.execute("SELECT pg_switch_wal()")
            row = conn.execute("SELECT pg_current_wal_flush_lsn()::text").fetchone()
            assert row is not None
            flushed = lsn(row[0])
        deadline = time.monotonic() + 20
        while lsn(str(replica.sql("SELECT pg_last_wal_replay_lsn()::text"))) < flushed:
            assert time.monotonic() < deadline, "the replica never replayed the switch"
            time.sleep(0.02)
        async with AsyncConnectionPool(primary.url, min_size=1, open=False) as pool:
            router = Replicas.connect(pool, (replica.url,), max_size=1, max_lag_seconds=1.0)
            router.clock = lambda: now[0]
            await router.open()
            try:
                for now[0] in (1.0, 5.0, 60.0):  # idle for a minute
                    await router.check()
                [standby] = router.replicas
                assert (standby.usable, standby.status) == (True, "ok")
                assert await router.run(_port) == replica.port
            finally:
                await router.close()
