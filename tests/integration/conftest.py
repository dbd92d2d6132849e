"""Fixtures shared by the integration tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from psycopg_pool import AsyncConnectionPool

from tests.support import services
from tests.support.redis_server import RedisServer
from tests.support.two_servers import clients_of, two_servers


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    """A Redis of the module's own, which its tests may stop and restart."""
    server = RedisServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
async def pool(database_url: str) -> AsyncIterator[AsyncConnectionPool[Any]]:
    """Autocommit connections to ``database_url`` (a module names a database of its own)."""
    async with services.connection_pool(database_url) as pool:
        yield pool


@pytest.fixture(scope="module")
def servers(request: pytest.FixtureRequest) -> Iterator[tuple[list[str], str]]:
    """Two server processes on one fresh database, shared by the module's tests: their
    base URLs and the operator token (:func:`tests.support.two_servers.two_servers`)."""
    label = request.module.__name__.rpartition(".test_")[2]
    with two_servers(label) as servers:
        yield servers


@pytest.fixture
async def clients(servers: tuple[list[str], str]) -> AsyncIterator[list[httpx.AsyncClient]]:
    """A client of each of the two ``servers``."""
    async with clients_of(servers[0]) as clients:
        yield clients
