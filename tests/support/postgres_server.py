"""A private Postgres cluster that a fault test may stop, freeze and start again.

Never the shared server: ``initdb`` into a temporary directory, ``pg_ctl`` as the
``postgres`` user on a spare port, removed at the end.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

import psutil

from tests.support.redis_server import free_port


def _bin(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
    for folder in versions:
        if (folder / name).exists():
            return str(folder / name)
    raise FileNotFoundError(f"{name} not found (install PostgreSQL's server binaries)")


class PostgresServer:
    def __init__(self) -> None:
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="cardroom-pg-"))
        self.data = self.dir / "data"
        self.as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *command: str) -> None:
        subprocess.run(
            [*self.as_postgres, *command], check=True, stdout=subprocess.DEVNULL, cwd=self.dir
        )

    def start(self) -> None:
        if not self.data.exists():
            if self.as_postgres:
                shutil.chown(self.dir, "postgres")
            self._run(_bin("initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres")
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1"
        self._run(
            _bin("pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            options,
            "-w",
            "-l",
            str(self.dir / "log"),
            "start",
        )

    def stop(self) -> None:
        self.thaw()
        self._run(_bin("pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def _processes(self) -> list[psutil.Process]:
        pid = int((self.data / "postmaster.pid").read_text().split()[0])
        postmaster = psutil.Process(pid)
        return [postmaster, *postmaster.children(recursive=True)]

    def freeze(self) -> None:
        """SIGSTOP every process of the cluster: sockets stay open, nothing answers."""
        for process in self._processes():
            process.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        if (self.data / "postmaster.pid").exists():
            for process in self._processes():
                # The postmaster, continued first, may end a backend (its client gone)
                # before the backend's turn comes: an ended one needs no thawing.
                with contextlib.suppress(psutil.NoSuchProcess):
                    process.send_signal(signal.SIGCONT)

    def remove(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)
