"""The records every reader is answered with: an event as a caller may see it, a view,
a command's result, and a tournament's event. Shared by the HTTP layer, the relay (which
publishes records to Redis) and the write path (which stores a command's answer with its
idempotency key).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Union

import msgspec

from domain.events import Event
from domain.protocol import View
from domain.registry import GAMES
from domain.tournament.events import TOURNAMENT_EVENTS
from service.write.codec import event_classes

if TYPE_CHECKING:
    TableView = View
    AnyEvent = Event
else:
    TableView = Union[tuple(game.view_type for game in GAMES.values())]  # noqa: UP007
    AnyEvent = Union[event_classes()]  # noqa: UP007


class EventRecord(msgspec.Struct, frozen=True):
    """One event of a table's stream, as the caller may see it."""

    version: int
    at: datetime
    actor: str
    event: AnyEvent


class TournamentEventRecord(msgspec.Struct, frozen=True):
    """One event of a tournament's stream: public, as stored (no token is ever in it, and
    the seed only once ``tournament_finished`` reveals it)."""

    version: int
    at: datetime
    actor: str
    event: TOURNAMENT_EVENTS


class ActionResult(msgspec.Struct, frozen=True):
    """The new version, the events the command caused (as the seat sees them), the view."""

    version: int
    events: list[EventRecord]
    table: TableView
