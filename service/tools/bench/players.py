"""``cardroom bench players``: how many mobile players one server keeps happy.

Each seat is a client on one keep-alive connection, as a phone is: it long-polls its view
(``GET /tables/{id}`` with ``If-None-Match`` and ``?wait=``) and, when the view says it is
its turn, thinks for a seeded 1–3 s and sends one of its ``legal_actions`` (picked as the
reference bot picks, ``service.choices``). Spectators, when asked for, long-poll without a
token. The number of players ramps in steps (40, 100, 200, 400, 800, then doubling, up to
``--max``); a step is sustained when its action p99 is at most 100 ms, its long-poll wake
p99 at most 250 ms and nothing failed; a step that misses a latency limit is measured
once more before the ramp stops (:func:`climb`). The figure is the largest step
sustained, with each step's latencies, the CPU split (server, Postgres, load generator)
and what a move costs: the requests it takes and each part's CPU.

A wake is measured from the moment the move that changed the table was *sent* to the
moment a waiting seat's (or spectator's) long poll answered with the new version: the
commit falls between the send and the mover's answer, so this overstates the wake by up
to the action's own latency — the figure errs on the strict side. The mover's own next
poll is not a wake.

The load generator runs in several processes (one per core unless told), each owning
whole tables, so that a slow client does not pass for a slow server.
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import os
import random
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

import msgspec
import uvloop

from service.choices import choose, pick_index
from service.tools.bench import database
from service.tools.bench.client import Connection
from service.tools.bench.harness import (
    CpuMeter,
    Server,
    percentiles,
    running_server,
    scratch_database,
)
from service.tools.bench.load import SEATS, _address

GAME = "forty-five"
FIRST_STEPS = (40, 100, 200, 400, 800)
ACTION_P99_MS = 100.0
WAKE_P99_MS = 250.0
WAIT = 30  # seconds a long poll may be held (the API allows up to 60)
THINK = (1.0, 3.0)
SEATING_CONNECTIONS = 8

_decode = msgspec.json.decode


class Ramp(msgspec.Struct, frozen=True):
    """How the players ramp: seconds a step, the last step, spectators per table, the
    seed of the think times and choices, load-generator processes (0: one per core)."""

    seconds: float
    most: int
    spectators: int = 0
    seed: int = 0
    processes: int = 0


def ladder(most: int) -> Iterator[int]:
    """40, 100, 200, 400, 800, then doubling; the last step is ``most`` itself."""
    step = 0
    for step in FIRST_STEPS:
        if step >= most:
            yield most
            return
        yield step
    while step * 2 < most:
        step *= 2
        yield step
    yield most


async def _seat_tables(base: str, operator: str, count: int) -> list[tuple[str, list[str]]]:
    """``count`` new tables of ``GAME`` with every seat taken: (table id, seat tokens)."""
    seated: list[tuple[str, list[str]]] = []
    remaining = iter(range(count))

    async def seater() -> None:
        conn = Connection(*_address(base))
        await conn.open()
        try:
            for _ in remaining:
                status, _, body = await conn.request(
                    "POST",
                    "/tables",
                    {"Authorization": f"Bearer {operator}"},
                    {"game": GAME, "seats": SEATS},
                )
                assert status == 201, body
                table_id = _decode(body)["id"]
                tokens = []
                for seat in range(SEATS):
                    path = f"/tables/{table_id}/seats/{seat}"
                    status, _, body = await conn.request("POST", path, None, {"name": f"p{seat}"})
                    assert status == 201, body
                    tokens.append(_decode(body)["token"])
                seated.append((table_id, tokens))
        finally:
            await conn.close()

    await asyncio.gather(*(seater() for _ in range(min(SEATING_CONNECTIONS, count))))
    return seated


class _Table:
    """When each version of one table was sent, and long polls answered before the
    mover heard back (matched when it does)."""

    def __init__(self) -> None:
        self.sent: dict[int, float] = {}
        self.early: dict[int, list[tuple[float, list[float]]]] = {}

    def moved(self, version: int, sent_at: float) -> None:
        self.sent[version] = sent_at
        for answered, samples in self.early.pop(version, []):
            samples.append(answered - sent_at)

    def woke(self, version: int, answered: float, samples: list[float]) -> None:
        if version in self.sent:
            samples.append(answered - self.sent[version])
        else:
            self.early.setdefault(version, []).append((answered, samples))


class _Figures:
    def __init__(self) -> None:
        self.actions: list[float] = []
        self.wakes: list[float] = []
        self.spectator_wakes: list[float] = []
        self.refused = 0  # 409/412: the table moved first (a race, not a failure)
        self.requests = 0  # answered, long polls included
        self.failures: list[str] = []


@asynccontextmanager
async def _connected(base: str, f: _Figures) -> AsyncIterator[Connection]:
    """One client's keep-alive connection; the requests answered on it are counted when
    it closes (at the end of the step, when the client is cancelled)."""
    conn = Connection(*_address(base))
    await conn.open()
    try:
        yield conn
    finally:
        f.requests += conn.answered
        await conn.close()


async def _current(
    conn: Connection, path: str, headers: dict[str, str], f: _Figures, who: str
) -> tuple[Any, str]:
    """The decoded view and its entity tag, asked again a second later until the server
    answers 200: an overloaded server's 503 fails the step (with its status in the
    reason), it does not end the client."""
    while True:
        status, answered, body = await conn.request("GET", path, headers)
        if status == 200:
            return _decode(body), answered["etag"]
        f.failures.append(f"{who}'s GET answered {status}")
        await asyncio.sleep(1)


async def _player(
    base: str, table_id: str, seat: int, token: str, table: _Table, rng: random.Random, f: _Figures
) -> None:
    auth = {"Authorization": f"Bearer {token}"}
    path = f"/tables/{table_id}"
    async with _connected(base, f) as conn:
        view, tag = await _current(conn, path, auth, f, "seat")
        while True:
            if seat in view["to_act"] and view["legal_actions"]:
                await asyncio.sleep(rng.uniform(*THINK))
                actions = view["legal_actions"]
                command = choose(actions[pick_index(actions, rng)], rng)
                sent_at, started = time.time(), time.perf_counter()
                status, headers, body = await conn.request(
                    "POST", f"{path}/actions", {**auth, "If-Match": tag}, command
                )
                f.actions.append(time.perf_counter() - started)
                if status == 200:
                    view, tag = _decode(body)["table"], headers["etag"]
                    table.moved(view["version"], sent_at)
                    continue
                if status in (409, 412):
                    f.refused += 1
                else:
                    f.failures.append(f"POST actions answered {status}")
                view, tag = await _current(conn, path, auth, f, "seat")
                continue
            polled = {**auth, "If-None-Match": tag}
            status, headers, body = await conn.request("GET", f"{path}?wait={WAIT}", polled)
            if status == 200:
                view, tag = _decode(body), headers["etag"]
                table.woke(view["version"], time.time(), f.wakes)
            elif status != 304:
                f.failures.append(f"long poll answered {status}")
                await asyncio.sleep(1)


async def _spectator(base: str, table_id: str, table: _Table, f: _Figures) -> None:
    path = f"/tables/{table_id}"
    async with _connected(base, f) as conn:
        _, tag = await _current(conn, path, {}, f, "spectator")
        while True:
            status, headers, body = await conn.request(
                "GET", f"{path}?wait={WAIT}", {"If-None-Match": tag}
            )
            if status == 200:
                tag = headers["etag"]
                table.woke(_decode(body)["version"], time.time(), f.spectator_wakes)
            elif status != 304:
                f.failures.append(f"spectator's long poll answered {status}")
                await asyncio.sleep(1)


async def _play(
    base: str, tables: list[tuple[str, list[str]]], seconds: float, seed: int, spectators: int
) -> dict[str, Any]:
    figures = _Figures()
    tasks = []
    for table_id, tokens in tables:
        table = _Table()
        for seat, token in enumerate(tokens):
            rng = random.Random(f"bench-players:{seed}:{table_id}:{seat}")
            tasks.append(_player(base, table_id, seat, token, table, rng, figures))
        tasks += [_spectator(base, table_id, table, figures) for _ in range(spectators)]
    running = [asyncio.ensure_future(t) for t in tasks]
    done, _ = await asyncio.wait(running, timeout=seconds)
    for task in running:
        task.cancel()
    await asyncio.gather(*running, return_exceptions=True)
    # A player that stopped before the time was up stopped on an error: say which.
    for task in done:
        if not task.cancelled() and task.exception() is not None:
            figures.failures.append(repr(task.exception()))
    return {
        "actions": figures.actions,
        "wakes": figures.wakes,
        "spectator_wakes": figures.spectator_wakes,
        "refused": figures.refused,
        "requests": figures.requests,
        "failures": figures.failures,
    }


def _process(work: tuple[str, list[tuple[str, list[str]]], float, int, int]) -> dict[str, Any]:
    """One load-generator process: its tables' players for ``seconds``, and its CPU.

    On uvloop, as the server is: the load shares the server's cores, so every bit of CPU
    it spends is taken from what is measured."""
    cpu = time.process_time()
    result = uvloop.run(_play(*work))
    result["cpu_seconds"] = time.process_time() - cpu
    return result


def measure_step(server: Server, database_url: str, players: int, ramp: Ramp) -> dict[str, Any]:
    seconds, spectators, processes = ramp.seconds, ramp.spectators, ramp.processes
    base = server.base
    tables = asyncio.run(_seat_tables(base, server.operator, math.ceil(players / SEATS)))
    # The relay and projections first catch up on the seating, as ``bench all`` lets them.
    catch_up = database.wait_for_consumers(database_url)
    shares = [tables[i::processes] for i in range(processes)]
    work = [(base, share, seconds, ramp.seed, spectators) for share in shares if share]
    meter = CpuMeter(server)
    own = time.process_time()
    started = time.monotonic()
    with multiprocessing.get_context("spawn").Pool(len(work)) as pool:
        results = pool.map(_process, work)
    elapsed = time.monotonic() - started
    by_process = meter.spent_by_process()
    spent = {part: sum(each) for part, each in by_process.items()}
    spent["load_generator"] = time.process_time() - own + sum(r["cpu_seconds"] for r in results)
    actions = [s for r in results for s in r["actions"]]
    wakes = [s for r in results for s in r["wakes"]]
    watched = [s for r in results for s in r["spectator_wakes"]]
    failures = [s for r in results for s in r["failures"]]
    requests = sum(r["requests"] for r in results)
    figure: dict[str, Any] = {
        "players": len(tables) * SEATS,
        "tables": len(tables),
        "spectators": len(tables) * spectators,
        "elapsed": round(elapsed, 2),
        "consumer_catch_up_seconds": round(catch_up, 2),
        "actions_per_second": round(len(actions) / seconds, 1),
        "action_latency": percentiles(actions),
        "wake_latency": percentiles(wakes),
        "refused_as_stale": sum(r["refused"] for r in results),
        "failures": len(failures),
        # Busy cores by part over the step (spawning the load processes included).
        "cores_busy": {part: round(s / elapsed, 2) for part, s in spent.items()},
        # Each of the server's processes, the busiest first: the worker that leads the
        # relay and the projector serves its share of the requests besides.
        "server_cores_by_process": [round(s / elapsed, 2) for s in by_process["server"]],
        # What a move costs: the requests it takes (the move, the polls it answers and
        # the polls that follow) and the CPU of each part. Beside the stack floor's CPU
        # per request (``bench all``) these bound how many players the machine can hold.
        "requests_per_action": round(requests / len(actions), 2) if actions else None,
        "cpu_ms_per_action": {
            part: round(1000 * s / len(actions), 2) if actions else None
            for part, s in spent.items()
        },
        "server_cpu_ms_per_request": (
            round(1000 * spent["server"] / requests, 3) if requests else None
        ),
    }
    if spectators:
        figure["spectator_wake_latency"] = percentiles(watched)
    figure["failure_reason"] = _verdict(figure, failures)
    return figure


def _verdict(figure: dict[str, Any], failures: list[str]) -> str | None:
    """Why the step was not sustained, or None."""
    if failures:
        return f"{len(failures)} failed requests, e.g. {failures[0]}"
    action, wake = figure["action_latency"], figure["wake_latency"]
    if not action["count"] or not wake["count"]:
        return "no action or no wake measured (a step too short for the 1-3 s think time?)"
    if action["p99_ms"] > ACTION_P99_MS:
        return f"action p99 {action['p99_ms']} ms > {ACTION_P99_MS:g} ms"
    for waited in (wake, figure.get("spectator_wake_latency", {"count": 0})):
        if waited["count"] and waited["p99_ms"] > WAKE_P99_MS:
            return f"wake p99 {waited['p99_ms']} ms > {WAKE_P99_MS:g} ms"
    return None


def run(admin_url: str, redis_url: str, workers: int, ramp: Ramp) -> dict[str, Any]:
    if not ramp.processes:
        ramp = msgspec.structs.replace(ramp, processes=os.cpu_count() or 1)
    steps: list[dict[str, Any]] = []
    result: dict[str, Any] = {
        "seconds_per_step": ramp.seconds,
        "server_workers": workers,
        "load_processes": ramp.processes,
        "spectators_per_table": ramp.spectators,
        "limits": {"action_p99_ms": ACTION_P99_MS, "wake_p99_ms": WAKE_P99_MS},
        "sustained_players": 0,
        "steps": steps,
    }
    with (
        scratch_database(admin_url) as database_url,
        running_server(database_url, redis_url, workers=workers) as server,
    ):
        measure = partial(measure_step, server, database_url, ramp=ramp)
        sustained, missed = climb(ladder(ramp.most), measure, steps)
        result["sustained_players"] = sustained
        result["stopped_by"] = missed or f"--max {ramp.most} reached"
    return result


def climb(
    rungs: Iterable[int], measure: Callable[[int], dict[str, Any]], steps: list[dict[str, Any]]
) -> tuple[int, str | None]:
    """Measure each rung of the ladder into ``steps`` until one is not sustained: the most
    players sustained, and why one was not (None when every rung was).

    A rung that misses a latency limit is measured once more before the climb stops. At
    the low rungs a p99 is taken over a hundred or so moves, so one stall of the shared
    machine (a checkpoint, another process) decides it: a single miss ended runs at 100
    players that sustained 3,200 on the next try. Two misses in a row are the load's.
    Failed requests end the climb at once."""
    sustained = 0
    for players in rungs:
        step = measure(players)
        steps.append(step)
        if step["failure_reason"] and not step["failures"]:
            step = {**measure(players), "second_try": True}
            steps.append(step)
        if step["failure_reason"]:
            return sustained, step["failure_reason"]
        sustained = step["players"]
    return sustained, None
