"""``cardroom bench all``: one run, every figure of the write path and the read path.

Commands per second (with p50/p99 latency) at 1, 16 and 64 concurrent tables, conditional
and full GETs per second, and — on the same database in the same run — the raw ceiling
(one-row INSERT + COMMIT per second at the same concurrency) that every command figure is
also reported against, plus event-store appends beside the ``eventsourcing`` library.

The stack's floor (``floor_app``: the same uvicorn and Litestar with the same options and
workers, a route that decodes a small body, INSERTs one row through a pool and answers a
small object) is driven by the same load generator at the same levels, and every command
figure is also a ratio to it: what the stack costs, apart from what Cardroom adds.
"""

from __future__ import annotations

import asyncio
import math
from typing import Any

from service.tools.bench import database, load
from service.tools.bench.harness import (
    CpuMeter,
    Server,
    running_floor,
    running_server,
    scratch_database,
)
from service.tools.bench.plan import Plan

LEVELS = (1, 16, 64)
# Planned steps per worker: plans are replayed until the time is up, so plan for more
# than the fastest rate measured here (about 4,000 commands per second in all).
PLANNED_RATE = 4_000


def wait(database_url: str) -> float:
    return round(database.wait_for_consumers(database_url), 2)


def run(
    admin_url: str,
    redis_url: str,
    seconds: float,
    workers: int,
    levels: tuple[int, ...] = LEVELS,
) -> dict[str, Any]:
    result: dict[str, Any] = {"seconds_per_figure": seconds, "server_workers": workers}
    with scratch_database(admin_url) as database_url:
        ceiling = {
            c: asyncio.run(database.raw_insert_commit(database_url, c, seconds)) for c in levels
        }
        result["raw_insert_commit_per_second"] = {str(c): round(r, 1) for c, r in ceiling.items()}
        floor = stack_floor(database_url, seconds, workers, levels)
        result["stack_floor"] = floor
        with running_server(database_url, redis_url, workers=workers) as server:
            base, operator = server.base, server.operator
            commands: dict[str, Any] = {}
            # Seconds spent letting the relay and projections drain the previous phase's
            # backlog, so that no figure pays for the one before it.
            catch_up: dict[str, float] = {}
            result["consumer_catch_up_seconds"] = catch_up
            seed = 0
            for clients in levels:
                figures, seed, catch_up[f"before_commands_{clients}"] = command_figure(
                    server, database_url, clients, seconds, seed
                )
                figures["ratio_to_raw_insert_commit"] = database.ratio(
                    figures["per_second"], ceiling[clients]
                )
                figures["ratio_to_stack_floor"] = database.ratio(
                    figures["per_second"], floor[str(clients)]["per_second"]
                )
                commands[str(clients)] = figures
            result["commands"] = commands
            seated = asyncio.run(load.seat_tables(base, operator, load.make_plans(16, 10_000)))
            for name, conditional in (("conditional_get_304", True), ("full_get", False)):
                catch_up[f"before_{name}"] = wait(database_url)
                meter = CpuMeter(server)
                reads = asyncio.run(load.run_reads(base, seated, 16, seconds, conditional))
                reads["cpu_seconds_per_1000"] = meter.per_thousand(
                    reads["requests"], reads["elapsed"]
                )
                result[name] = reads
        appends = {}
        for clients in (1, 16):
            ours = asyncio.run(database.store_appends(database_url, clients, seconds))
            theirs = database.eventsourcing_appends(database_url, clients, seconds)
            appends[str(clients)] = {
                "cardroom_events_per_second": round(ours, 1),
                "eventsourcing_events_per_second": round(theirs, 1),
                "ratio": database.ratio(ours, theirs),
            }
        result["event_store_appends"] = appends
    return result


def command_figure(
    server: Server, database_url: str, clients: int, seconds: float, seed: int
) -> tuple[dict[str, Any], int, float]:
    """Commands per second (latency, CPU) of ``clients`` tables at once, each worker
    replaying seeded plans from ``seed`` on; the figures, the next unused seed, and the
    seconds spent first letting the relay and projections drain the store's backlog."""
    per_worker = math.ceil(PLANNED_RATE * seconds / clients)
    work = []
    for _ in range(clients):
        plans: list[Plan] = []
        planned = 0
        while planned < per_worker:
            plans.extend(load.make_plans(1, seed))
            planned += len(plans[-1].steps)
            seed += 1
        work.append(asyncio.run(load.seat_tables(server.base, server.operator, plans)))
    caught_up = wait(database_url)
    meter = CpuMeter(server)
    figures = asyncio.run(load.run_commands(server.base, work, seconds))
    figures["cpu_seconds_per_1000"] = meter.per_thousand(figures["commands"], figures["elapsed"])
    return figures, seed, caught_up


def stack_floor(
    database_url: str, seconds: float, workers: int, levels: tuple[int, ...] = LEVELS
) -> dict[str, Any]:
    """The floor's requests per second (latency, CPU) at each level, on its own server."""
    figures: dict[str, Any] = {}
    with running_floor(database_url, workers=workers) as server:
        for clients in levels:
            meter = CpuMeter(server)
            level = asyncio.run(load.run_floor(server.base, clients, seconds))
            level["cpu_seconds_per_1000"] = meter.per_thousand(level["requests"], level["elapsed"])
            figures[str(clients)] = level
    return figures
