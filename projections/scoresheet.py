"""The score sheet of a table: a row per scored deal and the running totals (async).

A pure fold over the table's events; the runner (service/workers/projector.py) stores one
document per table, written with its checkpoint in one transaction. A game reports a deal
through ``hand_scored`` (itemised points, the change per scoring unit, the running
scores), or, at an Auction Pinochle table that plays for chips, through the deal's
``chips_settled`` moves (the ante, the contract's chips, the kitty shared out after the
last deal), which make one row together; so one sheet serves all games, and a unit is a
seat or a partnership (``units``).

How the table ended is the sheet's ``result`` (DESIGN 10), as the table view shows it:
``played`` to the end (``game_won``), ``resigned``, ``forfeit`` (a clock ran out) or
``aborted`` by the operator. A resigned or forfeited game is ``finished`` with the
event's ``winners`` and the totals as they stood; an aborted table is never
``finished``. ``players`` are the names seated now (``projections.seats``), so a sheet
that has ended names the players who finished the game.
"""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from domain.events import Contract, Event, GameWon, HandScored, ScoreItem, TableCreated
from domain.pinochle.events import ChipsSettled
from domain.protocol import Result
from domain.table import result_of
from projections.seats import seated
from projections.units import scoring_units

NAME = "scoresheet"


class SheetRow(msgspec.Struct, frozen=True):
    """One scored deal: its contract, itemised points, the changes and the totals after."""

    deal: int
    version: int
    contract: Contract | None
    items: list[ScoreItem]
    changes: list[int]
    totals: list[int]


class ScoreSheet(msgspec.Struct, frozen=True, kw_only=True):
    table: str
    game: str
    units: list[list[int]]
    players: list[str | None]
    rows: list[SheetRow] = []
    totals: list[int] = []
    finished: bool = False
    winners: list[int] = []
    version: int = 0
    position: int = 0
    result: Result | None = None  # how the table ended; None while it is open


def fold(sheet: ScoreSheet | None, event: Event, version: int, position: int) -> ScoreSheet | None:
    """``sheet`` after one event of its table (``None`` until ``table_created``)."""
    if isinstance(event, TableCreated):
        units = scoring_units(event.game, event.seats)
        return ScoreSheet(
            table=event.table,
            game=event.game,
            units=units,
            players=[None] * event.seats,
            totals=[0] * len(units),
            version=version,
            position=position,
        )
    if sheet is None:
        return None
    sheet = replace(sheet, version=version, position=position)
    players = seated(sheet.players, event)
    if players is not None:
        return replace(sheet, players=players)
    match event:
        case HandScored(items=items) | ChipsSettled(count=items):
            row = SheetRow(
                deal=event.deal,
                version=version,
                contract=event.contract,
                items=list(items),
                changes=list(event.changes),
                totals=list(event.scores),
            )
            rows = (
                _joined(sheet.rows, row) if isinstance(event, ChipsSettled) else [*sheet.rows, row]
            )
            return replace(sheet, rows=rows, totals=row.totals)
    # How the table ended, as the table itself records it (``domain.table.result_of``).
    result = result_of(event, len(sheet.players))
    if result is None:
        return sheet
    if result.reason == "aborted":
        return replace(sheet, result=result)  # never finished
    # The totals stay as the last deal left them, unless the game was played to its end.
    totals = list(event.scores) if isinstance(event, GameWon) else sheet.totals
    return replace(sheet, finished=True, winners=list(result.winners), result=result, totals=totals)


def _joined(rows: list[SheetRow], row: SheetRow) -> list[SheetRow]:
    """A move of chips joins its deal's row, or opens it."""
    last = rows[-1] if rows else None
    if last is None or last.deal != row.deal:
        return [*rows, row]
    changes = [a + b for a, b in zip(last.changes, row.changes, strict=True)]
    contract = row.contract or last.contract
    return [
        *rows[:-1],
        replace(row, contract=contract, items=[*last.items, *row.items], changes=changes),
    ]


def check_totals(sheet: ScoreSheet) -> bool:
    """The running totals are the sums of the changes, row by row."""
    running = [0] * len(sheet.units)
    for row in sheet.rows:
        running = [a + b for a, b in zip(running, row.changes, strict=True)]
        if running != row.totals:
            return False
    return True
