"""`cardroom serve --workers N`: uvicorn's worker processes, each listening on a socket of
its own, with metrics that add up.

uvicorn's workers share one listening socket, and whichever worker is awake when
connections arrive accepts every one of them: 16 connections opened at once to an idle
two-worker server all landed on one worker in 7 tries of 12, and 11 or more did in all 12,
so that one worker saturated its core while the other idled. Here each worker binds a
socket of its own with ``SO_REUSEPORT`` and the kernel spreads new connections over them
by a hash of their addresses (README, Performance). The supervisor holds the port with a
socket that is bound but never listens: it receives no connection, a port already taken
fails at start, and port 0 is chosen once for every worker.

uvicorn starts each worker with multiprocessing's ``spawn`` (a fresh interpreter that
inherits the environment), restarts one that dies, and replaces them all on SIGHUP. A
scrape of ``/metrics`` lands on any one worker, so every worker writes its samples to a
directory of the run (prometheus_client's multiprocess mode, ``PROMETHEUS_MULTIPROC_DIR``,
set before the first worker starts) and answers with all of them (``service.metrics``).
Counters of a dead worker stay (they were counted); its live gauges must go, which is
what ``mark_process_dead`` does, here in the supervisor for every worker it has reaped,
however it ended (stopped, crashed, killed, or replaced).
"""

from __future__ import annotations

import ctypes
import logging
import os
import shutil
import signal
import socket
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn
from litestar import Litestar
from prometheus_client import multiprocess
from uvicorn.supervisors import Multiprocess

from service.http.asgi import app_factory
from service.metrics import MULTIPROC_DIR

log = logging.getLogger("cardroom")
PR_SET_PDEATHSIG = 1  # prctl(2)


@contextmanager
def metrics_directory() -> Iterator[str]:
    """The run's multiprocess metrics directory, in the environment the workers inherit.

    One the operator set is used as it is and left in place; otherwise a new one is
    made under the temporary directory and removed when the run ends, so that no run
    reports the last one's counts."""
    configured = os.environ.get(MULTIPROC_DIR)
    if configured:
        Path(configured).mkdir(parents=True, exist_ok=True)
        yield configured
        return
    directory = tempfile.mkdtemp(prefix="cardroom-metrics-")
    os.environ[MULTIPROC_DIR] = directory
    try:
        yield directory
    finally:
        os.environ.pop(MULTIPROC_DIR, None)
        shutil.rmtree(directory, ignore_errors=True)


def live_gauge_pids(directory: str) -> set[int]:
    """The processes with live gauges in ``directory`` (files ``gauge_live*_<pid>.db``)."""
    pids = set()
    for path in Path(directory).glob("gauge_live*_*.db"):
        pid = path.stem.rsplit("_", 1)[-1]
        if pid.isdigit():
            pids.add(int(pid))
    return pids


def hold_port(host: str, port: int) -> socket.socket:
    """A socket holding ``host:port`` (port 0: a free one) for workers to share with
    ``SO_REUSEPORT``; bound, never listening, so it is given no connection.

    Binding with ``SO_REUSEPORT`` succeeds beside another server of the same user that
    set it too, which would then share that server's connections: a plain bind first
    makes a port already taken, by anyone, fail at start."""
    with bound_socket(host, port, reuse_port=False) as probe:  # OSError when taken
        port = probe.getsockname()[1]
    return bound_socket(host, port, reuse_port=True)


