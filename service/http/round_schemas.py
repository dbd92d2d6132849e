"""Bodies and answers of a tournament's entries and rounds (DESIGN 14)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import msgspec

from service.http.schemas import Name, NamingBody
from service.read.models import Tournament, TournamentSummary


class NewEntry(NamingBody, frozen=True, forbid_unknown_fields=True):
    """One player (``name``), or a fixed partnership (``names``, two); ``computer: true``
    enters the computer, which plays every table it is paired to (both seats of its side
    in a partnership event, under the one ``name`` it is given, "Computer" by default)."""

    name: Name | None = None
    names: Annotated[list[Name], msgspec.Meta(min_length=2, max_length=2)] | None = None
    computer: bool = False


class EntryCreated(msgspec.Struct, frozen=True):
    """The entry's id and its token: the player's way to ``/me`` and ``withdraw``. A
    partnership's two players get a token each, ``token`` for the first named and
    ``partner_token`` for the second: each opens its own player's seat, never the
    partner's hand."""

    entry: str
    token: str
    partner_token: str | None = None


class EntryInfo(msgspec.Struct, frozen=True):
    entry: str
    names: list[str]
    computer: bool
    first_round: int
    withdrawn: bool


class EntryList(msgspec.Struct, frozen=True):
    entries: list[EntryInfo]


class RoundTable(msgspec.Struct, frozen=True):
    """A table of the round: its id and the entry at each seat."""

    table: str
    seats: list[str]


class RoundInfo(msgspec.Struct, frozen=True):
    """A round: its tables in rank order (the head table first) and its byes;
    ``deadline`` ends a timed round."""

    round: int
    status: Literal["playing", "finished"]
    tables: list[RoundTable]
    byes: list[str]
    deadline: datetime | None


class TournamentOpened(Tournament, frozen=True):
    """The new tournament and its director's token: the operator's powers over this
    tournament only (entries, rounds, withdrawals)."""

    director_token: str = ""


class TournamentPage(msgspec.Struct, frozen=True):
    """Tournaments, newest first; pass ``next`` as ``cursor`` for the following page."""

    tournaments: list[TournamentSummary]
    next: str | None
