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
from domain.pinochle.events import ChipsSettled
from domain.table import Table
from domain.tournament.model import Outcome, TableResult

# How a table's deals are counted (recorded on the tournament, so that a result recorded
# under earlier rules is re-run under them): 1, the deals scored in points only (a chips
# Pinochle table's deals counted for nothing, and its duplicate matchpoints were all 0);
# 2, a chips game's deals too, each the sum of the chips it moved.
RESULTS_RULES = 2


def table_result(
    table: Table[Any],
    seats: Sequence[str],
    events: Sequence[Event],
    rules: int = RESULTS_RULES,
) -> tuple[TableResult, str]:
    """The result of an ended ``table`` seating ``seats`` (entry per seat), given its
    events (for each deal's points, counted by results ``rules``), and the reason it
    ended."""
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
    scored: dict[int, list[int]] = {}  # deal number: its points per seat, in deal order
    for event in events:
        if isinstance(event, CardsDealt):
            decks[event.deal] = event.commitment
        elif isinstance(event, HandScored):
            scored[event.deal] = [event.changes[unit_of[seat]] for seat in range(count)]
        elif isinstance(event, ChipsSettled) and rules >= 2 and event.reason != "kitty_shared":
            # A deal may move chips more than once (the ante, then the contract); sharing
            # out the kitty at the end settles the table, not a deal.
            moved = scored.setdefault(event.deal, [0] * count)
            scored[event.deal] = [a + b for a, b in zip(moved, event.changes, strict=True)]
    result = TableResult(
        seats=tuple(seats),
        outcomes=outcomes,
        scores=scores,
        deal_scores=tuple(tuple(points) for points in scored.values()),
        deal_decks=tuple(decks[deal] for deal in scored),
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
