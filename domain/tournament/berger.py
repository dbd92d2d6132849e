"""Round-robin by the Berger tables (RULES 5.3).

Players are numbered 1..n in the seed's order; an odd field adds a dummy n+1, and the
player drawn against it has the bye. With m = n - 1 for the even field (n + 1 players
counted with the dummy), round r pairs the last player with the a for which
2a ≡ r + 1 (mod m), and every other table k with a + k against a - k (counted 1..m round
the circle). That reproduces the published tables, seats included: the last player sits
second in odd rounds and first in even ones, and a + k always sits first.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.tournament.field import Inputs, seat_sides, seed_order
from domain.tournament.model import Entrant, Pairing, RoundRecord


def rounds_needed(entries: int) -> int:
    """Every pair meets once: n - 1 rounds for an even field, n for an odd one."""
    return 0 if entries < 2 else entries - 1 + entries % 2


def berger_round(entries: int, round: int) -> list[tuple[int, int]]:
    """Round ``round`` of the Berger table for players 1..entries, table by table: (first
    seat, second seat). Player ``entries + 1`` is the dummy of an odd field."""
    size = entries + entries % 2
    if not 1 <= round <= size - 1:
        raise ValueError(f"a round-robin of {entries} entries has no round {round}")
    m = size - 1
    # 2 is invertible modulo the odd m: a = (r + 1) / 2 (mod m), counted 1..m.
    a = (round + 1) * (m + 1) // 2 % m or m
    tables = [(a, size) if round % 2 else (size, a)]
    for k in range(1, size // 2):
        tables.append(((a + k - 1) % m + 1, (a - k - 1) % m + 1))
    return tables


def field(entrants: Sequence[Entrant], history: Sequence[RoundRecord]) -> list[str]:
    """The entries the schedule is drawn for: those there from round 1, less any that
    withdrew before playing, so that a later withdrawal leaves everyone's schedule as it
    was (the withdrawn entry's opponents have byes)."""
    seen = {entry for record in history for entry in _entries(record)}
    return [
        e.entry for e in entrants if e.first_round <= 1 and (not e.withdrawn or e.entry in seen)
    ]


def pair_round_robin(inputs: Inputs) -> Pairing:
    players = seed_order(inputs.seed, field(inputs.entrants, inputs.history))
    present = set(inputs.playing())
    tables, byes = [], []
    for first, second in berger_round(len(players), inputs.round):
        pair = [players[n - 1] if n <= len(players) else None for n in (first, second)]
        here = [entry for entry in pair if entry is not None and entry in present]
        if len(here) == 2:
            tables.append(seat_sides(inputs.shape, here))
        else:
            byes.extend(here)
    return Pairing(round=inputs.round, tables=tuple(tables), byes=tuple(byes))


def _entries(record: RoundRecord) -> set[str]:
    return {e for seating in record.pairing.tables for e in seating.seats} | set(
        record.pairing.byes
    )
