"""A replica promoted out from under the service (a failover, an operator's test) while
``CARDROOM_REPLICA_URLS`` still names it: it no longer follows the primary, so nothing is
read from it, and ``/readyz`` says why (DESIGN 13). Its own primary and standby: the
promotion cannot be undone for the other replica tests."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

from service.read.replicas import Replicas
from tests.support.replicated_postgres import primary_and_replica


async def _port(conn: psycopg.AsyncConnection[Any]) -> int:
    cur = await conn.execute("SELECT inet_server_port()")
    row = await cur.fetchone()
    assert row is not None
    return int(row[0])


async def test_a_promoted_replica_is_read_from_no_more() -> None:
    """A promoted server still answers the last position it replayed, so it was taken
    for a current standby: reported "ok", and reads ran on a server that may already
    have parted from the primary."""
    with primary_and_replica() as (primary, replica):
        assert replica.sql("SELECT pg_promote()") is True
        async with AsyncConnectionPool(primary.url, min_size=1, open=False) as pool:
            router = Replicas.connect(pool, (replica.url,), max_size=1, max_lag_seconds=5.0)
            await router.open()
            try:
                [promoted] = router.replicas
                assert not promoted.usable
                assert promoted.status == "error: not a standby (pg_is_in_recovery() is false)"
                assert await router.run(_port) == primary.port
            finally:
                await router.close()
