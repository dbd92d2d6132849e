"""Real Postgres and Redis for the tests, made on first use and cleaned up at the end.

The servers come from CARDROOM_TEST_DATABASE_URL / CARDROOM_TEST_REDIS_URL, else the
local ones on 127.0.0.1; when those do not answer, embedded real servers are started
(as `cardroom serve` does), so the suite runs on a bare machine too. Each session gets
its own database, so parallel runs never meet.
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import cache
from typing import Any
from urllib.parse import urlsplit

import psycopg
from psycopg_pool import AsyncConnectionPool

from service.tools.embedded import Embedded
from service.write.migrate import migrate

LOCAL_POSTGRES = "postgresql://postgres@127.0.0.1:5432/postgres"
LOCAL_REDIS = "redis://127.0.0.1:6379/0"
_embedded: Embedded | None = None
_created: list[tuple[str, str]] = []  # (admin url, database name)


def _answers(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def _embedded_servers() -> Embedded:
    global _embedded
    if _embedded is None:
        _embedded = Embedded(os.environ.get("CARDROOM_TEST_DATA_DIR", ".cardroom/test"))
    return _embedded


def _server_url(variable: str, local: str, start: Callable[[Embedded], str]) -> str:
    """The URL in ``variable`` if it is set; else ``local``, if a server answers at its
    address; else that of an embedded server, which ``start`` starts."""
    configured = os.environ.get(variable)
    if configured:
        return configured
    address = urlsplit(local)
    if address.hostname and address.port and _answers(address.hostname, address.port):
        return local
    return start(_embedded_servers())


@cache
def admin_database_url() -> str:
    return _server_url("CARDROOM_TEST_DATABASE_URL", LOCAL_POSTGRES, Embedded.start_postgres)


@cache
def redis_url() -> str:
    return _server_url("CARDROOM_TEST_REDIS_URL", LOCAL_REDIS, Embedded.start_redis)


def fresh_database(label: str = "") -> str:
    """A new, migrated database; dropped by :func:`cleanup`."""
    admin = admin_database_url()
    name = f"cardroom_test_{label}{os.getpid()}_{secrets.token_hex(3)}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    _created.append((admin, name))
    url = psycopg.conninfo.make_conninfo(admin, dbname=name)
    migrate(url)
    return url


@asynccontextmanager
async def connection_pool(
    database_url: str, max_size: int = 8
) -> AsyncIterator[AsyncConnectionPool[Any]]:
    """Autocommit connections to ``database_url``, as the service opens them."""
    async with AsyncConnectionPool(
        database_url, min_size=2, max_size=max_size, kwargs={"autocommit": True}
    ) as pool:
        yield pool


@cache
def session_database_url() -> str:
    return fresh_database()


def cleanup() -> None:
    for admin, name in _created:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    _created.clear()
    if _embedded is not None:
        _embedded.stop()
