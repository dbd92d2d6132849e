"""Writing an export: the header from the table's snapshot, then its events as stored."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import msgspec

from service.audit.format import FORMAT, EventLine, ExportHeader, ExportPlayer
from service.write.handler import Loaded, TableService
from service.write.store import StoredEvent
from service.write.tournament_store import StoredTournamentEvent

PAGE = 1000
_NULL = msgspec.Raw(b"null")
_encode = msgspec.json.Encoder().encode


def header(loaded: Loaded, at: datetime) -> ExportHeader:
    table = loaded.table
    return ExportHeader(
        format=FORMAT,
        table=table.id,
        game=table.game,
        seats=len(table.names),
        options=table.options,
        rules_version=table.rules_version,
        tournament=table.tournament,
        players=[ExportPlayer(seat, name) for seat, name in enumerate(table.names)],
        status=table.status,
        version=table.version,
        head=loaded.last_hash.hex(),
        exported_at=at,
    )


def event_line(stored: StoredEvent) -> EventLine:
    return EventLine(**line_fields(stored))


def line_fields(stored: StoredEvent | StoredTournamentEvent) -> dict[str, Any]:
    """An event line's fields, from a table's or a tournament's stored event."""
    return {
        "version": stored.version,
        # The hash covers the instant as written (UTC); the session's time zone must not
        # change how it is spelled.
        "recorded_at": stored.recorded_at.astimezone(UTC),
        "actor": stored.actor,
        "command": stored.command if stored.command is not None else _NULL,
        "data": stored.data,
        "hash": stored.hash,
    }


async def export_lines(service: TableService, loaded: Loaded) -> AsyncIterator[bytes]:
    """The export of the table ``loaded`` as of its snapshot: later events are left out,
    so the header's ``version`` and ``head`` describe exactly the lines that follow."""
    table = loaded.table
    yield _encode(header(loaded, datetime.now(UTC))) + b"\n"
    after = 0
    while after < table.version:
        page = await service.store.read_stream(table.id, after, PAGE)
        if not page:
            return
        for stored in page:
            if stored.version > table.version:
                return
            yield _encode(event_line(stored)) + b"\n"
        after = page[-1].version
