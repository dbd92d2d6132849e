"""A rolling update to new pairing rules: while a process of a release that knows only
older ones still runs, it may pair a tournament's rounds, and by rules it does not know
it would pair them otherwise than the tournament's own (``cardroom verify`` would then
fail the event). So a tournament is created under the latest rules every running
process knows, which each says in the application_name of its LISTEN connection."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import psycopg
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from domain.tournament.model import PAIRING_RULES
from service.http.app import create_app
from service.write.store import CHANNEL
from service.write.tournament_store import UNNAMED_RULES
from tests.conftest import make_settings
from tests.support import services
from tests.support.api import OPERATOR, ok, on_app


@pytest.fixture(scope="module")
def database_url() -> str:
    return services.fresh_database("rules_")  # no other test's processes listen here


@pytest.fixture(scope="module")
async def served(database_url: str) -> AsyncIterator[AsyncTestClient[Litestar]]:
    async with AsyncTestClient(create_app(make_settings(database_url))) as client:
        yield client


async def rules_of_a_new_tournament(client: Any) -> int:
    body = {"game": "reserve-bridge", "name": "Rolling", "format": "swiss", "rounds": 2}
    event = ok(await client.post("/tournaments", json=body, headers=OPERATOR), 201)
    tournament = on_app(client, lambda: client.app.state.tournaments.load(event["id"]))
    return int(tournament.created.pairing_rules)


async def test_a_tournament_is_paired_by_the_rules_every_running_process_knows(
    served: Any, database_url: str
) -> None:
    assert await rules_of_a_new_tournament(served) == PAIRING_RULES
    # A process of release 1.13 listens as this one does, under no name.
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as older:
        await older.execute(f"LISTEN {CHANNEL}")
        assert await rules_of_a_new_tournament(served) == UNNAMED_RULES < PAIRING_RULES
    assert await rules_of_a_new_tournament(served) == PAIRING_RULES, "once it has gone"
