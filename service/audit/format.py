"""The export format: NDJSON, one header line, then one line per event in version order.

A line is a JSON object tagged by ``type``:

- ``header``: the table's game, options, rules-engine version, seats and players, and
  the version and chain hash of the last event exported (the ``head``);
- ``event``: an event exactly as stored — ``version``, ``recorded_at``, ``actor``, the
  ``command`` that caused its batch (on the batch's first event, else ``null``), the
  event ``data`` and its chain ``hash``.

The chain hash of version ``v`` is ``sha256(hash(v-1) || canonical)`` where the genesis
hash is 32 zero bytes and ``canonical`` is the sorted-key JSON of ``{"table", "version",
"at", "actor", "data", "command"}`` (``service.write.store.canonical_bytes``). ``data`` and
``command`` are written as the store holds them, never re-encoded from a newer event
type, so the hashes can be recomputed from the file alone.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

import msgspec

from domain.events import Event
from domain.tournament.events import TOURNAMENT_EVENTS
from service.write.codec import event_classes

FORMAT: Literal["cardroom-export/1"] = "cardroom-export/1"
NDJSON = "application/x-ndjson"

Hash = Annotated[
    str,
    msgspec.Meta(pattern=r"^[0-9a-f]{64}$(?!\n)", description="A SHA-256 digest, lower-case hex."),
]

if TYPE_CHECKING:
    AnyEvent = Event
else:
    AnyEvent = Union[event_classes()]  # noqa: UP007


class ExportPlayer(msgspec.Struct, frozen=True):
    seat: int
    name: str | None


class ExportHeader(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="header"):
    """The first line of an export: what was played, by whom, under which rules."""

    format: Literal["cardroom-export/1"]
    table: str
    game: str
    seats: int
    options: dict[str, Any]
    rules_version: Annotated[
        str, msgspec.Meta(description="The rules-engine version the table was played under.")
    ]
    tournament: str | None
    players: list[ExportPlayer]
    status: Literal["waiting", "playing", "finished", "aborted", "expired"]
    version: Annotated[int, msgspec.Meta(description="The last version exported.")]
    head: Annotated[Hash, msgspec.Meta(description="The chain hash of that last version.")]
    exported_at: datetime


class ExportEvent(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="event"):
    """One stored event. ``command`` is the request that caused the batch the event opens
    (a seat's command, ``take_seat``, the table's creation, the service's chance steps
    ``supply_deck`` and ``reveal_seed``, the clock's ``set_clock``, ``expire`` and
    ``extend_clocks``, the operator's ``replace``, ``abort``, ``pause`` and ``resume``, or
    retention's ``expire_table``); ``null`` on the batch's later events."""

    version: int
    recorded_at: datetime
    actor: Annotated[
        str,
        msgspec.Meta(
            description=(
                "Who caused the batch: `seat:N` (the seat's player), `computer:N` (the"
                " computer, for its seat or an absent player's), `clock` (the timekeeper's"
                " own steps), `clock:N` (a move the clock made for seat N), `system` (chance"
                " and clock steps), `operator` (a table the operator opened, and every"
                " intervention: pause, resume, abort and replace, a tournament director's at"
                " its own tables included), `director` (a table a tournament's director"
                " opened, and its seats), `tournament` (a round's table, opened as the round"
                " was paired), `retention` (a table nobody filled, expired) or `anonymous`"
                " (a table anybody opened)."
            )
        ),
    ]
    command: dict[str, Any] | None
    data: AnyEvent
    hash: Hash


class StoredLine(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """An event line with ``data`` and ``command`` as raw JSON: written by the exporter
    exactly as stored, and read by the verifier without any re-interpretation. (A raw
    ``command`` of ``null`` stands for none: msgspec takes ``Raw`` whole, not in unions.)"""

    version: int
    recorded_at: datetime
    actor: str
    command: msgspec.Raw
    data: msgspec.Raw
    hash: str


class EventLine(StoredLine, frozen=True, kw_only=True, tag="event"):
    """One event of a table's stream, exactly as stored (see ``StoredLine``)."""


# --- a tournament's export (DESIGN 14) ---------------------------------------------------
# Its own stream first — a ``tournament_header`` line, then a ``tournament_event`` line per
# event, chained like a table's with the tournament's id in place of the table's — then
# the export of every table its rounds opened, each starting with its own ``header``.

TOURNAMENT_FORMAT: Literal["cardroom-tournament-export/1"] = "cardroom-tournament-export/1"


class TournamentHeader(
    msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="tournament_header"
):
    format: Literal["cardroom-tournament-export/1"]
    tournament: str
    name: str
    game: str
    tournament_format: str
    status: Literal["open", "playing", "finished"]
    version: Annotated[int, msgspec.Meta(description="The last version exported.")]
    head: Annotated[Hash, msgspec.Meta(description="The chain hash of that last version.")]
    tables: Annotated[
        list[str],
        msgspec.Meta(
            description="The tables whose exports follow, in order: those its rounds"
            " paired, then those the operator opened for it by hand."
        ),
    ]
    exported_at: datetime


class TournamentEventLine(StoredLine, frozen=True, kw_only=True, tag="tournament_event"):
    """One event of the tournament's stream, exactly as stored (see ``StoredLine``)."""


if TYPE_CHECKING:
    ExportLine = ExportHeader | ExportEvent
else:
    ExportLine = Union[ExportHeader, ExportEvent]  # noqa: UP007


class TournamentExportEvent(
    msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="tournament_event"
):
    """One event of the tournament's stream: who caused it (`operator`, `director`,
    `entry:<id>` or `tournament`, the service's own round keeping), the request, the
    event and its chain hash."""

    version: int
    recorded_at: datetime
    actor: str
    command: dict[str, Any] | None
    data: TOURNAMENT_EVENTS
    hash: Hash


if TYPE_CHECKING:
    TournamentExportLine = TournamentHeader | TournamentExportEvent | ExportHeader | ExportEvent
else:
    TournamentExportLine = Union[  # noqa: UP007
        TournamentHeader, TournamentExportEvent, ExportHeader, ExportEvent
    ]
