"""The tournament aggregate (RULES 5, DESIGN 14): how many rounds it plays and when it
finishes, decided from its events."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from itertools import count

import pytest
from msgspec.structs import replace

from domain.tournament import stream
from domain.tournament.errors import TournamentError
from domain.tournament.events import TournamentEvent, TournamentFinished
from domain.tournament.model import Format, TableResult
from domain.tournament.stream import Tournament
from tests.domain.tournament.rounds import SEED, bridge_terms

AT = datetime(2025, 1, 1, tzinfo=UTC)


def apply(tournament: Tournament, events: list[TournamentEvent]) -> Tournament:
    for event in events:
        tournament = stream.evolve(tournament, event)
    return tournament


def round_robin(field: int) -> Tournament:
    created = stream.create("t", bridge_terms("Club night", Format.ROUND_ROBIN), SEED)
    tournament = stream.start(created)
    for n in range(field):
        tournament = apply(tournament, stream.enter(tournament, f"e{n}", [f"P{n}"]))
    return tournament


def play_round(tournament: Tournament, ids: Iterator[str]) -> Tournament:
    """Pair the next round; the first seat wins at every table."""
    tournament = apply(tournament, stream.pair_next(tournament, SEED, ids, AT))
    for paired in tournament.rounds[-1].tables:
        won = TableResult(tuple(paired.seats), ("win", "loss"), (1, 0))
        tournament = apply(tournament, stream.score(tournament, paired.table, won, "played", SEED))
    return tournament


def test_a_round_robin_plays_its_berger_rounds_though_an_entrant_withdraws() -> None:
    tournament = round_robin(5)
    ids = (f"table {n}" for n in count())
    tournament = play_round(tournament, ids)
    assert tournament.total_rounds == 5
    tournament = apply(tournament, stream.withdraw(tournament, "e0"))
    assert tournament.total_rounds == 5, "the schedule drawn for five stands"
    for _ in range(4):
        assert tournament.status == "playing"
        tournament = play_round(tournament, ids)
    assert tournament.status == "finished" and len(tournament.rounds) == 5


def test_a_round_robin_whose_last_round_seats_nobody_finishes_when_it_is_paired() -> None:
    """Its last round pairs each entrant left with one who withdrew: byes only, no table
    whose result would finish it, so the pairing itself must."""
    tournament = round_robin(4)
    ids = (f"table {n}" for n in count())
    for _ in range(2):
        tournament = play_round(tournament, ids)
    foreseen = apply(tournament, stream.pair_next(tournament, SEED, ids, AT)).rounds[-1]
    for paired in foreseen.tables:
        tournament = apply(tournament, stream.withdraw(tournament, paired.seats[0]))
    tournament = apply(tournament, stream.pair_next(tournament, SEED, ids, AT))
    assert not tournament.rounds[-1].tables and len(tournament.rounds[-1].byes) == 2
    assert tournament.status == "finished"


def test_a_round_robin_asked_for_more_rounds_than_its_schedule_stops_when_all_have_met() -> None:
    created = stream.create("t", bridge_terms("Long night", Format.ROUND_ROBIN, rounds=9), SEED)
    tournament = stream.start(created)
    for n in range(4):
        tournament = apply(tournament, stream.enter(tournament, f"e{n}", [f"P{n}"]))
    ids = (f"table {n}" for n in count())
    tournament = play_round(tournament, ids)
    assert tournament.total_rounds == 3, "four entries meet each other in three rounds"
    for _ in range(2):
        tournament = play_round(tournament, ids)
    assert tournament.status == "finished" and len(tournament.rounds) == 3


def test_a_table_sharing_deals_opens_to_spectators_once_it_and_the_event_are_over() -> None:
    """A table opened as the event ended (the operator racing the director) still plays
    the shared decks: it stays closed until it is over too."""
    created = stream.create("t", bridge_terms("Pairs", Format.DUPLICATE, rounds=1), SEED)
    playing = stream.start(created)
    over = replace(playing, seed="00")
    assert not playing.table_watchable(dealt_decks=True, table_over=True)
    assert not over.table_watchable(dealt_decks=True, table_over=False)
    assert over.table_watchable(dealt_decks=True, table_over=True)


def test_a_round_robin_an_older_version_left_playing_after_its_last_round_can_be_finished() -> None:
    """Before the schedule capped ``rounds``, a round-robin asked for more ended its last
    round without ``tournament_finished``: no round can be paired, and finishing it works."""
    created = stream.create("t", bridge_terms("Old", Format.ROUND_ROBIN, rounds=9), SEED)
    tournament = stream.start(created)
    for n in range(2):
        tournament = apply(tournament, stream.enter(tournament, f"e{n}", [f"P{n}"]))
    ids = (f"table {n}" for n in count())
    tournament = apply(tournament, stream.pair_next(tournament, SEED, ids, AT))
    paired = tournament.rounds[-1].tables[0]
    won = TableResult(tuple(paired.seats), ("win", "loss"), (1, 0))
    scored = stream.score(tournament, paired.table, won, "played", SEED)
    old = [e for e in scored if not isinstance(e, TournamentFinished)]  # as stored then
    tournament = apply(tournament, old)
    assert tournament.status == "playing" and stream.played_out(tournament)
    with pytest.raises(TournamentError):
        stream.pair_next(tournament, SEED, ids, AT)
    tournament = apply(tournament, stream.finish(tournament, SEED, tables_in_play=0))
    assert tournament.status == "finished" and not stream.played_out(tournament)
