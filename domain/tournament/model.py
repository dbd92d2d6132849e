"""The values pairing and standings work on (DESIGN 14).

An entry is one player, or one fixed partnership (``entry: "pair"``); its id is a string the
service hands out. A table of a round seats an entry at each seat index; a pair entry holds
both seats of its side. Results arrive as :class:`TableResult` once a table ends.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

import msgspec

# The version of the pairing rules new tournaments are paired by, recorded in their
# ``tournament_created`` so that a tournament is always re-paired (and verified) by the
# rules it was paired by. 1: progressive partnership tables took the split that repeated
# the fewest earlier partnerships, which could keep the last round's partners together.
# 2: they never do (RULES 5.5). 3: Swiss pairs score group by score group, so that an
# even group pairs within itself whenever it can without a rematch (RULES 5.4).
PAIRING_RULES = 3


class Format(StrEnum):
    OPEN = "open"  # the operator opens tables by hand; no rounds
    SWISS = "swiss"
    ROUND_ROBIN = "round-robin"
    PROGRESSIVE = "progressive"
    DUPLICATE = "duplicate"


class Shape(msgspec.Struct, frozen=True):
    """One table of the tournament's game as pairing sees it.

    ``sides`` gives each seat's side in a partnership or two-handed game (seat 0 and 2 are
    side 0 at Forty-Five; seat 0 and 1 are sides 0 and 1 at Reserve Bridge) and is ``None``
    in a game without sides (Pitch, Pinochle: every seat for itself). ``entry_seats`` is 2
    when an entry is a fixed partnership, else 1.
    """

    seats: int
    sides: tuple[int, ...] | None
    entry_seats: int = 1

    @property
    def entries_per_table(self) -> int:
        return self.seats // self.entry_seats

    @property
    def half(self) -> int:
        """h of DESIGN 14: the winners of a table (half of it, rounded down)."""
        return self.entries_per_table // 2


class Entrant(msgspec.Struct, frozen=True):
    """An entry as pairing sees it: ``first_round`` is the round it may first be paired in
    (a late entry joins the next round); a withdrawn entry is never paired again."""

    entry: str
    first_round: int = 1
    withdrawn: bool = False


Outcome = Literal["win", "loss", "draw"]


class Seating(msgspec.Struct, frozen=True):
    """One table of a round: ``seats[i]`` is the entry at seat i. Tables of a round are
    listed in rank order, the head table first."""

    seats: tuple[str, ...]


class Pairing(msgspec.Struct, frozen=True):
    """A round as paired: its tables and the entries that sit it out (byes)."""

    round: int
    tables: tuple[Seating, ...]
    byes: tuple[str, ...] = ()


class TableResult(msgspec.Struct, frozen=True):
    """How one table of a round ended, per seat.

    ``outcomes[i]`` is seat i's win, loss or draw (DESIGN 14: the top half of a game without
    sides wins; a forfeit or resignation is a loss); ``scores[i]`` the game points of seat
    i's side or of the seat itself. An aborted table counts nowhere (``aborted``), and
    ``deal_scores`` holds, per deal played, each seat's points in that deal, and
    ``deal_decks`` the commitment of the deck it was dealt, for duplicate matchpoints.
    """

    seats: tuple[str, ...]
    outcomes: tuple[Outcome, ...]
    scores: tuple[int, ...]
    aborted: bool = False
    deal_scores: tuple[tuple[int, ...], ...] = ()
    deal_decks: tuple[str, ...] = ()


class RoundRecord(msgspec.Struct, frozen=True):
    """A finished round: the pairing and each table's result, in the pairing's order."""

    pairing: Pairing
    results: tuple[TableResult, ...]
