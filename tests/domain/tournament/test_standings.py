"""Standings (RULES 5.7): points, then Buchholz and Sonneborn-Berger (swiss and
round-robin) or matchpoints (duplicate), then game points; full ties share a rank."""

from __future__ import annotations

import msgspec

from domain.tournament.model import Format, Outcome, Pairing, RoundRecord, Seating, TableResult
from domain.tournament.standings import RoundLine, standings
from tests.domain.tournament.rounds import BRIDGE, PINOCHLE, entrants

WIN: tuple[Outcome, Outcome] = ("win", "loss")
LOSS: tuple[Outcome, Outcome] = ("loss", "win")
DRAW: tuple[Outcome, Outcome] = ("draw", "draw")


def round_of(
    number: int,
    *tables: tuple[str, str, tuple[Outcome, Outcome]],
    byes: tuple[str, ...] = (),
    aborted: int | None = None,
) -> RoundRecord:
    seatings = tuple(Seating((a, b)) for a, b, _ in tables)
    results = tuple(
        TableResult((a, b), outcome, (0, 0), aborted=i == aborted)
        for i, (a, b, outcome) in enumerate(tables)
    )
    return RoundRecord(Pairing(number, seatings, byes), results)


# RULES 5.7, the worked example: eight entries, two Swiss rounds.
HISTORY = [
    round_of(1, ("A", "B", WIN), ("C", "D", WIN), ("E", "F", DRAW), ("G", "H", DRAW)),
    round_of(2, ("A", "C", DRAW), ("B", "E", WIN), ("D", "F", LOSS), ("G", "H", DRAW)),
]


def test_points_then_buchholz_then_sonneborn_berger_and_full_ties_share_a_rank() -> None:
    table = standings(Format.SWISS, BRIDGE, entrants(*"ABCDEFGH"), HISTORY)
    assert [(s.entry, s.rank, s.points, s.buchholz, s.sonneborn_berger) for s in table] == [
        ("A", 1, 1.5, 2.5, 1.75),  # A, C and F have 1.5: Buchholz orders them
        ("C", 2, 1.5, 1.5, 0.75),
        ("F", 3, 1.5, 0.5, 0.25),
        ("G", 4, 1.0, 2.0, 1.0),  # G, H and B have 1 and Buchholz 2: Sonneborn-Berger
        ("H", 4, 1.0, 2.0, 1.0),  # G and H are level on everything: they share 4th
        ("B", 6, 1.0, 2.0, 0.5),
        ("E", 7, 0.5, 2.5, 0.75),
        ("D", 8, 0.0, 3.0, 0.0),
    ]


def test_each_entry_lists_its_rounds_with_table_opponents_and_result() -> None:
    a = standings(Format.SWISS, BRIDGE, entrants(*"ABCDEFGH"), HISTORY)[0]
    assert (a.wins, a.losses, a.draws) == (1, 0, 1)
    assert a.rounds == [RoundLine(1, 0, ["B"], "win"), RoundLine(2, 0, ["C"], "draw")]


def test_a_bye_scores_a_win_in_swiss_and_adds_nothing_to_the_opponents_buchholz() -> None:
    history = [round_of(1, ("A", "B", WIN), byes=("C",))]
    table = {s.entry: s for s in standings(Format.SWISS, BRIDGE, entrants(*"ABC"), history)}
    assert table["C"].points == 1.0 and table["C"].buchholz == 0.0
    assert table["C"].rounds == [RoundLine(1, None, [], "bye")]
    assert table["A"].rank == table["C"].rank == 1


def test_a_bye_scores_half_a_win_in_progressive() -> None:
    seating = Seating(("A", "B", "C"))
    result = TableResult(seating.seats, ("win", "loss", "loss"), (30, 20, 10))
    history = [RoundRecord(Pairing(1, (seating,), ("D",)), (result,))]
    table = standings(Format.PROGRESSIVE, PINOCHLE, entrants(*"ABCD"), history)
    assert [(s.entry, s.rank, s.points, s.score) for s in table] == [
        ("A", 1, 1.0, 30),
        ("D", 2, 0.5, 0),
        ("B", 3, 0.0, 20),  # B and C lost: game points part them
        ("C", 4, 0.0, 10),
    ]
    assert table[2].rounds[0].opponents == ["A", "C"]


def test_an_aborted_table_counts_nowhere() -> None:
    history = [round_of(1, ("A", "B", WIN), ("C", "D", WIN), aborted=1)]
    table = {s.entry: s for s in standings(Format.SWISS, BRIDGE, entrants(*"ABCD"), history)}
    assert table["C"].points == 0.0 and table["C"].rounds == []
    assert table["A"].buchholz == 0.0


def test_names_are_carried_when_given() -> None:
    table = standings(Format.SWISS, BRIDGE, entrants("e1"), [], names={"e1": "Ann"})
    assert table[0].name == "Ann" and table[0].rank == 1


def test_an_entry_that_played_nothing_has_its_figures_as_numbers_like_everyone_elses() -> None:
    """Its points and tie-breaks were the integer 0 where others' were 1.0 or 0.0: ``0``
    beside ``0.0`` in the CSV, and an integer in JSON where the schema says number."""
    history = [round_of(1, ("A", "B", WIN), byes=())]
    table = standings(Format.SWISS, BRIDGE, entrants(*"ABC"), history)
    for figure in ("points", "buchholz", "sonneborn_berger", "matchpoints", "percentage"):
        assert all(type(getattr(s, figure)) is float for s in table), figure
    assert msgspec.json.encode(table[-1]).count(b":0.0") >= 3
