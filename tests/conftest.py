"""Shared fixtures: a throw-away Postgres database and Redis key prefix per test session.

Tests talk to the real servers named by CARDROOM_TEST_DATABASE_URL (default: the local
cluster) and CARDROOM_TEST_REDIS_URL; each session gets its own database, dropped at the
end, so parallel runs never meet.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator, Iterator

import psycopg
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.app import create_app
from service.migrate import migrate
from service.settings import Settings

ADMIN_URL = os.environ.get(
    "CARDROOM_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
REDIS_URL = os.environ.get("CARDROOM_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
OPERATOR_TOKEN = "operator-test-token"


@pytest.fixture(scope="session")
def database_url() -> Iterator[str]:
    name = f"cardroom_test_{os.getpid()}_{secrets.token_hex(3)}"
    with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = psycopg.conninfo.make_conninfo(ADMIN_URL, dbname=name)
    migrate(url)
    yield url
    with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def settings(database_url: str) -> Settings:
    return Settings(
        database_url=database_url,
        redis_url=REDIS_URL,
        operator_token=OPERATOR_TOKEN,
        redis_prefix=f"cardroom-test-{secrets.token_hex(4)}",
    )


@pytest.fixture(scope="session")
def app(settings: Settings) -> Litestar:
    return create_app(settings)


@pytest.fixture(scope="session")
async def client(app: Litestar) -> AsyncIterator[AsyncTestClient[Litestar]]:
    async with AsyncTestClient(app) as client:
        yield client
