"""Two ``cardroom serve`` processes on one fresh database and one Redis: the shape of
production (several processes), for the tests of anything a process caches."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import httpx

from service.tools.bench.harness import running_server
from tests.support import services


@contextmanager
def two_servers(label: str, first_workers: int = 1) -> Iterator[tuple[list[str], str]]:
    """The base URLs of both servers and their shared operator token."""
    database_url = services.fresh_database(f"{label}_")
    shared = {
        "CARDROOM_OPERATOR_TOKEN": secrets.token_urlsafe(16),
        "CARDROOM_REDIS_PREFIX": f"{label}-{secrets.token_hex(3)}",
    }
    redis_url = services.redis_url()
    with (
        running_server(database_url, redis_url, workers=first_workers, extra_env=shared) as a,
        running_server(database_url, redis_url, extra_env=shared) as b,
    ):
        yield [a.base, b.base], shared["CARDROOM_OPERATOR_TOKEN"]


@asynccontextmanager
async def clients_of(bases: list[str], **options: Any) -> AsyncIterator[list[httpx.AsyncClient]]:
    """A client of each server, in the order of ``bases``."""
    async with (
        httpx.AsyncClient(base_url=bases[0], timeout=30, **options) as first,
        httpx.AsyncClient(base_url=bases[1], timeout=30, **options) as second,
    ):
        yield [first, second]
