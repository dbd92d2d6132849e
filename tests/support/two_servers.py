"""Two ``cardroom serve`` processes on one fresh database and one Redis: the shape of
production (several processes), for the tests of anything a process caches."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager

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
