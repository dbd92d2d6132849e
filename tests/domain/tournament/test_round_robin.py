"""Round-robin by the Berger tables (RULES 5.3), golden tables for 4, 5 and 6 entries."""

from __future__ import annotations

from itertools import combinations

import pytest

from domain.tournament.field import seed_order
from domain.tournament.model import Entrant, Format, Pairing
from domain.tournament.pairing import pair, rounds_needed
from tests.domain.tournament.rounds import (
    BRIDGE,
    FORTY_FIVE_PAIRS,
    SEED,
    entrants,
    first_seat_wins,
    play,
)

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"]

# The published Berger tables: (first seat, second seat) per table, by draw number.
BERGER_4 = [
    [(1, 4), (2, 3)],
    [(4, 3), (1, 2)],
    [(2, 4), (3, 1)],
]
BERGER_6 = [
    [(1, 6), (2, 5), (3, 4)],
    [(6, 4), (5, 3), (1, 2)],
    [(2, 6), (3, 1), (4, 5)],
    [(6, 5), (1, 4), (2, 3)],
    [(3, 6), (4, 2), (5, 1)],
]


def by_number(pairing: Pairing, field: list[str]) -> tuple[list[tuple[int, ...]], list[int]]:
    number = {entry: n for n, entry in enumerate(seed_order(SEED, field), start=1)}
    tables = [tuple(number[entry] for entry in seating.seats) for seating in pairing.tables]
    return tables, [number[entry] for entry in pairing.byes]


def schedule(names: list[str]) -> list[tuple[list[tuple[int, ...]], list[int]]]:
    history = play(
        Format.ROUND_ROBIN,
        BRIDGE,
        entrants(*names),
        len(names) - 1 + len(names) % 2,
        first_seat_wins,
    )
    return [by_number(record.pairing, names) for record in history]


def test_four_entries_play_the_berger_table_in_three_rounds() -> None:
    assert schedule(NAMES[:4]) == [(tables, []) for tables in BERGER_4]


def test_six_entries_play_the_berger_table_in_five_rounds() -> None:
    assert schedule(NAMES) == [(tables, []) for tables in BERGER_6]


def test_five_entries_play_the_table_for_six_and_whoever_meets_the_dummy_has_the_bye() -> None:
    expected = [
        ([(2, 5), (3, 4)], [1]),
        ([(5, 3), (1, 2)], [4]),
        ([(3, 1), (4, 5)], [2]),
        ([(1, 4), (2, 3)], [5]),
        ([(4, 2), (5, 1)], [3]),
    ]
    assert schedule(NAMES[:5]) == expected


@pytest.mark.parametrize("size", range(2, 11))
def test_every_two_entries_meet_exactly_once(size: int) -> None:
    names = [f"p{n}" for n in range(size)]
    assert rounds_needed(Format.ROUND_ROBIN, size) == size - 1 + size % 2
    history = play(
        Format.ROUND_ROBIN,
        BRIDGE,
        entrants(*names),
        rounds_needed(Format.ROUND_ROBIN, size) or 0,
        first_seat_wins,
    )
    met = sorted(tuple(sorted(s.seats)) for r in history for s in r.pairing.tables)
    assert met == sorted(combinations(sorted(names), 2))
    byes = sorted(entry for r in history for entry in r.pairing.byes)
    assert byes == (sorted(names) if size % 2 else [])


def test_a_pair_entry_holds_both_seats_of_its_side() -> None:
    history = play(Format.ROUND_ROBIN, FORTY_FIVE_PAIRS, entrants("A", "B"), 1, first_seat_wins)
    (seating,) = history[0].pairing.tables
    first, second = seating.seats[0], seating.seats[1]
    assert seating.seats == (first, second, first, second)


def test_a_withdrawn_entry_keeps_its_place_in_the_schedule_and_its_opponents_have_byes() -> None:
    field = entrants(*NAMES[:4])
    history = play(Format.ROUND_ROBIN, BRIDGE, field, 1, first_seat_wins)
    quitter = history[0].pairing.tables[0].seats[0]
    field = [Entrant(e.entry, withdrawn=e.entry == quitter) for e in field]
    second = pair(Format.ROUND_ROBIN, BRIDGE, field, history, SEED, 2)
    assert by_number(second, NAMES[:4])[0] == [t for t in BERGER_4[1] if 1 not in t]
    assert len(second.byes) == 1 and quitter not in second.byes


def test_an_entry_that_withdrew_before_round_one_is_left_out_of_the_draw() -> None:
    field = [*entrants(*NAMES[:4]), Entrant("Gone", withdrawn=True)]
    first = pair(Format.ROUND_ROBIN, BRIDGE, field, [], SEED, 1)
    assert by_number(first, NAMES[:4]) == (BERGER_4[0], [])


def test_there_is_no_round_after_the_last() -> None:
    history = play(Format.ROUND_ROBIN, BRIDGE, entrants(*NAMES[:4]), 3, first_seat_wins)
    with pytest.raises(ValueError, match="no round 4"):
        pair(Format.ROUND_ROBIN, BRIDGE, entrants(*NAMES[:4]), history, SEED, 4)
