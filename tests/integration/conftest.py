"""Fixtures shared by the integration tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.redis_server import RedisServer


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    """A Redis of the module's own, which its tests may stop and restart."""
    server = RedisServer()
    server.start()
    yield server
    server.stop()
