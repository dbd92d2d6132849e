"""A thousand SSE streams on one server process while commands are committed (DESIGN,
"Limits and failure behaviour": one Redis reader per process feeds every SSE client of
that process; the relay has its own connection; thousands of streams per process do
not delay the relay).

A real ``cardroom serve`` (one process) holds ``STREAMS`` streams, spread over
``TABLES`` tables (spectators, and each seat's own stream), opened from this process
with raw asyncio sockets so that the client side stays cheap. Seats then play on every
table. Every stream must receive every new event once and in order; ``/readyz`` must
keep finding Redis; and the server's Redis connections must not grow with the streams.
The latencies (command's response to each stream's message; to the relay's entry in
Redis) are printed as figures.
"""

from __future__ import annotations

import asyncio
import json
import random
import resource
import secrets
import statistics
import time
from collections.abc import Iterator
from typing import Any

import httpx
import psutil
import pytest
from redis.asyncio import Redis

from service.tools.bench.harness import Server, running_server
from service.tools.bench.sse_client import StreamClient, open_stream
from service.workers.streams import global_stream
from tests.support import services
from tests.support.api import ok, random_action, seat_all

STREAMS = 1_000
TABLES = 25
SEAT_STREAMS = 4  # per table, one per seat: those read their events from Postgres
LOAD_SECONDS = 8.0
# Between a table's commands: ~60 commands/s over all tables. At ~100/s a 2-core machine
# shared with other work was past its knee: the relay's own cycle (read, publish,
# checkpoint), not the streams, made the tail of the printed latencies.
PAUSE = 0.4


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[Server, str]]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = STREAMS * 2 + 512  # both ends of every stream: the server inherits the limit
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))
    prefix = f"many-{secrets.token_hex(3)}"
    try:
        with running_server(
            services.fresh_database("many_"),
            services.redis_url(),
            extra_env={"CARDROOM_REDIS_PREFIX": prefix},
        ) as running:
            yield running, prefix
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


async def server_connections(redis: Redis, prefix: str) -> list[str]:
    """The names of the server's connections to Redis (service.workers.clients)."""
    clients: Any = await redis.client_list()
    return sorted(c["name"] for c in clients if c["name"].startswith(f"{prefix}:"))


def percentile(samples: list[float], cut: int) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[cut - 1]


async def live_streams(http: httpx.AsyncClient) -> float:
    for line in (await http.get("/metrics")).text.splitlines():
        if line.startswith("cardroom_live_streams "):
            return float(line.split()[1])
    raise AssertionError("no cardroom_live_streams in /metrics")


