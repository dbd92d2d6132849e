"""Load against a running server: planned commands, conditional and full GETs."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

import msgspec

from service.tools.bench.client import Connection
from service.tools.bench.harness import percentiles
from service.tools.bench.plan import Plan, plan_game

GAME = "forty-five"
SEATS = 4


class Seated(msgspec.Struct):
    table: str
    tokens: list[str]
    plan: Plan


def _address(base: str) -> tuple[str, int]:
    parts = urlsplit(base)
    return parts.hostname or "127.0.0.1", parts.port or 80


async def seat_tables(base: str, operator: str, plans: list[Plan]) -> list[Seated]:
    conn = Connection(*_address(base))
    await conn.open()
    seated = []
    try:
        for plan in plans:
            status, _, body = await conn.request(
                "POST", "/tables", {"Authorization": f"Bearer {operator}"}, plan.create
            )
            assert status == 201, body
            table_id = msgspec.json.decode(body)["id"]
            tokens = []
            for seat in range(SEATS):
                status, _, body = await conn.request(
                    "POST", f"/tables/{table_id}/seats/{seat}", None, {"name": f"b{seat}"}
                )
                assert status == 201, body
                tokens.append(msgspec.json.decode(body)["token"])
            seated.append(Seated(table_id, tokens, plan))
    finally:
        await conn.close()
    return seated


def make_plans(count: int, first_seed: int) -> list[Plan]:
    return [plan_game(GAME, SEATS, seed) for seed in range(first_seed, first_seed + count)]


async def run_commands(base: str, work: list[list[Seated]], seconds: float) -> dict[str, Any]:
    """Each worker replays its tables' plans, one command at a time, for ``seconds``."""
    latencies: list[float] = []
    failures = 0

    async def worker(tables: list[Seated]) -> int:
        nonlocal failures
        conn = Connection(*_address(base))
        await conn.open()
        sent = 0
        try:
            for seated in tables:
                path = f"/tables/{seated.table}/actions"
                auth = [{"Authorization": f"Bearer {t}"} for t in seated.tokens]
                for seat, command in seated.plan.steps:
                    if time.monotonic() > deadline:
                        return sent
                    started = time.perf_counter()
                    status, _, _ = await conn.request("POST", path, auth[seat], command)
                    latencies.append(time.perf_counter() - started)
                    failures += status != 200
                    sent += 1
            return sent
        finally:
            await conn.close()

    started = time.monotonic()
    deadline = started + seconds
    sent = await asyncio.gather(*(worker(tables) for tables in work))
    elapsed = time.monotonic() - started
    return {
        "commands": sum(sent),
        "elapsed": round(elapsed, 3),
        "failures": failures,
        "per_second": round(sum(sent) / elapsed, 1),
        "latency": percentiles(latencies),
        "exhausted_plans": time.monotonic() < deadline,
    }


async def run_reads(
    base: str, seated: list[Seated], clients: int, seconds: float, conditional: bool
) -> dict[str, Any]:
    """GETs of seat views, answered 304 (``conditional``) or in full."""
    latencies: list[float] = []

    async def worker(index: int, deadline: float) -> int:
        target = seated[index % len(seated)]
        headers = {"Authorization": f"Bearer {target.tokens[index % SEATS]}"}
        conn = Connection(*_address(base))
        await conn.open()
        path = f"/tables/{target.table}"
        status, answer, _ = await conn.request("GET", path, headers)
        if conditional:
            headers = {**headers, "If-None-Match": answer["etag"]}
        expected = 304 if conditional else 200
        done = 0
        try:
            while time.monotonic() < deadline:
                started = time.perf_counter()
                status, _, _ = await conn.request("GET", path, headers)
                latencies.append(time.perf_counter() - started)
                assert status == expected, status
                done += 1
        finally:
            await conn.close()
        return done

    requests, elapsed = await _closed_loop(clients, seconds, worker)
    return _figures(requests, elapsed, latencies)


async def run_floor(base: str, clients: int, seconds: float) -> dict[str, Any]:
    """The stack's floor: ``clients`` connections POSTing small moves, one at a time, as
    ``run_commands`` sends commands (the same client, the same one-in-flight loop)."""
    latencies: list[float] = []
    failures = 0

    async def worker(index: int, deadline: float) -> int:
        nonlocal failures
        conn = Connection(*_address(base))
        await conn.open()
        move = {"table": f"floor-{index}", "seat": index % SEATS, "card": "JH"}
        sent = 0
        try:
            while time.monotonic() < deadline:
                started = time.perf_counter()
                status, _, _ = await conn.request("POST", "/floor", None, move)
                latencies.append(time.perf_counter() - started)
                failures += status != 200
                sent += 1
        finally:
            await conn.close()
        return sent

    requests, elapsed = await _closed_loop(clients, seconds, worker)
    return _figures(requests, elapsed, latencies, failures=failures)


async def _closed_loop(
    clients: int, seconds: float, worker: Callable[[int, float], Awaitable[int]]
) -> tuple[int, float]:
    """``clients`` workers at once, each given its index and the deadline ``seconds`` from
    now: the requests they made in all, and the seconds they took."""
    started = time.monotonic()
    made = await asyncio.gather(*(worker(i, started + seconds) for i in range(clients)))
    return sum(made), time.monotonic() - started


def _figures(requests: int, elapsed: float, latencies: list[float], **extra: Any) -> dict[str, Any]:
    """A closed loop's figures: requests, seconds, what else it counted, rate, latency."""
    return {
        "requests": requests,
        "elapsed": round(elapsed, 3),
        **extra,
        "per_second": round(requests / elapsed, 1),
        "latency": percentiles(latencies),
    }
