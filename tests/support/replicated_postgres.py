"""A private Postgres primary with one streaming replica (``pg_basebackup -R``), for the
tests of replica reads (DESIGN 13). Never the shared server: both live in temporary
directories on spare ports, and a test may pause the replica's replay or stop it."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress

import psycopg

from tests.support.postgres_server import PostgresServer, _bin


class StandbyServer(PostgresServer):
    """A replica of ``primary``, cloned on first start."""

    def __init__(self, primary: PostgresServer) -> None:
        super().__init__()
        self.primary = primary

    def start(self) -> None:
        if not self.data.exists():
            if self.as_postgres:
                shutil.chown(self.dir, "postgres")
            self._run(
                _bin("pg_basebackup"),
                "-h",
                "127.0.0.1",
                "-p",
                str(self.primary.port),
                "-U",
                "postgres",
                "-D",
                str(self.data),
                "-R",  # writes primary_conninfo and standby.signal: a streaming replica
                "-X",
                "stream",
                "-c",
                "fast",
            )
        super().start()

    def sql(self, query: str) -> object:
        with psycopg.connect(self.url, autocommit=True) as conn:
            row = conn.execute(query).fetchone()
            return None if row is None else row[0]

    def pause_replay(self) -> None:
        self.sql("SELECT pg_wal_replay_pause()")

    def resume_replay(self) -> None:
        self.sql("SELECT pg_wal_replay_resume()")

    def transactions(self, database: str) -> int:
        """Transactions the replica has run in ``database`` (its statistics)."""
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute("SELECT pg_stat_clear_snapshot()")
            row = conn.execute(
                "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = %s",
                (database,),
            ).fetchone()
        return int(row[0]) if row else 0

    def wait_for(self, database: str, timeout: float = 20.0) -> None:
        """Until the replica has replayed the creation of ``database``."""
        deadline = time.monotonic() + timeout
        while self.sql(f"SELECT count(*) FROM pg_database WHERE datname = '{database}'") != 1:
            if time.monotonic() > deadline:
                raise TimeoutError(f"the replica never saw {database}")
            time.sleep(0.02)


def url_of(server: PostgresServer, database: str) -> str:
    return psycopg.conninfo.make_conninfo(server.url, dbname=database)


@contextmanager
def primary_and_replica() -> Iterator[tuple[PostgresServer, StandbyServer]]:
    primary = PostgresServer()
    primary.start()
    replica = StandbyServer(primary)
    try:
        replica.start()
        yield primary, replica
    finally:
        for server in (replica, primary):
            with suppress(Exception):  # already stopped by the test
                server.stop()
            server.remove()