def bound_socket(host: str, port: int, *, reuse_port: bool) -> socket.socket:
    """A TCP socket bound to ``host:port``, not yet listening; with ``SO_REUSEPORT``,
    beside the others of this server."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    return sock


def end_with_supervisor() -> None:
    """In a worker: be sent SIGTERM (a graceful stop) when the supervisor dies.

    A supervisor killed outright (``kill -9``, the OOM killer) left its workers serving,
    unsupervised, on the port: a new ``cardroom serve`` could not bind it until someone
    found and killed them. Linux's parent-death signal ends them instead (elsewhere they
    stay, as before)."""
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM) != 0:
        log.warning("cannot ask to end with the supervisor (errno %d)", ctypes.get_errno())
        return
    if os.getppid() == 1:  # it died before the request was made
        os.kill(os.getpid(), signal.SIGTERM)


class SpreadWorkers(Multiprocess):
    """uvicorn's supervisor, with a listening socket of its own for every worker.

    uvicorn reads :attr:`sockets` each time it starts a worker (at start, to replace a
    dead one, on SIGHUP and SIGTTIN), so the property makes a new socket each time. The
    supervisor closes its own copies at its next look, so that no connection waits,
    once their worker is gone, on a socket nobody accepts from. A worker that stops
    takes its socket with it: connections queued on it, not yet accepted, are reset (on a
    shared socket another worker would have taken them; Linux's
    ``net.ipv4.tcp_migrate_req`` hands them over).

    A socket is handed over bound but not listening: its worker's server listens once its
    app has started (asyncio's ``create_server`` does, after the lifespan). A socket that
    listened from the worker's start was given its share of new connections while the
    worker imported and started, three to five seconds on a 2-core machine, and they
    waited that long, where the workers already serving would have answered them at
    once. A replacement worker (SIGHUP brings each one into service before retiring the
    one it replaces) is now given connections only once it serves. The cost: while no
    worker serves (at the server's start, or when every worker has died at once, or the
    last one after SIGTTOU) a new connection is refused until a worker has started,
    where a listening socket would have queued it for that worker's start."""

    def __init__(self, config: uvicorn.Config) -> None:
        self.holder = hold_port(config.host, config.port)
        config.port = self.holder.getsockname()[1]
        self.handed: list[socket.socket] = []
        super().__init__(config, sockets=[])

    @property
    def sockets(self) -> list[socket.socket]:
        sock = bound_socket(self.config.host, self.config.port, reuse_port=True)
        sock.set_inheritable(True)
        self.handed.append(sock)
        return [sock]

    @sockets.setter
    def sockets(self, given: list[socket.socket]) -> None:
        """uvicorn's constructor stores the sockets it is given: here there are none."""
        assert not given

    def _close_handed(self) -> None:
        while self.handed:
            self.handed.pop().close()

    def keep_subprocess_alive(self) -> None:
        # uvicorn's loop calls this every half second, after the signals. Each worker
        # started since the last look (at start, on a signal, or to replace a dead one
        # just now) needs no copy here: starting it duplicated its socket for it to take.
        super().keep_subprocess_alive()
        self._close_handed()

    def run(self) -> None:
        try:
            super().run()
        finally:
            self._close_handed()
            self.holder.close()


class Supervisor(SpreadWorkers):
    """The workers' supervisor, which also buries the live gauges of the workers it reaped.

    Its loop looks after the workers every half second (a dead one is joined and
    replaced, signals add, remove or replace workers); after each look, every process
    with live gauges that is not a current worker has been reaped, and its gauges go."""

    def __init__(self, config: uvicorn.Config, directory: str) -> None:
        super().__init__(config)
        self.directory = directory

    def keep_subprocess_alive(self) -> None:
        super().keep_subprocess_alive()
        self.bury(exclude={process.pid for process in self.processes})

    def run(self) -> None:
        try:
            super().run()
        finally:
            self.bury(exclude=set())  # every worker has been joined by now

    def bury(self, exclude: set[int | None]) -> None:
        for pid in live_gauge_pids(self.directory) - exclude:
            multiprocess.mark_process_dead(pid, self.directory)  # type: ignore[no-untyped-call]


def worker_app() -> Litestar:
    """The app of a worker (``uvicorn``'s factory, in the worker's process).

    The supervisor's ``cardroom serve`` applied the migrations before starting any
    worker. A worker started later, to replace one that died, may meet a database that
    is down just then: it starts without it and answers 503 until it is back. Failing
    to start instead, it would make uvicorn's supervisor, which takes a worker that
    fails to start for a broken app, stop the whole server, the healthy workers with it.
    A worker that finds the database applies pending migrations: one started by SIGHUP
    after a newer release was installed in place brings its own."""
    end_with_supervisor()
    return app_factory(migrate="if-reachable")
