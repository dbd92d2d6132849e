"""The tournament aggregate (RULES 5, DESIGN 14): how many rounds it plays and when it
finishes, decided from its events."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from itertools import count

import msgspec
import pytest
from msgspec.structs import replace

from domain.tournament import stream
from domain.tournament.errors import TournamentError
from domain.tournament.events import TournamentCreated, TournamentEvent, TournamentFinished
from domain.tournament.model import PAIRING_RULES, Format, TableResult
from domain.tournament.stream import Terms, Tournament
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
    the shared decks: it stays closed until it is over too, and so do the others."""
    created = stream.create("t", bridge_terms("Pairs", Format.DUPLICATE, rounds=1), SEED)
    playing = stream.start(created)
    over = replace(playing, seed="00")
    assert not playing.table_watchable(dealt_decks=True, table_over=True, tables_in_play=False)
    assert not over.table_watchable(dealt_decks=True, table_over=False, tables_in_play=True)
    assert not over.table_watchable(dealt_decks=True, table_over=True, tables_in_play=True)
    assert over.table_watchable(dealt_decks=True, table_over=True, tables_in_play=False)


def test_a_table_sharing_no_deals_is_watched_whatever_else_is_played() -> None:
    created = stream.create("t", bridge_terms("Club", Format.SWISS, rounds=1), SEED)
    playing = stream.start(created)
    assert playing.table_watchable(dealt_decks=False, table_over=False, tables_in_play=True)
    assert not playing.table_watchable(dealt_decks=True, table_over=True, tables_in_play=False)


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


def test_a_tournament_records_the_pairing_rules_it_is_paired_by() -> None:
    """New tournaments are paired by today's rules; one stored before they were recorded
    has no field, and was paired by the first."""
    created = stream.create("t", bridge_terms("Club night", Format.SWISS, rounds=3), SEED)
    assert created.pairing_rules == PAIRING_RULES
    stored = msgspec.json.encode(created).replace(b',"pairing_rules":%d' % PAIRING_RULES, b"")
    assert b"pairing_rules" not in stored
    assert msgspec.json.decode(stored, type=TournamentCreated).pairing_rules == 1


def test_a_round_is_paired_by_the_rules_its_tournament_was_created_under() -> None:
    """A progressive Forty-Five event of the first rules seats round 21 as they did (two
    partnerships of round 20 kept), and one of today's rules does not."""
    terms = Terms(
        name="Ladder",
        game="forty-five",
        format=Format.PROGRESSIVE,
        entry="single",
        seats=4,
        options={},
        rounds=24,
    )
    seatings = {}
    for rules in (1, PAIRING_RULES):
        created = replace(stream.create("t", terms, SEED), pairing_rules=rules)
        tournament = stream.start(created)
        for n in range(8):
            tournament = apply(tournament, stream.enter(tournament, f"p{n:02}", [f"P{n}"]))
        ids = (f"table {n}" for n in count())
        for _ in range(21):
            tournament = apply(tournament, stream.pair_next(tournament, SEED, ids, AT))
            for paired in tournament.rounds[-1].tables:
                seats = tuple(paired.seats)
                won = TableResult(seats, ("win", "loss", "win", "loss"), (10, 5, 10, 5))
                scored = stream.score(tournament, paired.table, won, "played", SEED)
                tournament = apply(tournament, scored)
        seatings[rules] = [tuple(t.seats) for t in tournament.rounds[-1].tables]
        entrants, history = stream.entrants_of(tournament), stream.history_of(tournament)
        again = stream.pair_round(tournament, entrants, history[:-1], SEED, 21)
        assert [s.seats for s in again.tables] == seatings[rules]
    assert seatings[1] != seatings[PAIRING_RULES]
