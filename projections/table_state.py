"""The inline ``table_state`` projection: the row written in each command's transaction.

The command handler loads this snapshot instead of replaying the stream; the listing
columns (game, status, tournament) are what ``GET /tables`` filters on. Rebuilding it is
a fold of the table's events (:func:`domain.table.fold`).

A table's decks (operator-dealt tables, tournaments) never change once it is opened, and
are most of its bytes (60 decks: 9.5 KB, against under 1 KB for the rest): they are
stored apart from ``state`` and written with the table's first commit only (or the first
commit after an older snapshot that holds them inside ``state``), so that a command does
not encode, send and rewrite them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
from msgspec.structs import replace

from domain import table as tables
from domain.table import Table

_encoder = msgspec.msgpack.Encoder()
_decks_decoder = msgspec.msgpack.Decoder(tuple[tuple[str, ...], ...])


class TableRow(msgspec.Struct, frozen=True):
    game: str
    status: str
    tournament: str | None
    players: list[str]
    state: bytes  # the table without its decks
    computer_turn: bool = False  # the table waits on a seat the computer plays
    deadline: datetime | None = None  # the earliest running clock's (DESIGN 10)
    decks: bytes | None = None  # only when written: what ``decks`` stores


def project(table: Table[Any], *, write_decks: bool) -> TableRow:
    """The row of ``table``; with its decks when ``write_decks`` (the table's first commit,
    or one whose snapshot still held its decks inside ``state``)."""
    return TableRow(
        game=table.game,
        status=table.status,
        tournament=table.tournament,
        players=[name for name in table.names if name is not None],
        state=_encoder.encode(replace(table, decks=()) if table.decks else table),
        computer_turn=bool(tables.computer_to_act(table)),
        deadline=table.next_deadline if table.status == "playing" else None,
        decks=_encoder.encode(table.decks) if write_decks and table.decks else None,
    )


def with_decks(table: Table[Any], decks: bytes | None) -> Table[Any]:
    """``table`` decoded from ``state``, with the decks stored apart (snapshots written
    before they were kept apart hold them in ``state``, and have none apart)."""
    return table if decks is None else replace(table, decks=_decks_decoder.decode(decks))
