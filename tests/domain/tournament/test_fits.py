"""Which formats fit which games (RULES 5.1), and what pairing refuses."""

from __future__ import annotations

import pytest

from domain.tournament.model import Entrant, Format, Shape
from domain.tournament.pairing import fits, pair, rounds_needed
from tests.domain.tournament.rounds import BRIDGE, FORTY_FIVE, FORTY_FIVE_PAIRS, PINOCHLE, SEED

PITCH_5 = Shape(seats=5, sides=None)
PITCH_PAIRS = Shape(seats=4, sides=None, entry_seats=2)


@pytest.mark.parametrize(
    ("format", "shape", "field"),
    [
        (Format.PROGRESSIVE, BRIDGE, "format"),  # one against one is no progressive
        (Format.SWISS, PINOCHLE, "format"),  # no sides
        (Format.ROUND_ROBIN, PITCH_5, "format"),
        (Format.SWISS, FORTY_FIVE, "entry"),  # four single entries a table
        (Format.PROGRESSIVE, FORTY_FIVE_PAIRS, "entry"),  # progressive moves players
        (Format.DUPLICATE, PITCH_PAIRS, "entry"),  # pairs need a partnership game
    ],
)
def test_a_format_that_does_not_fit_the_game_names_the_field_to_change(
    format: Format, shape: Shape, field: str
) -> None:
    problem = fits(format, shape)
    assert problem is not None and problem.startswith(f"{field}: ")
    with pytest.raises(ValueError, match=rf"^{field}: "):
        pair(format, shape, [Entrant("a"), Entrant("b")], [], SEED, 1)


@pytest.mark.parametrize(
    ("format", "shape"),
    [
        (Format.SWISS, BRIDGE),
        (Format.SWISS, FORTY_FIVE_PAIRS),
        (Format.ROUND_ROBIN, FORTY_FIVE_PAIRS),
        (Format.PROGRESSIVE, FORTY_FIVE),
        (Format.PROGRESSIVE, PITCH_5),
        (Format.PROGRESSIVE, PINOCHLE),
        (Format.DUPLICATE, BRIDGE),
        (Format.DUPLICATE, FORTY_FIVE_PAIRS),
        (Format.DUPLICATE, PITCH_5),
        (Format.OPEN, Shape(seats=4, sides=None)),
    ],
)
def test_formats_that_fit(format: Format, shape: Shape) -> None:
    assert fits(format, shape) is None


def test_round_robin_needs_every_pair_to_meet_and_the_others_leave_it_to_the_director() -> None:
    assert [rounds_needed(Format.ROUND_ROBIN, n) for n in (1, 2, 5, 6)] == [0, 1, 5, 5]
    assert rounds_needed(Format.SWISS, 6) is None


def test_a_round_is_paired_after_all_the_rounds_before_it() -> None:
    with pytest.raises(ValueError, match="round 2 is paired after 1 rounds, not 0"):
        pair(Format.SWISS, BRIDGE, [Entrant("a")], [], SEED, 2)


def test_an_open_tournament_has_no_pairing() -> None:
    with pytest.raises(ValueError, match=r"^format: "):
        pair(Format.OPEN, BRIDGE, [Entrant("a")], [], SEED, 1)


@pytest.mark.parametrize("format", [Format.SWISS, Format.ROUND_ROBIN, Format.DUPLICATE])
def test_a_field_of_one_has_the_bye_and_an_empty_field_nothing(format: Format) -> None:
    alone = pair(format, BRIDGE, [Entrant("a")], [], SEED, 1)
    assert alone.tables == () and alone.byes == ("a",)
    if format != Format.ROUND_ROBIN:
        assert pair(format, BRIDGE, [], [], SEED, 1).byes == ()


def test_the_order_the_entries_arrive_in_changes_nothing() -> None:
    field = [Entrant(name) for name in "ABCDEFG"]
    for format, shape in [
        (Format.SWISS, BRIDGE),
        (Format.DUPLICATE, BRIDGE),
        (Format.PROGRESSIVE, PINOCHLE),
    ]:
        assert pair(format, shape, field, [], SEED, 1) == pair(
            format, shape, field[::-1], [], SEED, 1
        )
