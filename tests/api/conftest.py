"""Fixtures of the tests of refused input: the operations that take a body, and a check
that a test's requests leave the store as it was."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.support.refusals import Target, make_targets, stored


@pytest.fixture(scope="module")
async def targets(client: Any) -> dict[str, Target]:
    """Shared by a module's tests that only send refused requests (they change nothing)."""
    return await make_targets(client)


@pytest.fixture
async def fresh_targets(client: Any) -> dict[str, Target]:
    """For tests whose requests are accepted."""
    return await make_targets(client)


@pytest.fixture
async def unchanged(database_url: str) -> AsyncIterator[None]:
    """The test's requests leave the store as it was (what the clocks and computers of
    other tests' tables write meanwhile aside)."""
    before = await stored(database_url, by_requests=True)
    yield
    after = await stored(database_url, by_requests=True)
    assert after == before, "a refused request changed the store"
