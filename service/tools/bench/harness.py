"""Shared pieces of the benchmarks: a throw-away database, a real server, percentiles."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import IO, Any, NamedTuple

import httpx
import psutil
import psycopg

from service.write.migrate import migrate

DEFAULT_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def scratch_database(admin_url: str) -> Iterator[str]:
    """A new, migrated database on ``admin_url``'s server, dropped afterwards."""
    name = f"cardroom_bench_{secrets.token_hex(4)}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        url = psycopg.conninfo.make_conninfo(admin_url, dbname=name)
        migrate(url)
        yield url
    finally:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class Server(NamedTuple):
    base: str
    operator: str
    pid: int
    postmaster: int  # the pid of the Postgres the server uses (see CpuMeter)


def postmaster_of(database_url: str) -> int:
    """The pid of the Postgres server behind ``database_url``: a backend's parent."""
    with psycopg.connect(database_url) as conn:
        row = conn.execute("SELECT pg_backend_pid()").fetchone()
        assert row is not None
        # Asked while connected: the backend ends with the connection.
        parent = psutil.Process(row[0]).parent()
    assert parent is not None, "the benchmark runs on the machine of its Postgres"
    return parent.pid


# What one client may hold open or send at once, unbounded: a benchmark's load all comes
# from one address (service.http.holds, service.http.protocol).
UNBOUNDED_CLIENTS = {
    "CARDROOM_HELD_PER_ADDRESS": "0",
    "CARDROOM_HELD_PER_TOKEN": "0",
    "CARDROOM_BODIES_PER_ADDRESS": "0",
}


@contextmanager
def running_server(
    database_url: str,
    redis_url: str,
    workers: int = 1,
    extra_env: dict[str, str] | None = None,
    *,
    rate_limits: bool = False,
    output: IO[Any] | None = None,
) -> Iterator[Server]:
    """``cardroom serve`` in a subprocess: its base URL, operator token and pid. Its
    output (the banner and its logs) goes to ``output`` when given, else to stderr.

    Rate limits are off unless asked for, and with them the bounds on what one client
    holds open or sends at once: a benchmark measures the service, not its throttle,
    and its load comes from one address."""
    port = free_port()
    token = secrets.token_urlsafe(16)
    env = {
        **os.environ,
        "CARDROOM_DATABASE_URL": database_url,
        "CARDROOM_REDIS_URL": redis_url,
        "CARDROOM_OPERATOR_TOKEN": token,
        "CARDROOM_REDIS_PREFIX": f"bench-{secrets.token_hex(3)}",
        "CARDROOM_LOG_LEVEL": "warning",
        "CARDROOM_RATE_LIMITS": "1" if rate_limits else "0",
        **({} if rate_limits else UNBOUNDED_CLIENTS),
        **(extra_env or {}),
    }
    command = [sys.executable, "-m", "service.tools.cli", "serve", "--port", str(port)]
    with _serving([*command, "--workers", str(workers)], port, env, output) as (base, pid):
        yield Server(base, token, pid, postmaster_of(database_url))


@contextmanager
def running_floor(
    database_url: str, workers: int = 1, *, output: IO[Any] | None = None
) -> Iterator[Server]:
    """The stack's floor (``floor_app``) in a subprocess, served as ``cardroom serve``
    serves the service: its base URL and pid (no operator token: it has no API)."""
    port = free_port()
    env = {**os.environ, "CARDROOM_DATABASE_URL": database_url, "CARDROOM_LOG_LEVEL": "warning"}
    module = "service.tools.bench.floor_app"
    command = [sys.executable, "-m", module, "--port", str(port), "--workers", str(workers)]
    with _serving(command, port, env, output) as (base, pid):
        yield Server(base, "", pid, postmaster_of(database_url))


@contextmanager
def _serving(
    command: list[str], port: int, env: dict[str, str], output: IO[Any] | None
) -> Iterator[tuple[str, int]]:
    """``command`` in a subprocess until its ``/readyz`` answers 200; stopped after."""
    # The server's banner goes to stderr: stdout carries only the JSON figures.
    process = subprocess.Popen(command, env=env, stdout=output or sys.stderr, stderr=output)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.1)
        yield base, process.pid
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


class CpuMeter:
    """CPU seconds spent by the server's processes, Postgres and this load generator.

    Postgres is the processes of the one server the service uses (its postmaster and
    what it started), not every ``postgres`` process on the machine: on a shared machine
    another cluster's work would otherwise be charged to the benchmark.

    Counted per process: one that ends before the meter is read (a Postgres backend whose
    client closed) takes its seconds with it, so the figure can fall short, never below
    zero (summed over whichever processes were alive, it once came out negative)."""

    def __init__(self, server: Server) -> None:
        self.server = psutil.Process(server.pid)
        self.postmaster = psutil.Process(server.postmaster)
        self.start = self._sample()

    def _sample(self) -> dict[str, dict[int, float]]:
        server = [self.server, *self.server.children(recursive=True)]
        postgres = [self.postmaster, *self.postmaster.children()]
        return {
            "server": cpu_by_process(server),
            "postgres": cpu_by_process(postgres),
            "load_generator": cpu_by_process([psutil.Process()]),
        }

    def spent(self) -> dict[str, float]:
        """CPU seconds by part since the meter started."""
        return {part: sum(each) for part, each in self.spent_by_process().items()}

    def spent_by_process(self) -> dict[str, list[float]]:
        """CPU seconds of each process of each part since the meter started, the busiest
        first: a server whose total leaves cores idle may still have one worker pinned."""
        end = self._sample()
        return {
            part: sorted(
                (s - self.start[part].get(pid, 0.0) for pid, s in processes.items()),
                reverse=True,
            )
            for part, processes in end.items()
        }

    def per_thousand(self, operations: int, elapsed: float) -> dict[str, float]:
        """CPU seconds per 1,000 operations by part, and how busy the cores were."""
        spent = self.spent()
        result = {part: round(s * 1000 / max(operations, 1), 3) for part, s in spent.items()}
        result["cores_busy"] = round(sum(spent.values()) / elapsed, 2)
        return result


def cpu_seconds(processes: list[psutil.Process]) -> float:
    return sum(cpu_by_process(processes).values())


def cpu_by_process(processes: list[psutil.Process]) -> dict[int, float]:
    """User and system CPU seconds of each process still alive, by pid."""
    seconds = {}
    for process in processes:
        try:
            times = process.cpu_times()
        except psutil.NoSuchProcess:
            continue
        seconds[process.pid] = times.user + times.system
    return seconds


def percentiles(samples: Sequence[float]) -> dict[str, Any]:
    """p50 and p99 (and the count) of ``samples``, in milliseconds."""
    if not samples:
        return {"count": 0}
    ordered = sorted(samples)
    cuts = (
        statistics.quantiles(ordered, n=100, method="inclusive")
        if len(ordered) > 1
        else [ordered[0]] * 99
    )
    return {
        "count": len(ordered),
        "p50_ms": round(cuts[49] * 1000, 2),
        "p99_ms": round(cuts[98] * 1000, 2),
        "max_ms": round(ordered[-1] * 1000, 2),
    }
