"""A tournament's events: its own stream, hash-chained like a table's (DESIGN 14).

THIS IS THE STORAGE FORMAT — version with care (the same rule as domain.events): a field
may be added only with a default, never retyped or removed.

Secrets stay out: the seed is only committed to (``seed_hash``) until ``tournament_finished``
reveals it, and no token is ever recorded.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, Union

import msgspec

from domain.events import ClockSettings
from domain.tournament.model import Outcome


class TournamentEvent(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True):
    """Base of every tournament event."""


class TournamentCreated(TournamentEvent, frozen=True, tag="tournament_created"):
    tournament: str
    name: str
    game: str
    format: str
    entry: Literal["single", "pair"]
    seats: int
    options: dict[str, Any]
    seed_hash: str  # SHA-256 of the pairing seed, revealed when the tournament finishes
    rounds: int | None = None
    clock: ClockSettings | None = None
    round_minutes: int | None = None
    auto_rounds: bool = False
    # The pairing rules the tournament is paired by (``pairing.PAIRING_RULES``); events
    # stored before it was recorded were paired by the first.
    pairing_rules: int = 1
    # Whether its stream records every table opened by hand (``table_opened``), so that
    # an export leaving one out can be told; tournaments created before API 1.11 do not.
    tables_recorded: bool = False
    # How its results count each deal's points (``results.RESULTS_RULES``): 1, only deals
    # scored in points; 2, a chips game's deals too (tournaments created before it: 1).
    results_rules: int = 1


class EntryAdded(TournamentEvent, frozen=True, tag="entry_added"):
    entry: str
    names: list[str]
    first_round: int
    computer: bool = False


class EntryWithdrawn(TournamentEvent, frozen=True, tag="entry_withdrawn"):
    entry: str


class PairedTable(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    table: str  # the table's id
    seats: list[str]  # the entry at each seat


class RoundPaired(TournamentEvent, frozen=True, tag="round_paired"):
    """A round's tables and byes; ``inputs`` is the SHA-256 of what the pairing was a
    function of (entries, results so far, round), so a reader can tell two pairings of
    the same inputs apart from a pairing of other inputs."""

    round: int
    tables: list[PairedTable]
    byes: list[str]
    inputs: str
    deadline: datetime | None = None


class TableScored(TournamentEvent, frozen=True, tag="table_scored"):
    """One table of a round ended and counts as recorded here (``aborted``: counts nowhere)."""

    round: int
    table: str
    outcomes: list[Outcome]
    scores: list[int]
    reason: str
    aborted: bool = False
    deal_scores: list[list[int]] = []
    # The commitment of the deck each of deal_scores was dealt (duplicate matchpoints
    # compare a deal among the tables dealt the same deck); empty in results recorded
    # before API 1.9, which are compared deal by deal in order.
    deal_decks: list[str] = []


class TableOpened(TournamentEvent, frozen=True, tag="table_opened"):
    """The operator opened ``table`` for the tournament by hand (every table of an open
    tournament, and any beside a round's). Written in the same transaction as the table's
    own ``table_created``: the one is never stored without the other."""

    table: str


class TournamentFinished(TournamentEvent, frozen=True, tag="tournament_finished"):
    seed: str  # the pairing seed, hex: anyone can now re-run every pairing


# typing.Union, not ``|``: the OpenAPI generator reads it as a tagged union.
TOURNAMENT_EVENTS = Union[  # noqa: UP007
    TournamentCreated,
    EntryAdded,
    EntryWithdrawn,
    RoundPaired,
    TableScored,
    TableOpened,
    TournamentFinished,
]
