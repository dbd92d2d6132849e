"""The inline ``table_state`` projection: the row written in each command's transaction.

The command handler loads this snapshot instead of replaying the stream; the listing
columns (game, status, tournament) are what ``GET /tables`` filters on. Rebuilding it is
a fold of the table's events (:func:`domain.table.fold`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from domain import table as tables
from domain.table import Table

_encoder = msgspec.msgpack.Encoder()


class TableRow(msgspec.Struct, frozen=True):
    game: str
    status: str
    tournament: str | None
    players: list[str]
    state: bytes
    computer_turn: bool = False  # the table waits on a seat the computer plays
    deadline: datetime | None = None  # the earliest running clock's (DESIGN 10)


def project(table: Table[Any]) -> TableRow:
    return TableRow(
        game=table.game,
        status=table.status,
        tournament=table.tournament,
        players=[name for name in table.names if name is not None],
        state=_encoder.encode(table),
        computer_turn=bool(tables.computer_to_act(table)),
        deadline=table.next_deadline if table.status == "playing" else None,
    )
