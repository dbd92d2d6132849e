"""``cardroom serve --workers 2`` spreads connections over its workers.

With one listening socket shared by the workers, connections opened together all went to
whichever worker was awake first (all 16 on one worker in 7 tries of 12). Each worker now
listens on a socket of its own (``SO_REUSEPORT``): the kernel spreads connections by a
hash of their addresses, so 16 at once land on one worker about once in 30,000 tries.
A worker the supervisor replaces gets a socket of its own too, and no connection is left
waiting on a socket that nobody accepts from, nor on one whose worker has not started.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from urllib.parse import urlsplit

import psutil
import pytest

from service.tools.bench.harness import Server, running_server
from service.tools.supervisor import hold_port
from tests.support import services
from tests.support.workers import workers

CONNECTIONS = 16


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    database_url = services.fresh_database("spread_")
    with running_server(database_url, services.redis_url(), workers=2) as running:
        yield running


async def answered_together(server: Server) -> Counter[int]:
    """Open ``CONNECTIONS`` connections at once, each answering a request before any
    closes; how many each worker holds."""
    address = urlsplit(server.base)
    assert address.hostname is not None and address.port is not None
    opened = [
        await asyncio.wait_for(asyncio.open_connection(address.hostname, address.port), 5)
        for _ in range(CONNECTIONS)
    ]
    try:
        for reader, writer in opened:
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
            await writer.drain()
            status = await asyncio.wait_for(reader.readline(), 5)
            assert status.startswith(b"HTTP/1.1 200"), status
        ours = {writer.get_extra_info("sockname")[1] for _, writer in opened}
        held: Counter[int] = Counter()
        for worker in workers(server.pid):
            for connection in worker.net_connections(kind="tcp"):
                if connection.raddr and connection.raddr.port in ours:
                    held[worker.pid] += 1
        return held
    finally:
        for _, writer in opened:
            writer.close()


async def until_both_serve(server: Server) -> None:
    """Until connections reach both workers: each is given some once it has started."""
    for _ in range(60):
        if len(await answered_together(server)) == 2:
            return
        await asyncio.sleep(0.5)
    raise AssertionError("a worker never served")


async def test_connections_opened_together_reach_every_worker(server: Server) -> None:
    await until_both_serve(server)
    for _ in range(3):
        held = await answered_together(server)
        assert sum(held.values()) == CONNECTIONS
        assert len(held) == 2, f"one worker took them all: {held}"


async def replaced(server: Server, victim: int) -> int:
    """Kill ``victim``; its replacement, once it answers."""
    before = {worker.pid for worker in workers(server.pid)}
    os.kill(victim, signal.SIGKILL)
    deadline = time.monotonic() + 60
    while True:
        now = {worker.pid for worker in workers(server.pid)}
        if victim not in now and len(now) == len(before):
            break
        assert time.monotonic() < deadline, "the supervisor did not replace the worker"
        await asyncio.sleep(0.2)
    replacement = (now - before).pop()
    for _ in range(60):  # until the replacement has started serving
        if replacement in await answered_together(server):
            break
        await asyncio.sleep(0.5)
    return replacement


async def test_replaced_workers_listen_and_no_connection_is_left_unanswered(
    server: Server,
) -> None:
    """Every connection is answered after workers die and are replaced: none waits on a
    dead worker's socket that the supervisor still held. A first worker dies, then its
    replacement (each was handed its socket by another path of the supervisor)."""
    first = await replaced(server, min(worker.pid for worker in workers(server.pid)))
    await replaced(server, first)
    for _ in range(3):
        held = await answered_together(server)
        assert len(held) == 2 and sum(held.values()) == CONNECTIONS


async def test_a_starting_worker_is_given_no_connection_until_it_serves(server: Server) -> None:
    """A replacement caught while it starts (stopped before its imports are done): the
    connections opened meanwhile are all answered by the worker already serving. Its
    socket listened from its start, and the share of them the kernel gave it waited for
    its start, seconds."""
    await until_both_serve(server)
    survivor, victim = (worker.pid for worker in workers(server.pid))
    os.kill(victim, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while not (starting := {w.pid for w in workers(server.pid)} - {survivor, victim}):
        assert time.monotonic() < deadline, "the supervisor did not replace the worker"
        await asyncio.sleep(0.01)
    [replacement] = starting
    os.kill(replacement, signal.SIGSTOP)
    try:
        held = await answered_together(server)
    finally:
        os.kill(replacement, signal.SIGCONT)
    assert held == {survivor: CONNECTIONS}
    await until_both_serve(server)


@pytest.mark.parametrize("reuse_port", [False, True], ids=["plain", "reuse-port"])
def test_a_port_already_taken_fails_at_start(reuse_port: bool) -> None:
    """Whether the port's listener set ``SO_REUSEPORT`` (another ``cardroom serve``) or
    not: a second server must not start, let alone share the first one's connections."""
    with socket.socket() as taken:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, int(reuse_port))
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(OSError):
            hold_port("127.0.0.1", taken.getsockname()[1]).close()
    held = hold_port("127.0.0.1", 0)  # a free port: held, and given to no connection
    with held, pytest.raises(ConnectionRefusedError):
        socket.create_connection(held.getsockname()[:2], timeout=2).close()


def test_serve_with_workers_on_a_port_already_taken_says_so_in_one_line() -> None:
    """As one worker does (uvicorn logs it and exits 3), not with a traceback."""
    env = {
        **os.environ,
        "CARDROOM_DATABASE_URL": services.fresh_database("taken_"),
        "CARDROOM_REDIS_URL": services.redis_url(),
        "CARDROOM_OPERATOR_TOKEN": "a-token-of-the-test",
        "CARDROOM_LOG_FORMAT": "text",
    }
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        command = [sys.executable, "-m", "service.tools.cli", "serve", "--port", port]
        result = subprocess.run(
            [*command, "--workers", "2"], env=env, capture_output=True, text=True, timeout=60
        )
    assert result.returncode == 3
    assert f"cannot listen on 127.0.0.1:{port}: Address already in use" in result.stderr
    assert "Traceback" not in result.stderr


def test_workers_end_when_their_supervisor_is_killed() -> None:
    """A supervisor killed outright (the OOM killer, ``kill -9``) left its workers serving
    unsupervised on the port, which a new ``cardroom serve`` then could not bind."""
    with running_server(services.fresh_database("orphans_"), services.redis_url(), 2) as server:
        serving = workers(server.pid)
        assert len(serving) == 2
        os.kill(server.pid, signal.SIGKILL)
        _, alive = psutil.wait_procs(serving, timeout=30)
        assert not alive, "workers outlived their supervisor"
        port = urlsplit(server.base).port
        assert port is not None
        hold_port("127.0.0.1", port).close()  # free for the next server
