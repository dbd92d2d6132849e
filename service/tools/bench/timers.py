"""``cardroom bench timers``: the timekeeper with many armed clocks (DESIGN 10).

A scratch store gets ``tables`` clocked Pitch tables, all armed; a real ``cardroom
timekeeper`` process watches them. First nothing is due for a while: its idle CPU (and
Postgres's) is measured. Then ``rate`` clocks a second expire for ``seconds``: each
expiry's lateness is the instant the timekeeper acted on it (the ``recorded_at`` of its
``clock_expired``) minus its deadline. In the same run, the round trip of one trivial
statement to the same Postgres is measured as the floor any lateness stands on.

The tables are opened through the service with a clock of the benchmark's choosing, so
that their deadlines fall exactly where the schedule wants them.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from datetime import datetime, timedelta
from typing import Any

import psutil
from psycopg_pool import AsyncConnectionPool

from domain import table as tables
from domain.events import ClockSettings
from service.tools.bench.harness import cpu_seconds, percentiles
from service.write.handler import TableService
from service.write.store import EventStore, new_table_id, now

# A deadline 1 s after the turn begins; the table forfeits, so each clock expires once.
ACTION = ClockSettings(action_seconds=1, bank_seconds=0, on_timeout="forfeit")
IDLE_SECONDS = 5.0


class Schedule:
    """The service's clock while opening tables: whatever the next table needs."""

    def __init__(self) -> None:
        self.moment = now()

    def __call__(self) -> datetime:
        return self.moment


async def _open(service: TableService, schedule: Schedule, at: datetime) -> None:
    schedule.moment = at
    created = tables.create(new_table_id(), "pitch", 2, {}, clock=ACTION)
    await service.create(created, {}, "bench", players=["A", "B"])


async def _round_trips(pool: AsyncConnectionPool[Any], count: int = 200) -> list[float]:
    samples = []
    async with pool.connection() as conn:
        for _ in range(count):
            start = time.perf_counter()
            await conn.execute("SELECT 1")
            samples.append(time.perf_counter() - start)
    return samples


def _postgres() -> list[psutil.Process]:
    return [p for p in psutil.process_iter(["name"]) if p.info["name"] == "postgres"]


async def measure(database_url: str, table_count: int, rate: int, seconds: float) -> dict[str, Any]:
    expiring = min(table_count, int(rate * seconds))
    async with AsyncConnectionPool(
        database_url, min_size=2, max_size=8, kwargs={"autocommit": True}
    ) as pool:
        schedule = Schedule()
        service = TableService(EventStore(pool), clock=schedule)
        far = now() + timedelta(days=1)
        for _ in range(table_count - expiring):
            await _open(service, schedule, far)
        env = {**os.environ, "CARDROOM_DATABASE_URL": database_url}
        keeper = subprocess.Popen(
            [sys.executable, "-m", "service.tools.cli", "timekeeper"], env=env, stdout=sys.stderr
        )
        try:
            await asyncio.sleep(3.0)  # it connects, takes the lead, sees nothing due
            process = psutil.Process(keeper.pid)
            keeper_start, pg_start = cpu_seconds([process]), cpu_seconds(_postgres())
            await asyncio.sleep(IDLE_SECONDS)
            idle = {
                "armed_tables": table_count - expiring,
                "timekeeper_cpu_percent": round(
                    100 * (cpu_seconds([process]) - keeper_start) / IDLE_SECONDS, 2
                ),
                "postgres_cpu_percent": round(
                    100 * (cpu_seconds(_postgres()) - pg_start) / IDLE_SECONDS, 2
                ),
            }
            # Open the expiring tables so that their deadlines start a little after the
            # last is open, ``rate`` a second.
            opened = time.perf_counter()
            await _open(service, schedule, far)
            per_table = time.perf_counter() - opened
            begin = now() + timedelta(seconds=per_table * expiring * 1.5 + 2)
            for index in range(expiring):
                deadline = begin + timedelta(seconds=index / rate)
                await _open(service, schedule, deadline - timedelta(seconds=ACTION.action_seconds))
            end = begin + timedelta(seconds=seconds + 3)
            await asyncio.sleep(max(0.0, (end - now()).total_seconds()))
            floor = await _round_trips(pool)
            async with pool.connection() as conn:
                cur = await conn.execute(
                    "SELECT extract(epoch FROM e.recorded_at - t.created_at) - %s"
                    " FROM events e JOIN tables t ON t.id = e.table_id"
                    " WHERE e.type = 'clock_expired' AND t.created_at >= %s",
                    (ACTION.action_seconds, begin - timedelta(seconds=ACTION.action_seconds)),
                )
                lateness = [float(row[0]) for row in await cur.fetchall()]
        finally:
            keeper.terminate()
            keeper.wait(timeout=30)
    late = percentiles(lateness)
    trip = percentiles(floor)
    return {
        "benchmark": "timers",
        "idle": idle,
        "expiring": {"clocks": expiring, "per_second": rate, "fired": len(lateness)},
        "lateness": late,
        "postgres_round_trip": trip,
        "lateness_p99_over_round_trip_p99": round(late["p99_ms"] / trip["p99_ms"], 1)
        if late.get("count") and trip.get("count")
        else None,
    }
