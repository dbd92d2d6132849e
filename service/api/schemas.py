"""Request and response bodies of the HTTP API. Field names are part of the contract."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

import msgspec

from domain.cards import Card
from domain.commands import PlayerCommand
from domain.events import Event
from domain.protocol import View
from domain.registry import GAMES
from service.codec import event_classes

# The unions grow with the registry; type checkers see their common base instead.
if TYPE_CHECKING:
    GameId = str
    TableView = View
    AnyEvent = Event
else:
    GameId = Literal[tuple(GAMES)]
    TableView = Union[tuple(game.view_type for game in GAMES.values())]  # noqa: UP007
    AnyEvent = Union[event_classes()]  # noqa: UP007
Command = PlayerCommand

Name = Annotated[str, msgspec.Meta(min_length=1, max_length=40, pattern=r"^\S(.*\S)?$")]
SeatNumber = Annotated[int, msgspec.Meta(ge=0, le=6)]


class Deck(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A full pack, top card first, for one deal."""

    deck: Annotated[list[Card], msgspec.Meta(min_length=1, max_length=60)]


class CreateTable(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A new table. ``first_dealer`` and ``deals`` are for the operator only."""

    game: GameId
    seats: Annotated[int, msgspec.Meta(ge=2, le=7)]
    options: dict[str, Any] = msgspec.field(default_factory=dict)
    tournament: Annotated[str, msgspec.Meta(min_length=1, max_length=100)] | None = None
    first_dealer: SeatNumber | None = None
    deals: Annotated[list[Deck], msgspec.Meta(max_length=500)] | None = None


class TakeSeat(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: Name


class SeatGranted(msgspec.Struct, frozen=True):
    """The seat's bearer token: send it as ``Authorization: Bearer <token>``."""

    table: str
    seat: int
    token: str
    version: int


class EventRecord(msgspec.Struct, frozen=True):
    """One event of a table's stream, as the caller may see it."""

    version: int
    at: datetime
    actor: str
    event: AnyEvent


class EventPage(msgspec.Struct, frozen=True):
    """Events after the cursor; pass the last ``version`` as ``after`` to continue."""

    table: str
    version: int
    events: list[EventRecord]


class ActionResult(msgspec.Struct, frozen=True):
    """The new version, the events the command caused (as the seat sees them), the view."""

    version: int
    events: list[EventRecord]
    table: TableView


class Health(msgspec.Struct, frozen=True):
    status: Literal["ok", "unavailable"]
    checks: dict[str, str] = msgspec.field(default_factory=dict)
