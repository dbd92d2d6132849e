"""Building blocks of the tournament tests: their terms, and finished rounds (results per
table, played in turn)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from domain.tournament.model import (
    Entrant,
    Format,
    Outcome,
    Pairing,
    RoundRecord,
    Seating,
    Shape,
    TableResult,
)
from domain.tournament.pairing import pair
from domain.tournament.stream import Terms

SEED = b"tournament seed"
BRIDGE = Shape(seats=2, sides=(0, 1))  # Reserve Bridge: one player a side
FORTY_FIVE_PAIRS = Shape(seats=4, sides=(0, 1, 0, 1), entry_seats=2)
FORTY_FIVE = Shape(seats=4, sides=(0, 1, 0, 1))
PINOCHLE = Shape(seats=3, sides=None)

Decide = Callable[[int, Seating], TableResult]


def bridge_terms(
    name: str, format: Format, *, rounds: int | None = None, round_minutes: int | None = None
) -> Terms:
    """The terms of a Reserve Bridge event of single entries: two seats, no options."""
    return Terms(
        name=name,
        game="reserve-bridge",
        format=format,
        entry="single",
        seats=2,
        options={},
        rounds=rounds,
        round_minutes=round_minutes,
    )


def entrants(*names: str) -> list[Entrant]:
    return [Entrant(name) for name in names]


def result(
    seating: Seating, outcomes: Sequence[Outcome], scores: Sequence[int] = ()
) -> TableResult:
    return TableResult(
        seats=seating.seats,
        outcomes=tuple(outcomes),
        scores=tuple(scores) or tuple(0 for _ in seating.seats),
    )


def first_seat_wins(round: int, seating: Seating) -> TableResult:
    wins = [1 if seat == 0 else 0 for seat in range(len(seating.seats))]
    return result(seating, ["win" if w else "loss" for w in wins], wins)


def by_seat_order(shape: Shape) -> Decide:
    """Seat order is the finishing order (the first h seats win); with sides, side 0 wins."""

    def decide(round: int, seating: Seating) -> TableResult:
        n = len(seating.seats)
        if shape.sides is not None:
            outcomes: list[Outcome] = ["win" if s == 0 else "loss" for s in shape.sides]
            return result(seating, outcomes, [10 if s == 0 else 5 for s in shape.sides])
        return result(
            seating,
            ["win" if seat < shape.half else "loss" for seat in range(n)],
            [n - seat for seat in range(n)],
        )

    return decide


def finish(pairing: Pairing, decide: Decide) -> RoundRecord:
    return RoundRecord(
        pairing=pairing,
        results=tuple(decide(pairing.round, seating) for seating in pairing.tables),
    )


def play(
    format: Format,
    shape: Shape,
    field: Sequence[Entrant],
    rounds: int,
    decide: Decide,
    seed: bytes = SEED,
) -> list[RoundRecord]:
    """``rounds`` rounds paired and finished one after another."""
    history: list[RoundRecord] = []
    for number in range(1, rounds + 1):
        pairing = pair(format, shape, field, history, seed, number)
        history.append(finish(pairing, decide))
    return history
