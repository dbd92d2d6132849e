"""The tournament worker (service.workers.rounds) against a real Postgres, one step at a
time: a result that failed to be recorded is tried again rather than lost, and a
tournament whose next round cannot be paired never holds up one whose round is due."""

from __future__ import annotations

from typing import Any

import pytest
from msgspec.structs import replace
from psycopg_pool import AsyncConnectionPool

from domain.commands import Resign
from domain.tournament.model import Format
from service.read.watch import TableWatcher
from service.refusals import CommandConflict
from service.workers.rounds import RoundKeeper
from service.write.handler import TableService
from service.write.store import EventStore
from service.write.tournament_store import TournamentStore
from service.write.tournaments import TournamentService
from tests.domain.tournament.rounds import bridge_terms
from tests.support import services


@pytest.fixture(scope="module")
def database_url() -> str:
    return services.fresh_database("keeper_")


class FailingOnce(TournamentService):
    """Its first attempt to record a table's result fails as a conflict that outlasted its
    retries would (another process kept changing the tournament)."""

    failed = False

    async def score_table(self, tournament_id: str, table_id: str) -> Any:
        if not self.failed:
            self.failed = True
            raise CommandConflict("the tournament kept changing; try again")
        return await super().score_table(tournament_id, table_id)


async def round_played(rounds: TournamentService, *, withdraw: bool = False) -> str:
    """A Swiss of two, three rounds paired as each ends, whose round 1 table has ended (Ann
    resigned); with ``withdraw`` Bob withdrew first, leaving too few for round 2."""
    terms = replace(bridge_terms("Keeper", Format.SWISS, rounds=3), auto_rounds=True)
    tournament_id, _ = await rounds.create(terms, decks=None, first_dealer=None, command={})
    entries = [
        (await rounds.enter(tournament_id, [name], computer=False, actor="director"))[0]
        for name in ("Ann", "Bob")
    ]
    paired = await rounds.pair_round(tournament_id, "director")
    if withdraw:
        await rounds.withdraw(tournament_id, entries[1], "director")
    table = paired.rounds[-1].tables[0]
    ann = table.seats.index(entries[0])
    await rounds.tables.act(table.table, ann, Resign(), if_match=None, idempotency_key=None)
    return tournament_id


def service(pool: AsyncConnectionPool[Any], kind: type[TournamentService]) -> TournamentService:
    return kind(TournamentStore(pool), TableService(EventStore(pool)))


async def test_a_result_that_failed_to_be_recorded_is_recorded_at_the_next_step(
    pool: AsyncConnectionPool[Any], database_url: str
) -> None:
    rounds = service(pool, FailingOnce)
    tournament_id = await round_played(rounds)
    keeper = RoundKeeper(rounds, TableWatcher(database_url))
    await keeper.step()
    assert not (await rounds.load(tournament_id)).rounds[0].complete
    await keeper.step()
    tournament = await rounds.load(tournament_id)
    assert tournament.rounds[0].complete and len(tournament.rounds) == 2


async def test_a_tournament_that_cannot_be_paired_never_holds_up_one_that_can(
    pool: AsyncConnectionPool[Any], database_url: str
) -> None:
    rounds = service(pool, TournamentService)
    stuck = await round_played(rounds, withdraw=True)
    due = await round_played(rounds)
    keeper = RoundKeeper(rounds, TableWatcher(database_url), batch=1)
    for _ in range(4):
        await keeper.step()
    assert len((await rounds.load(stuck)).rounds) == 1, "one entry left cannot fill a table"
    assert len((await rounds.load(due)).rounds) == 2


class FailingOn(TournamentService):
    """Recording the result of the tournament ``broken`` fails every time, as a bug would."""

    broken: str | None = None

    async def score_table(self, tournament_id: str, table_id: str) -> Any:
        if tournament_id == self.broken:
            raise RuntimeError("a bug in recording this result")
        return await super().score_table(tournament_id, table_id)


async def test_a_result_that_keeps_failing_never_holds_up_the_others(
    pool: AsyncConnectionPool[Any], database_url: str
) -> None:
    rounds = service(pool, FailingOn)
    assert isinstance(rounds, FailingOn)
    rounds.broken = await round_played(rounds)  # its table ended first
    fine = await round_played(rounds)
    keeper = RoundKeeper(rounds, TableWatcher(database_url), batch=1)
    for _ in range(3):
        await keeper.step()
    assert not (await rounds.load(rounds.broken)).rounds[0].complete
    assert (await rounds.load(fine)).rounds[0].complete
