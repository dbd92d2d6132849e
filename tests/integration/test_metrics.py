"""``/metrics`` of ``cardroom serve --workers 2``: whichever worker answers a scrape
reports the whole server: every command and event counted once, one leader per worker
kind, and the lag behind the store. A killed worker's leadership goes with it."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time
import uuid
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import NamedTuple

import httpx
import psutil
import psycopg
import pytest
from prometheus_client.multiprocess import MultiProcessCollector

from service.tools.bench.harness import Server, running_server
from tests.support import services
from tests.support.api import bearer, ok, random_action
from tests.support.metrics import parse, value

TABLES = 4
COMMANDS_PER_TABLE = 15
COMMANDS = TABLES * COMMANDS_PER_TABLE
KINDS = {"relay", "projector", "computers", "timekeeper", "retention", "rounds"}
FRESH = {"Connection": "close"}  # every request on a new connection: either worker takes it


def leaders(samples: dict[str, list[tuple[dict[str, str], float]]]) -> dict[str, float]:
    """Per worker kind, how many processes say they lead it."""
    counted: dict[str, float] = defaultdict(float)
    for labels, led in samples["cardroom_worker_leading"]:
        counted[labels["worker"]] += led
    return dict(counted)


async def scrape(http: httpx.AsyncClient) -> dict[str, list[tuple[dict[str, str], float]]]:
    response = await http.get("/metrics", headers=FRESH)
    assert response.status_code == 200, response.text
    # Prometheus's text format, its version and charset each named once.
    assert response.headers["content-type"] == "text/plain; version=1.0.0; charset=utf-8"
    return parse(response.text)


async def play(http: httpx.AsyncClient, index: int) -> int:
    """Seat a table and send COMMANDS_PER_TABLE commands, each on a new connection."""
    rng = random.Random(index)
    game, seats = ("pitch", 3) if index % 2 else ("forty-five", 4)
    table = ok(await http.post("/tables", json={"game": game, "seats": seats}, headers=FRESH), 201)
    path = f"/tables/{table['id']}"
    tokens = [
        ok(await http.post(f"{path}/seats/{s}", json={"name": f"p{s}"}, headers=FRESH), 201)[
            "token"
        ]
        for s in range(seats)
    ]
    for _ in range(COMMANDS_PER_TABLE):
        seat = ok(await http.get(path, headers=FRESH))["to_act"][0]
        await random_action(http, table["id"], tokens[seat], rng, headers=FRESH)
    return seats


class Run(NamedTuple):
    server: Server
    database_url: str
    stop: Callable[[], None]


@pytest.fixture(scope="module")
def run() -> Iterator[Run]:
    """One ``cardroom serve --workers 2`` for the module; the last test stops it."""
    database_url = services.fresh_database("metrics_")
    with ExitStack() as stack:
        server = stack.enter_context(running_server(database_url, services.redis_url(), workers=2))
        yield Run(server, database_url, stack.close)


@pytest.fixture
async def http(run: Run) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=run.server.base, timeout=30) as client:
        yield client


def worker_pids(samples: dict[str, list[tuple[dict[str, str], float]]]) -> set[int]:
    return {int(labels["pid"]) for labels, _ in samples["cardroom_worker_leading"]}


def counted_by(directory: str, pid: int, name: str, **labels: str) -> float:
    """What one worker counted, from its own file."""
    merged = MultiProcessCollector.merge([str(Path(directory) / f"counter_{pid}.db")])  # type: ignore[no-untyped-call]
    return sum(
        float(s.value)
        for family in merged
        for s in family.samples
        if s.name == name and s.labels == labels
    )


async def settled(
    http: httpx.AsyncClient, gone: int | None = None
) -> dict[str, list[tuple[dict[str, str], float]]]:
    """A scrape once two workers run (not ``gone``) and each kind has its leader. A
    connection the killed worker held is dropped with it: the scrape is made again."""
    deadline = time.monotonic() + 20
    while True:
        try:
            samples = await scrape(http)
        except httpx.TransportError:
            assert gone is not None and time.monotonic() < deadline
            continue
        pids = worker_pids(samples)
        if len(pids) == 2 and gone not in pids and leaders(samples) == dict.fromkeys(KINDS, 1.0):
            return samples
        assert time.monotonic() < deadline, samples["cardroom_worker_leading"]
        await asyncio.sleep(0.2)


async def test_every_scrape_counts_every_worker_once(http: httpx.AsyncClient, run: Run) -> None:
    pids = worker_pids(await settled(http))
    directory = psutil.Process(next(iter(pids))).environ()["PROMETHEUS_MULTIPROC_DIR"]

    await asyncio.gather(*(play(http, i) for i in range(TABLES)))
    # A refused command and a replayed one are counted apart from the accepted ones.
    table = ok(await http.post("/tables", json={"game": "pitch", "seats": 2}), 201)
    path = f"/tables/{table['id']}"
    tokens = [
        ok(await http.post(f"{path}/seats/{s}", json={"name": "p"}), 201)["token"] for s in (0, 1)
    ]
    waiting = 1 - ok(await http.get(path))["to_act"][0]
    refused = await http.post(
        f"{path}/actions", json={"type": "pass"}, headers=bearer(tokens[waiting])
    )
    assert refused.status_code == 409 and refused.json()["code"] == "not-your-turn"
    acting = 1 - waiting
    keyed = {**bearer(tokens[acting]), "Idempotency-Key": "once"}
    for _ in range(2):
        ok(await http.post(f"{path}/actions", json={"type": "pass"}, headers=keyed))

    # Both workers took commands: the scrapes below cannot all be one worker's own count.
    commands = "cardroom_commands_total"
    assert all(counted_by(directory, p, commands, outcome="accepted") for p in pids), (
        "one worker took every command"
    )
    # A worker whose cached snapshot is behind the other's commit loses the race and
    # decides again: conflicts happen without any client racing, and are counted.
    conflicts = sum(counted_by(directory, p, "cardroom_version_conflicts_total") for p in pids)
    with psycopg.connect(run.database_url) as conn:
        row = conn.execute("SELECT count(*) FROM events").fetchone()
    assert row is not None
    for _ in range(8):
        samples = await scrape(http)
        assert value(samples, "cardroom_commands_total", outcome="accepted") == COMMANDS + 1
        assert value(samples, "cardroom_commands_total", outcome="not-your-turn") == 1
        assert value(samples, "cardroom_commands_total", outcome="replayed") == 1
        assert value(samples, "cardroom_events_appended_total") == row[0]
        assert value(samples, "cardroom_version_conflicts_total") == conflicts
        assert leaders(samples) == dict.fromkeys(KINDS, 1.0)

    # The relay and projector catch up, and the lag says so.
    deadline = time.monotonic() + 10
    while True:
        samples = await scrape(http)
        behind = value(samples, "cardroom_relay_lag_events") + value(
            samples, "cardroom_projector_lag_events"
        )
        if behind == 0 or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.2)
    assert behind == 0
    assert value(samples, "cardroom_relay_lag_seconds") == 0
    assert {labels["projection"] for labels, _ in samples["cardroom_projector_lag_events"]} == {
        "scoresheet",
        "standings",
    }
    assert value(samples, "cardroom_timekeeper_heartbeat_age_seconds") < 3


async def test_requests_are_counted_by_route_and_status_over_both_workers(
    http: httpx.AsyncClient,
) -> None:
    table = ok(await http.post("/tables", json={"game": "pitch", "seats": 2}), 201)
    route = {"method": "GET", "path": "/tables/{table_id}", "app_name": "cardroom"}

    def answered(samples: dict[str, list[tuple[dict[str, str], float]]], status: str) -> float:
        return value(samples, "cardroom_requests_total", **route, status_code=status)

    def timed(samples: dict[str, list[tuple[dict[str, str], float]]], status: str) -> float:
        name = "cardroom_request_duration_seconds_count"
        return value(samples, name, **route, status_code=status)

    before = await scrape(http)
    for _ in range(10):
        assert (await http.get(f"/tables/{table['id']}", headers=FRESH)).status_code == 200
    for _ in range(3):
        missing = await http.get(f"/tables/{uuid.uuid4()}", headers=FRESH)
        assert missing.status_code == 404
    after = await scrape(http)
    assert answered(after, "200") - answered(before, "200") == 10
    assert answered(after, "404") - answered(before, "404") == 3
    assert timed(after, "200") - timed(before, "200") == 10
    assert timed(after, "404") - timed(before, "404") == 3
    assert value(after, "cardroom_requests_in_progress", **route) == 0


async def test_a_killed_worker_takes_its_leadership_with_it(http: httpx.AsyncClient) -> None:
    before = await scrape(http)
    counted = value(before, "cardroom_commands_total", outcome="accepted")
    (victim,) = (
        int(labels["pid"])
        for labels, led in before["cardroom_worker_leading"]
        if led and labels["worker"] == "relay"
    )
    os.kill(victim, signal.SIGKILL)
    # uvicorn replaces the worker, the supervisor buries its gauges, a standby leads.
    samples = await settled(http, gone=victim)
    # What the dead worker counted is still counted.
    assert value(samples, "cardroom_commands_total", outcome="accepted") == counted
    # and no gauge of its stays, at its last value, beside its successor's.
    stale = [
        name
        for name, found in samples.items()
        for labels, _ in found
        if labels.get("pid") == str(victim)
    ]
    assert not stale, stale


async def test_a_killed_workers_held_requests_leave_the_gauge_with_it(
    http: httpx.AsyncClient, run: Run
) -> None:
    """``cardroom_held_requests`` sums the live workers only: a dead worker's count
    stayed in the sum for good (its file kept its last value)."""
    table = ok(await http.post("/tables", json={"game": "pitch", "seats": 2}), 201)
    path = f"/tables/{table['id']}"
    tag = (await http.get(path)).headers["etag"]

    async def poll() -> None:
        async with httpx.AsyncClient(base_url=run.server.base, timeout=90) as own:
            await own.get(f"{path}?wait=60", headers={"If-None-Match": tag})

    polls = [asyncio.create_task(poll()) for _ in range(8)]  # spread over both workers
    try:
        await until_value(http, "cardroom_held_requests", lambda held: held == len(polls))
        victim = next(iter(worker_pids(await scrape(http))))
        os.kill(victim, signal.SIGKILL)
        await settled(http, gone=victim)
    finally:
        for task in polls:
            task.cancel()
        await asyncio.gather(*polls, return_exceptions=True)
    await until_value(http, "cardroom_held_requests", lambda held: held == 0)


async def until_value(http: httpx.AsyncClient, name: str, wanted: Callable[[float], bool]) -> None:
    deadline = time.monotonic() + 20
    while not wanted(found := value(await scrape(http), name)):
        assert time.monotonic() < deadline, f"{name} stayed at {found}"
        await asyncio.sleep(0.1)


async def test_a_stopped_server_removes_its_metrics_directory(
    http: httpx.AsyncClient, run: Run
) -> None:
    pids = worker_pids(await scrape(http))
    directory = Path(psutil.Process(next(iter(pids))).environ()["PROMETHEUS_MULTIPROC_DIR"])
    assert any(directory.glob("counter_*.db"))
    run.stop()
    assert not directory.exists(), "the next run would report this run's counts"
