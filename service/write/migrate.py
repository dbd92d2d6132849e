"""Versioned SQL migrations, applied by ``cardroom migrate`` and at start-up (DESIGN 4).

Files ``migrations/NNNN_name.sql`` run once each, in order, each in its own transaction,
under an advisory lock so that several processes starting together apply them once.
Then a store restored from another cluster's dump is made readable to its consumers
again (:mod:`service.write.restored`).
"""

from __future__ import annotations

import re
from importlib import resources

import psycopg

from service.write.restored import restamp_if_restored

_FILE = re.compile(r"^(\d{4})_(\w+)\.sql$")
_LOCK = 0x6361726472  # "cardr": one advisory lock id for migrations


def available() -> list[tuple[int, str, str]]:
    found = []
    for entry in resources.files("service.write.migrations").iterdir():
        match = _FILE.match(entry.name)
        if match:
            found.append((int(match[1]), match[2], entry.read_text()))
    return sorted(found)


def migrate(conninfo: str) -> list[str]:
    """Apply every pending migration; the names applied."""
    applied: list[str] = []
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (_LOCK,))
        try:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version integer PRIMARY KEY, name text NOT NULL,"
                " applied_at timestamptz NOT NULL DEFAULT now())"
            )
            done = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
            for version, name, sql in available():
                if version in done:
                    continue
                with conn.transaction():
                    conn.execute(sql.encode())  # trusted migration text, several statements
                    conn.execute(
                        "INSERT INTO schema_migrations (version, name) VALUES (%s, %s)",
                        (version, name),
                    )
                applied.append(f"{version:04d}_{name}")
            restamp_if_restored(conn)
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_LOCK,))
    return applied
