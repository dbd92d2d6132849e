"""Who takes part in a round, and the seed's order among them (RULES 5.1).

Every tie pairing meets is broken by :func:`seed_key`: a hash of the tournament's seed and
the entry id, so the order is fixed by the seed alone, never by the order the entries
arrived in or by dict or set iteration.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from domain.tournament.model import Entrant, RoundRecord, Seating, Shape


@dataclass(frozen=True)
class Inputs:
    """What every format pairs a round from (the arguments of ``pairing.pair``)."""

    shape: Shape
    entrants: Sequence[Entrant]
    history: Sequence[RoundRecord]
    seed: bytes
    round: int
    rules: int  # pairing.PAIRING_RULES, or an earlier version a tournament was paired by

    def playing(self) -> list[str]:
        """The entries that may be paired: not withdrawn, and already arrived."""
        return playing(self.entrants, self.round)


def seed_key(seed: bytes, entry: str, salt: str = "") -> bytes:
    """The entry's place in the seed's order; ``salt`` gives another order (e.g. a round's)."""
    return hashlib.sha256(b"%s\x00%s\x00%s" % (seed, salt.encode(), entry.encode())).digest()


def seed_order(seed: bytes, entries: Sequence[str], salt: str = "") -> list[str]:
    return sorted(entries, key=lambda entry: seed_key(seed, entry, salt))


def playing(entrants: Sequence[Entrant], round: int) -> list[str]:
    """The entries that may be paired in ``round``: not withdrawn, and already arrived."""
    return [e.entry for e in entrants if not e.withdrawn and e.first_round <= round]


def check_round(history: Sequence[RoundRecord], round: int) -> None:
    if round < 1:
        raise ValueError(f"round {round}: rounds are numbered from 1")
    if len(history) != round - 1:
        raise ValueError(f"round {round} is paired after {round - 1} rounds, not {len(history)}")


def table_entries(seating: Seating) -> list[str]:
    """The table's entries in seat order, each once (a pair entry holds two seats)."""
    return list(dict.fromkeys(seating.seats))


def seat_sides(shape: Shape, by_side: Sequence[str]) -> Seating:
    """A two-entry table: ``by_side[s]`` holds every seat of side s."""
    assert shape.sides is not None
    return Seating(seats=tuple(by_side[side] for side in shape.sides))
