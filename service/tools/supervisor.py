"""`cardroom serve --workers N`: uvicorn's worker processes, with metrics that add up.

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

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn
from prometheus_client import multiprocess
from uvicorn.supervisors import Multiprocess

from service.metrics import MULTIPROC_DIR


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


class Supervisor(Multiprocess):
    """uvicorn's supervisor, which also buries the live gauges of the workers it reaped.

    Its loop looks after the workers every half second (a dead one is joined and
    replaced, signals add, remove or replace workers); after each look, every process
    with live gauges that is not a current worker has been reaped, and its gauges go."""

    def __init__(self, config: uvicorn.Config, directory: str) -> None:
        super().__init__(config, sockets=[config.bind_socket()])
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
