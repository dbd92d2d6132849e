"""Timed tournament rounds (DESIGN 14) against a real Postgres, on a clock the test moves:
at ``round_minutes`` the timekeeper calls time on each unfinished table of the round,
exactly once; the deal in progress is played out and the game ends before the next one
with ``result.reason = "time"``; the tournament records it and its export verifies."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from psycopg_pool import AsyncConnectionPool

from domain import computer
from domain import table as tables
from domain.events import GameTimed, HandScored, TimeCalled
from domain.tournament.model import Format
from service.audit.tournament_export import tournament_lines
from service.audit.tournament_verify import verify_tournament_lines
from service.workers.timekeeper import Timekeeper
from service.write.codec import event_decoder
from service.write.handler import TableService
from service.write.store import EventStore
from service.write.tournament_store import TournamentStore
from service.write.tournaments import TournamentService
from tests.domain.tournament.rounds import bridge_terms
from tests.support import services
from tests.support.clock import FakeClock

MINUTES = 30


@pytest.fixture(scope="module")
def database_url() -> str:
    return services.fresh_database("rounds_")


async def timed_round(
    pool: AsyncConnectionPool[Any], clock: FakeClock
) -> tuple[TournamentService, str, str]:
    """A one-round Reserve Bridge Swiss of two players, timed; its id and its table."""
    service = TableService(EventStore(pool), clock=clock)
    rounds = TournamentService(TournamentStore(pool), service, clock=clock)
    terms = bridge_terms("Timed", Format.SWISS, rounds=1, round_minutes=MINUTES)
    tournament_id, _ = await rounds.create(
        terms,
        decks=None,
        first_dealer=None,
        command={},
    )
    for name in ("Ann", "Bob"):
        await rounds.enter(tournament_id, [name], computer=False, actor="director")
    paired = await rounds.pair_round(tournament_id, "director")
    return rounds, tournament_id, paired.rounds[-1].tables[0].table


async def play(service: TableService, table_id: str, moves: int) -> None:
    """``moves`` commands, each by the seat to act (the computer chooses for it)."""
    for _ in range(moves):
        table = (await service.load(table_id)).table
        if table.status != "playing":
            return
        seat = tables.to_act(table)[0]
        command = computer.choose(table, seat)
        await service.act(table_id, seat, command, if_match=None, idempotency_key=None)


async def test_time_is_called_once_and_the_game_ends_when_the_deal_is_over(
    pool: AsyncConnectionPool[Any],
) -> None:
    clock = FakeClock()
    rounds, tournament_id, table_id = await timed_round(pool, clock)
    service = rounds.tables
    table = (await service.load(table_id)).table
    assert table.ends_at == clock.now + timedelta(minutes=MINUTES)
    await play(service, table_id, 8)
    keeper = Timekeeper(service, None, clock)
    clock.set(table.ends_at - timedelta(milliseconds=1))
    assert await keeper.step() == 0
    clock.set(table.ends_at)
    assert await keeper.step() == 1
    clock.advance(60)
    assert await keeper.step() == 0, "time is called once"
    while (await service.load(table_id)).table.status == "playing":
        await play(service, table_id, 1)
    ended = (await service.load(table_id)).table
    assert ended.result is not None and ended.result.reason == "time"
    # The game's own view agrees: it ended, won by the side ahead (nobody when level).
    view = tables.view(ended, "spectator")
    assert (view.phase, view.winners) == ("finished", ended.result.winners)
    decode = event_decoder("reserve-bridge").decode
    events = [decode(s.data) for s in await service.store.read_stream(table_id, 0, 10_000)]
    called = next(i for i, e in enumerate(events) if isinstance(e, TimeCalled))
    assert sum(isinstance(e, HandScored) for e in events[called:]) == 1, "the deal in play only"
    assert sum(isinstance(e, TimeCalled) for e in events) == 1
    assert isinstance(next(e for e in reversed(events) if isinstance(e, GameTimed)), GameTimed)
    after = await rounds.score_table(tournament_id, table_id)
    scored = after.rounds[0].results[table_id]
    assert scored.reason == "time" and after.status == "finished"
    if ended.result.winners:
        assert sorted(scored.outcomes) == ["loss", "win"]
    else:
        assert scored.outcomes == ["draw", "draw"], "level when time was up"
    lines = [line async for line in tournament_lines(rounds.store, service, tournament_id)]
    report = verify_tournament_lines(b"".join(lines).splitlines())
    assert report.ok, report.failure
