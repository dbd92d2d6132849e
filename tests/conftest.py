"""Shared fixtures: real Postgres and Redis (see tests/support/services.py)."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.http.app import create_app
from service.settings import Settings
from tests.support import services

OPERATOR_TOKEN = "operator-test-token"


def pytest_unconfigure(config: pytest.Config) -> None:
    services.cleanup()


# The suite runs on every core (pytest-xdist, `--dist=loadgroup`). Tests that touch no
# server (the rules, the folds, the offline verifier: the seeded playouts above all) go
# to whichever worker is free, one at a time. Every test that talks to Postgres or Redis
# stays on one worker, in order, as in a serial run: side by side they would need twice
# the connections of the shared Postgres (100 by default) and disturb each other's timing.
PURE = frozenset({"domain", "projections", "audit"})
TESTS = Path(__file__).parent


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.relative_to(TESTS).parts[0] not in PURE:
            item.add_marker(pytest.mark.xdist_group("services"))


def make_settings(database_url: str) -> Settings:
    return Settings(
        database_url=database_url,
        redis_url=services.redis_url(),
        operator_token=OPERATOR_TOKEN,
        redis_prefix=f"cardroom-test-{secrets.token_hex(4)}",
        # The suite sends thousands of requests from one address; the rate limits have
        # their own tests (tests/integration/test_rate_limits.py).
        rate_limits=False,
        # On the shared 2-core machine a commit beside other suites' database creations
        # once waited on the disk past the 1.5 s deadline, and the request got its 503
        # as designed; the deadline has tests of its own (tests/api/test_deadline.py,
        # tests/integration/test_database_outage.py), the others are not about time.
        request_seconds=10.0,
    )


@pytest.fixture(scope="session")
def database_url() -> str:
    return services.session_database_url()


@pytest.fixture(scope="session")
def settings(database_url: str) -> Settings:
    return make_settings(database_url)


@pytest.fixture(scope="session")
def app(settings: Settings) -> Litestar:
    return create_app(settings)


@pytest.fixture(scope="session")
async def client(app: Litestar) -> AsyncIterator[AsyncTestClient[Litestar]]:
    async with AsyncTestClient(app) as client:
        yield client