async def test_a_thousand_streams_on_one_process(server: tuple[Server, str]) -> None:
    running, prefix = server
    redis = Redis.from_url(services.redis_url())
    limits = httpx.Limits(max_connections=TABLES + 10)
    async with httpx.AsyncClient(base_url=running.base, timeout=10, limits=limits) as http:
        # Tables, seated: each deals its first hand.
        tables: list[tuple[str, list[str]]] = []
        for _ in range(TABLES):
            table = ok(await http.post("/tables", json={"game": "forty-five", "seats": 4}), 201)
            tables.append((table["id"], await seat_all(http, table["id"], 4)))
        start = {t: ok(await http.get(f"/tables/{t}"))["version"] for t, _ in tables}

        # The streams, opened a hundred at a time, each resuming at the table's version.
        plan: list[tuple[str, str | None]] = []
        for i in range(STREAMS):
            table_id, tokens = tables[i % TABLES]
            seat = (i // TABLES) % 4 if i < TABLES * SEAT_STREAMS else None
            plan.append((table_id, tokens[seat] if seat is not None else None))
        streams: list[tuple[str, StreamClient]] = []
        try:
            await hold(http, redis, running, prefix, tables, start, plan, streams)
        finally:
            for _, client in streams:
                client.close()
        for _ in range(100):
            if await live_streams(http) == 0:
                break
            await asyncio.sleep(0.05)
        assert await live_streams(http) == 0  # every closed stream left the hub
    await redis.aclose()


async def hold(
    http: httpx.AsyncClient,
    redis: Redis,
    running: Server,
    prefix: str,
    tables: list[tuple[str, list[str]]],
    start: dict[str, int],
    plan: list[tuple[str, str | None]],
    streams: list[tuple[str, StreamClient]],
) -> None:
    """Open the streams (into ``streams``), play, and check what every stream received."""
    base = running.base
    before = await server_connections(redis, prefix)
    opened = time.monotonic()
    for wave in range(0, STREAMS, 100):
        batch = plan[wave : wave + 100]
        clients = await asyncio.gather(
            *(
                open_stream(base, f"/tables/{t}/stream?timeout=300&after={start[t]}", token)
                for t, token in batch
            ),
            return_exceptions=True,
        )
        for (table_id, _), client in zip(batch, clients, strict=True):
            if isinstance(client, StreamClient):
                streams.append((table_id, client))  # closed by the caller, whatever happens
        failed = [c for c in clients if not isinstance(c, StreamClient)]
        assert not failed, f"{len(failed)} streams did not open: {failed[0]!r}"
    opened = time.monotonic() - opened
    assert all(c.status == 200 for _, c in streams)
    for _ in range(300):
        if await live_streams(http) == STREAMS:
            break
        await asyncio.sleep(0.05)
    assert await live_streams(http) == STREAMS
    during = await server_connections(redis, prefix)

    # The relay's output, read beside the hub: when each event reached Redis.
    published: dict[tuple[str, int], float] = {}

    async def watch_redis() -> None:
        position: Any = "$"
        while True:
            found: Any = await reader.xread({global_stream(prefix): position}, block=1000)
            now = time.monotonic()
            for _, entries in found or []:
                for entry_id, fields in entries:
                    position = entry_id
                    key = (fields[b"table"].decode(), int(fields[b"version"]))
                    published.setdefault(key, now)

    reader = Redis.from_url(services.redis_url())
    relay_watch = asyncio.create_task(watch_redis())
    await asyncio.sleep(0.2)

    # Play: each table a command every PAUSE seconds; note when each answer came.
    answered: dict[tuple[str, int], float] = {}
    readiness: list[tuple[float, dict[str, str]]] = []
    until = time.monotonic() + LOAD_SECONDS

    async def play(table_id: str, tokens: list[str], seed: int) -> None:
        rng = random.Random(seed)
        await asyncio.sleep(rng.uniform(0, PAUSE))  # the tables' commands spread, not in step
        view = ok(await http.get(f"/tables/{table_id}"))
        while time.monotonic() < until and view["status"] == "playing":
            seat = view["to_act"][0]
            body = await random_action(http, table_id, tokens[seat], rng)
            answered[(table_id, body["version"])] = time.monotonic()
            view = body["table"]
            await asyncio.sleep(PAUSE * rng.uniform(0.5, 1.5))

    async def probe() -> None:
        while time.monotonic() < until:
            asked = time.monotonic()
            answer = await http.get("/readyz")
            readiness.append((time.monotonic() - asked, answer.json()["checks"]))
            await asyncio.sleep(0.5)

    cpu = psutil.Process(running.pid), psutil.Process()
    spent = [sum(p.cpu_times()[:2]) for p in cpu]
    await asyncio.gather(*(play(t, tokens, i) for i, (t, tokens) in enumerate(tables)), probe())
    spent = [sum(p.cpu_times()[:2]) - s for p, s in zip(cpu, spent, strict=True)]
    final = {t: ok(await http.get(f"/tables/{t}"))["version"] for t, _ in tables}

    # Every stream gets every new event, once, in order.
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(c.newest < final[t] for t, c in streams):
        await asyncio.sleep(0.05)
    relay_watch.cancel()
    await asyncio.gather(relay_watch, return_exceptions=True)
    await reader.aclose()
    behind = [(t, c.newest, final[t]) for t, c in streams if c.newest < final[t]]
    assert not behind, f"{len(behind)} streams behind, e.g. {behind[:3]}"
    for table_id, client in streams:
        assert sorted(client.arrivals) == list(range(start[table_id] + 1, final[table_id] + 1))
        assert client.repeats == 0
        assert not client.closed

    by_table: dict[str, list[tuple[int, float]]] = {}
    for (table_id, version), at in answered.items():
        by_table.setdefault(table_id, []).append((version, at))
    latencies = [
        max(0.0, client.arrivals[version] - at)
        for table_id, client in streams
        for version, at in by_table.get(table_id, [])
    ]
    relay = [max(0.0, published[key] - at) for key, at in answered.items() if key in published]
    # The hub's part alone: from the entry in Redis to the message on each stream.
    fanout = [
        max(0.0, client.arrivals[version] - published[(table_id, version)])
        for table_id, client in streams
        for version, _ in by_table.get(table_id, [])
        if (table_id, version) in published
    ]
    figures = {
        "streams": len(streams),
        "open_seconds": round(opened, 2),
        "commands": len(answered),
        "deliveries": len(latencies),
        "sse_p50_ms": round(percentile(latencies, 50) * 1000, 1),
        "sse_p99_ms": round(percentile(latencies, 99) * 1000, 1),
        "sse_max_ms": round(max(latencies) * 1000, 1),
        "relay_p50_ms": round(percentile(relay, 50) * 1000, 1),
        "relay_p99_ms": round(percentile(relay, 99) * 1000, 1),
        "redis_to_sse_p50_ms": round(percentile(fanout, 50) * 1000, 1),
        "redis_to_sse_p99_ms": round(percentile(fanout, 99) * 1000, 1),
        "cpu_seconds": {"server": round(spent[0], 2), "test": round(spent[1], 2)},
        "readyz_max_ms": round(max(s for s, _ in readiness) * 1000, 1),
        "redis_connections": {"before": before, "during": during},
    }
    print(json.dumps(figures))
    assert len(answered) >= TABLES * 4, figures  # enough to measure (40 streams each)
    assert len(relay) == len(answered), "an answered command never reached Redis"
    assert all(checks == {"postgres": "ok", "redis": "ok"} for _, checks in readiness), figures

    # The server's Redis connections: the same few, whatever the number of streams.
    roles = sorted({name.split(":")[-2] for name in during})
    assert roles == ["api", "fanout", "relay"], during
    assert all(name.endswith(f":{running.pid}") for name in during), during
    assert len(during) <= len(before) + 1 <= 5, figures  # a probe may add one api
    # Latencies are printed, not asserted: on a shared 2-core machine they swing with
    # whatever else runs (commit-to-SSE p50 74 ms, p99 426 ms in a run with the machine
    # loaded by other work), and the project measures speed with benchmarks
    # (`cardroom bench sse`), never with timed asserts.
