"""Progressive movement (RULES 5.5): tables ranked 1..k, winners move up, the head
table's losers go to the foot.

Round 1 seats the field in the seed's order, table by table. After each round, with h half
the table, the top h of every table but the head move up one table, the bottom h of the
head table move to the last table, and everyone else stays. Entries that withdrew leave
(the gap closes from the tables below); entries back from a bye and late entries join at
the foot. When the field is not a multiple of the table, the entries with the fewest byes
that stand lowest sit out, so byes go round in turn. At a partnership table each arriving
player partners one who stayed, so partners change every round.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from domain.tournament.field import Inputs, seed_key, seed_order, table_entries
from domain.tournament.model import (
    Pairing,
    RoundRecord,
    Seating,
    Shape,
    TableResult,
)
from domain.tournament.tally import byes, played

OUTCOME_ORDER = {"win": 0, "draw": 1, "loss": 2}


def ranking(seating: Seating, result: TableResult, seed: bytes, round: int) -> list[str]:
    """A table's entries best first: outcome, then game points, then the seed. An aborted
    table's result says nothing, so its entries are ranked by the seed alone."""
    salt = f"round {round}"
    first_seat = {entry: seating.seats.index(entry) for entry in table_entries(seating)}

    def key(entry: str) -> tuple[int, int, bytes]:
        if result.aborted:
            return 0, 0, seed_key(seed, entry, salt)
        seat = first_seat[entry]
        return (
            OUTCOME_ORDER[result.outcomes[seat]],
            -result.scores[seat],
            seed_key(seed, entry, salt),
        )

    return sorted(first_seat, key=key)


def moved(shape: Shape, record: RoundRecord, seed: bytes) -> list[list[str]]:
    """The previous round's tables after the movement, head table first; at each table the
    entries that stayed come first, then those that arrived (each best first)."""
    h = shape.half
    ranked = [
        ranking(seating, result, seed, record.pairing.round)
        for seating, result in zip(record.pairing.tables, record.results, strict=True)
    ]
    last = len(ranked) - 1
    tables = []
    for t, order in enumerate(ranked):
        stay = order[: len(order) - h] if t == 0 else order[h:]
        arrive = ranked[t + 1][:h] if t < last else ranked[0][len(ranked[0]) - h :]
        tables.append(stay + arrive)
    return tables


def pair_progressive(inputs: Inputs) -> Pairing:
    shape, history, seed = inputs.shape, inputs.history, inputs.seed
    present = inputs.playing()
    if history:
        here = set(present)
        queue = [e for table in moved(shape, history[-1], seed) for e in table if e in here]
        queue += seed_order(seed, sorted(here.difference(queue)))
    else:
        queue = seed_order(seed, present)
    size = shape.entries_per_table
    lines = played(shape, history)
    had = {entry: byes(lines.get(entry, ())) for entry in queue}
    # Fewest byes first, then the lowest in the queue: those sit out this round.
    by_turn = sorted(range(len(queue)), key=lambda i: (had[queue[i]], -i))
    out = {queue[i] for i in by_turn[: len(queue) % size]}
    seated = [entry for entry in queue if entry not in out]
    partners = _partnerships(shape, history)
    # Rules 1 left this out (model.PAIRING_RULES).
    last = _partnerships(shape, history[-1:]) if history and inputs.rules >= 2 else Counter()
    tables = tuple(
        _seat(shape, seated[start : start + size], partners, last)
        for start in range(0, len(seated) - size + 1, size)
    )
    return Pairing(round=inputs.round, tables=tables, byes=tuple(e for e in queue if e in out))


def _seat(
    shape: Shape,
    players: list[str],
    partners: Counter[frozenset[str]],
    last: Counter[frozenset[str]],
) -> Seating:
    """Seats for one table. Without sides, in the order given. With two sides of two seats,
    a split into partnerships that keeps none of the ``last`` round's (one always exists:
    of four players at most two pairs were partners, and each split is two pairs), then
    the one that repeats the fewest earlier partnerships; of splits alike, the first of:
    best stayer with the weaker arrival, with the better arrival, with the other stayer."""
    if shape.sides is None or len(players) != 4 or sorted(shape.sides) != [0, 0, 1, 1]:
        return Seating(seats=tuple(players))
    a, b, c, d = players
    splits = [((a, d), (b, c)), ((a, c), (b, d)), ((a, b), (c, d))]

    def repeats(split: tuple[tuple[str, str], ...]) -> tuple[int, int]:
        pairs = [frozenset(side) for side in split]
        return sum(last[p] for p in pairs), sum(partners[p] for p in pairs)

    ours, theirs = min(splits, key=repeats)
    seats: list[str] = []
    taken = {0: list(ours), 1: list(theirs)}
    for side in shape.sides:
        seats.append(taken[side].pop(0))
    return Seating(seats=tuple(seats))


def _partnerships(shape: Shape, history: Sequence[RoundRecord]) -> Counter[frozenset[str]]:
    """How often each two entries played on one side."""
    together: Counter[frozenset[str]] = Counter()
    if shape.sides is None:
        return together
    for record in history:
        for seating, result in zip(record.pairing.tables, record.results, strict=True):
            if not result.aborted:
                for side in set(shape.sides):
                    mates = {
                        e for s, e in zip(shape.sides, seating.seats, strict=True) if s == side
                    }
                    together[frozenset(mates)] += 1
    return together
