"""Leader election (service.workers.leader) against real Postgres."""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg
import pytest

from service.workers import leader
from tests.support import services

LOCK = 0x7465_7374_6C65_6164  # "testlead": no worker's lock


async def _backends(admin: psycopg.AsyncConnection[Any], name: str) -> list[int]:
    cur = await admin.execute(
        "SELECT pid FROM pg_stat_activity WHERE application_name = %s", (name,)
    )
    return [row[0] for row in await cur.fetchall()]


async def test_a_standby_asks_on_one_connection_and_leads_on_it_once_the_lock_is_free(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A standby keeps one connection through its tries (a new one each time cost Postgres
    a backend's start-up), and takes the lock on it when the leader lets go."""
    database_url = services.fresh_database("leader_")
    standby_url = psycopg.conninfo.make_conninfo(database_url, application_name="standby")
    monkeypatch.setattr(leader, "STANDBY", 0.02)
    stop, leading, led = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def work(conn: psycopg.AsyncConnection[Any]) -> None:
        led.set()
        await stop.wait()

    async with (
        await psycopg.AsyncConnection.connect(database_url, autocommit=True) as holder,
        await psycopg.AsyncConnection.connect(database_url, autocommit=True) as admin,
    ):
        await holder.execute("SELECT pg_advisory_lock(%s)", (LOCK,))
        running = asyncio.create_task(
            leader.while_leading(standby_url, LOCK, stop, leading, work, "test")
        )
        try:
            await asyncio.sleep(0.2)
            first = await _backends(admin, "standby")
            await asyncio.sleep(0.2)  # ten tries and more
            assert await _backends(admin, "standby") == first and len(first) == 1
            assert not led.is_set()
            await holder.execute("SELECT pg_advisory_unlock(%s)", (LOCK,))
            await asyncio.wait_for(led.wait(), timeout=5)
            assert leading.is_set()
            assert await _backends(admin, "standby") == first  # the lock taken on it
        finally:
            stop.set()
            await asyncio.wait_for(running, timeout=5)
        assert not leading.is_set()
