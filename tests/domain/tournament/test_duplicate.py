"""Duplicate (RULES 5.6): directions rotate, and matchpoints compare each direction of a
deal across the tables that played it (the worked example of RULES 5.6)."""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations

import pytest
from msgspec.structs import replace

from domain.tournament.duplicate import Matchpoints, deal_matchpoints, direction, matchpoints
from domain.tournament.model import Format, Pairing, RoundRecord, Seating, Shape, TableResult
from tests.domain.tournament.rounds import BRIDGE, FORTY_FIVE, by_seat_order, entrants, play


def bridge_table(
    north: str, south: str, deals: list[tuple[int, int]], aborted: bool = False
) -> TableResult:
    return TableResult(
        seats=(north, south),
        outcomes=("draw", "draw"),
        scores=(0, 0),
        deal_scores=tuple(deals),
        aborted=aborted,
    )


# RULES 5.6, the worked example: three tables play the same two deals.
EXAMPLE = [
    bridge_table("A", "B", [(420, 0), (0, 100)]),
    bridge_table("C", "D", [(450, 0), (0, 50)]),
    bridge_table("E", "F", [(420, 0), (140, 0)]),
]


def example_round(*extra: TableResult) -> RoundRecord:
    results = (*EXAMPLE, *extra)
    tables = tuple(Seating(seats=r.seats) for r in results)
    return RoundRecord(pairing=Pairing(round=1, tables=tables), results=results)


def test_a_direction_earns_one_per_table_it_beat_and_a_half_per_tie() -> None:
    assert deal_matchpoints([420, 450, 420]) == [0.5, 2.0, 0.5]
    assert deal_matchpoints([-100, -50, 140]) == [0.0, 1.0, 2.0]


def test_the_worked_example_of_three_tables_and_two_deals() -> None:
    assert matchpoints(BRIDGE, [example_round()]) == {
        "A": Matchpoints(0.5, 4),
        "B": Matchpoints(3.5, 4),
        "C": Matchpoints(3.0, 4),
        "D": Matchpoints(1.0, 4),
        "E": Matchpoints(2.5, 4),
        "F": Matchpoints(1.5, 4),
    }
    assert [matchpoints(BRIDGE, [example_round()])[e].percentage for e in "ABCDEF"] == [
        12.5,
        87.5,
        75.0,
        25.0,
        62.5,
        37.5,
    ]


def test_an_aborted_table_counts_nowhere() -> None:
    aborted = bridge_table("G", "H", [(2000, 0), (0, 2000)], aborted=True)
    assert matchpoints(BRIDGE, [example_round(aborted)]) == matchpoints(BRIDGE, [example_round()])


def test_a_deal_is_compared_only_among_the_tables_that_played_it() -> None:
    short = bridge_table("G", "H", [(420, 0)])  # this table's game ended after one deal
    scored = matchpoints(BRIDGE, [example_round(short)])
    assert scored["G"] == Matchpoints(0.5 + 0.5, 3)  # level with A and E, below C
    assert scored["A"] == Matchpoints(1.0 + 0.0, 3 + 2)  # deal 2 among three tables


def test_deals_are_matched_by_the_deck_dealt_not_by_their_place() -> None:
    """Table 2 threw its first deck in (no score) and played the second deck first; table
    1 went on past the shared decks with one it shuffled for itself."""
    table_one = replace(
        bridge_table("A", "B", [(420, 0), (0, 100), (990, 0)]),
        deal_decks=("deck 1", "deck 2", "own shuffle"),
    )
    table_two = replace(
        bridge_table("C", "D", [(0, 50), (450, 0)]), deal_decks=("deck 2", "deck 3")
    )
    table_three = replace(
        bridge_table("E", "F", [(0, 140), (400, 0)]), deal_decks=("deck 2", "deck 3")
    )
    results = (table_one, table_two, table_three)
    record = RoundRecord(Pairing(1, tuple(Seating(r.seats) for r in results)), results)
    scored = matchpoints(BRIDGE, [record])
    # Deck 1 was scored at table 1 alone, its own shuffle too: no table to compare with.
    # Deck 2, north's score: A -100, C -50, E -140; deck 3: C 450, E 400.
    assert scored["A"] == Matchpoints(1.0, 2)
    assert scored["C"] == Matchpoints(2.0 + 1.0, 2 + 1)
    assert scored["E"] == Matchpoints(0.0 + 0.0, 2 + 1)
    assert scored["D"] == Matchpoints(0.0 + 0.0, 2 + 1)


def test_partners_share_their_sides_matchpoints() -> None:
    def table(a: str, b: str, c: str, d: str, side_zero: int) -> TableResult:
        return TableResult(
            (a, b, c, d),
            ("win", "loss", "win", "loss"),
            (0,) * 4,
            deal_scores=((side_zero, 0, side_zero, 0),),
        )

    results = (table("A", "B", "C", "D", 30), table("E", "F", "G", "H", 10))
    record = RoundRecord(Pairing(1, tuple(Seating(r.seats) for r in results)), results)
    scored = matchpoints(FORTY_FIVE, [record])
    assert scored["A"] == scored["C"] == Matchpoints(1.0, 1)
    assert scored["F"] == scored["H"] == Matchpoints(1.0, 1)


@pytest.mark.parametrize(
    ("shape", "count"),
    [(BRIDGE, 8), (FORTY_FIVE, 8), (Shape(seats=4, sides=None), 8)],
    ids=["reserve-bridge", "forty-five", "pitch-4"],
)
def test_each_entry_holds_every_direction_in_turn(shape: Shape, count: int) -> None:
    ways = 2 if shape.sides is not None else shape.seats
    rounds = play(
        Format.DUPLICATE,
        shape,
        entrants(*(f"p{n}" for n in range(count))),
        ways,
        by_seat_order(shape),
    )
    held: defaultdict[str, list[int]] = defaultdict(list)
    for record in rounds:
        for seating in record.pairing.tables:
            for seat, entry in enumerate(seating.seats):
                held[entry].append(direction(shape, seat))
    for entry, ways_held in held.items():
        assert sorted(set(ways_held)) == list(range(ways)), entry


def test_two_sided_entries_meet_new_opponents_each_round() -> None:
    rounds = play(
        Format.DUPLICATE, BRIDGE, entrants(*(f"p{n}" for n in range(8))), 4, by_seat_order(BRIDGE)
    )
    met = [
        frozenset(pair)
        for r in rounds
        for s in r.pairing.tables
        for pair in combinations(s.seats, 2)
    ]
    assert len(met) == len(set(met)) == 16


def test_an_odd_field_sits_out_in_turn() -> None:
    rounds = play(
        Format.DUPLICATE, BRIDGE, entrants(*(f"p{n}" for n in range(5))), 5, by_seat_order(BRIDGE)
    )
    assert sorted(entry for r in rounds for entry in r.pairing.byes) == [f"p{n}" for n in range(5)]
