"""A round ends with its last table: a director who pairs the next round, or finishes,
the moment it ends was told 409 ``round-in-progress`` until the rounds worker had looked
and recorded the table (about a second). The requests record it themselves."""

from __future__ import annotations

from typing import Any

import pytest
from psycopg_pool import AsyncConnectionPool

from domain.tournament.model import Format
from service.write import interventions
from service.write.handler import TableService
from service.write.store import EventStore
from service.write.tournament_store import TournamentStore
from service.write.tournaments import TournamentService
from tests.domain.tournament.rounds import bridge_terms
from tests.support import services


@pytest.fixture(scope="module")
def database_url() -> str:
    return services.fresh_database("round_ends_")


async def first_round_ended(pool: AsyncConnectionPool[Any]) -> tuple[TournamentService, str]:
    """A two-round Swiss of two players whose round 1 table was just aborted; no rounds
    worker runs."""
    service = TableService(EventStore(pool))
    rounds = TournamentService(TournamentStore(pool), service)
    terms = bridge_terms("Ends", Format.SWISS, rounds=2)
    tournament_id, _ = await rounds.create(terms, decks=None, first_dealer=None, command={})
    for name in ("Ann", "Bob"):
        await rounds.enter(tournament_id, [name], computer=False, actor="director")
    paired = await rounds.pair_round(tournament_id, "director")
    await interventions.abort(service, paired.rounds[-1].tables[0].table, "the hall closes")
    return rounds, tournament_id


async def test_the_next_round_pairs_the_moment_the_last_table_ends(
    pool: AsyncConnectionPool[Any],
) -> None:
    rounds, tournament_id = await first_round_ended(pool)
    paired = await rounds.pair_round(tournament_id, "director")
    assert [r.number for r in paired.rounds] == [1, 2]
    assert paired.rounds[0].complete


async def test_a_tournament_finishes_the_moment_its_round_ends(
    pool: AsyncConnectionPool[Any],
) -> None:
    rounds, tournament_id = await first_round_ended(pool)
    assert (await rounds.finish(tournament_id, "director")).status == "finished"
