"""``cardroom bench pairing``: Swiss pairing of large fields, in the domain alone.

For each field size the bench plays five rounds of seeded random results (a third of the
tables drawn, the rest won by either side) and then times the pairing of round six. Its
ceiling, measured in the same run on the same history, is the least any Swiss pairing
must do: read the results, rank by points and the seed, and pair neighbours with no
thought for rematches. ``ratio_to_ceiling`` is the ceiling's time over ours (1.0: no dearer
than ranking alone), and ``rematches`` counts pairs that met before: ours should be 0, the
ceiling's shows what rematch avoidance is for.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from domain.tournament.field import seat_sides, seed_key
from domain.tournament.model import (
    Entrant,
    Format,
    Outcome,
    Pairing,
    RoundRecord,
    Shape,
    TableResult,
)
from domain.tournament.pairing import pair
from domain.tournament.tally import played, points

SIZES = (100, 1_000, 10_000)
ROUNDS = 5
SHAPE = Shape(seats=2, sides=(0, 1))  # Reserve Bridge players: one entry a side
OUTCOMES: list[tuple[Outcome, Outcome]] = [("win", "loss"), ("loss", "win"), ("draw", "draw")]

Pair = Callable[[list[Entrant], list[RoundRecord], bytes, int], Pairing]


def swiss(entrants: list[Entrant], history: list[RoundRecord], seed: bytes, round: int) -> Pairing:
    return pair(Format.SWISS, SHAPE, entrants, history, seed, round)


def ceiling(
    entrants: list[Entrant], history: list[RoundRecord], seed: bytes, round: int
) -> Pairing:
    """Rank by points and the seed, pair neighbours, rematches or not; the odd last sits out."""
    lines = played(SHAPE, history)
    ranked = sorted(
        (e.entry for e in entrants),
        key=lambda e: (-points(Format.SWISS, lines.get(e, ())), seed_key(seed, e)),
    )
    tables = tuple(seat_sides(SHAPE, ranked[i : i + 2]) for i in range(0, len(ranked) - 1, 2))
    return Pairing(round=round, tables=tables, byes=tuple(ranked[len(ranked) - len(ranked) % 2 :]))


def played_rounds(size: int, seed: int) -> tuple[list[Entrant], list[RoundRecord], bytes]:
    rng = random.Random(f"bench-pairing:{size}:{seed}")
    tournament_seed = rng.randbytes(32)
    entrants = [Entrant(f"entry-{n}") for n in range(size)]
    history: list[RoundRecord] = []
    for number in range(1, ROUNDS + 1):
        pairing = swiss(entrants, history, tournament_seed, number)
        results = tuple(
            TableResult(
                seats=seating.seats,
                outcomes=rng.choice(OUTCOMES),
                scores=(rng.randint(0, 10), rng.randint(0, 10)),
            )
            for seating in pairing.tables
        )
        history.append(RoundRecord(pairing=pairing, results=results))
    return entrants, history, tournament_seed


def rematches(pairing: Pairing, history: list[RoundRecord]) -> int:
    met = {frozenset(s.seats) for r in history for s in r.pairing.tables}
    return sum(frozenset(s.seats) in met for s in pairing.tables)


def timed(
    how: Pair, entrants: list[Entrant], history: list[RoundRecord], seed: bytes
) -> tuple[float, Pairing]:
    """The best of a few runs (at least three, and at least half a second's worth)."""
    best, runs, spent = float("inf"), 0, 0.0
    while runs < 3 or spent < 0.5:
        started = time.perf_counter()
        pairing = how(entrants, history, seed, ROUNDS + 1)
        elapsed = time.perf_counter() - started
        best, runs, spent = min(best, elapsed), runs + 1, spent + elapsed
    return best, pairing


def measure(size: int, seed: int) -> dict[str, Any]:
    entrants, history, tournament_seed = played_rounds(size, seed)
    ours, paired = timed(swiss, entrants, history, tournament_seed)
    floor, naive = timed(ceiling, entrants, history, tournament_seed)
    return {
        "entrants": size,
        "after_rounds": ROUNDS,
        "seconds_per_pairing": round(ours, 4),
        "rematches": rematches(paired, history),
        "ceiling_seconds_per_pairing": round(floor, 4),
        "ceiling_rematches": rematches(naive, history),
        "ratio_to_ceiling": round(floor / ours, 3) if ours else 0.0,
    }


def run(seed: int, sizes: list[int] | None = None) -> dict[str, Any]:
    return {"seed": seed, "results": [measure(size, seed) for size in sizes or SIZES]}
