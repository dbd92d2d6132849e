"""The score sheet of a table: a row per scored deal and the running totals (async).

A pure fold over the table's events; the runner (service/workers/projector.py) stores one
document per table, written with its checkpoint in one transaction. Every game reports a
deal through ``hand_scored`` (itemised points, the change per scoring unit, the running
scores), so one sheet serves all games; a unit is a seat or a partnership (``units``).
"""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from domain.events import Contract, Event, GameWon, HandScored, ScoreItem, SeatTaken, TableCreated
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
    match event:
        case SeatTaken(seat=seat, name=name):
            players = list(sheet.players)
            players[seat] = name
            return replace(sheet, players=players)
        case HandScored():
            row = SheetRow(
                deal=event.deal,
                version=version,
                contract=event.contract,
                items=list(event.items),
                changes=list(event.changes),
                totals=list(event.scores),
            )
            return replace(sheet, rows=[*sheet.rows, row], totals=list(event.scores))
        case GameWon(winners=winners, scores=scores):
            return replace(sheet, finished=True, winners=list(winners), totals=list(scores))
    return sheet


def check_totals(sheet: ScoreSheet) -> bool:
    """The running totals are the sums of the changes, row by row."""
    running = [0] * len(sheet.units)
    for row in sheet.rows:
        running = [a + b for a, b in zip(running, row.changes, strict=True)]
        if running != row.totals:
            return False
    return True
