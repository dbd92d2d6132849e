"""How an ended table counts in its tournament (DESIGN 14), read off the table itself.

Two sides: the table's winners win and the rest lose (level when a timed round ended it:
a draw). Without sides (Pitch, Pinochle) the
top half of the final ranking wins — the game's winner first, then by score — and the rest
lose; seats level across that line draw. A seat that forfeited is ranked last. An aborted
(or expired) table counts nowhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain import table as tables
from domain.events import CardsDealt, Event, HandScored
from domain.table import Table
from domain.tournament.model import Outcome, TableResult


def table_result(
    table: Table[Any], seats: Sequence[str], events: Sequence[Event]
) -> tuple[TableResult, str]:
    """The result of an ended ``table`` seating ``seats`` (entry per seat), given its
    events (for each deal's points), and the reason it ended."""
    count = len(table.names)
    if table.result is None or table.result.reason == "aborted":
        draws = tuple[Outcome, ...](["draw"] * count)
        idle = TableResult(seats=tuple(seats), outcomes=draws, scores=(0,) * count, aborted=True)
        return idle, "aborted"
    units = table.rules.units(count)
    unit_of = {seat: index for index, unit in enumerate(units) for seat in unit}
    by_unit = tables.view(table, "operator").scores or [0] * len(units)
    scores = tuple(by_unit[unit_of[seat]] for seat in range(count))
    if len(units) == 2 and table.result.reason == "time" and not table.result.winners:
        outcomes = tuple[Outcome, ...](["draw"] * count)  # level when time was up
    elif len(units) == 2:
        winners = set(table.result.winners)
        outcomes = tuple[Outcome, ...]("win" if s in winners else "loss" for s in range(count))
    else:
        outcomes = _ranked(count, table.result.winners, table.result.losers, scores)
    decks: dict[int, str] = {}  # deal number: the commitment of the deck it was dealt
    deal_scores, deal_decks = [], []
    for event in events:
        if isinstance(event, CardsDealt):
            decks[event.deal] = event.commitment
        elif isinstance(event, HandScored):
            deal_scores.append(tuple(event.changes[unit_of[seat]] for seat in range(count)))
            deal_decks.append(decks[event.deal])
    result = TableResult(
        seats=tuple(seats),
        outcomes=outcomes,
        scores=scores,
        deal_scores=tuple(deal_scores),
        deal_decks=tuple(deal_decks),
    )
    return result, table.result.reason


def _ranked(
    count: int, winners: Sequence[int], losers: Sequence[int], scores: Sequence[int]
) -> tuple[Outcome, ...]:
    half = count // 2

    def key(seat: int) -> tuple[int, int]:
        standing = 1 if seat in winners else (-1 if seat in losers else 0)
        return (standing, scores[seat])

    order = sorted(range(count), key=key, reverse=True)
    line = key(order[half - 1]) if half else None
    below = key(order[half]) if half < count else None
    outcomes: list[Outcome] = ["loss"] * count
    for place, seat in enumerate(order):
        if line is not None and line == below and key(seat) == line:
            outcomes[seat] = "draw"  # level with a seat on the other side of the line
        elif place < half:
            outcomes[seat] = "win"
    return tuple(outcomes)
