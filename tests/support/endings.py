"""Tables that end each way DESIGN 10 allows — played to the end, resigned, forfeited on
the clock, aborted — driven through the domain as the service would, for the tests of
the read models. Instants are fixed: the domain never reads a clock.
"""

from __future__ import annotations

from datetime import UTC, datetime

from domain import liveness
from domain import table as tables
from domain.commands import Resign
from domain.events import ClockSettings, GameForfeited, HandScored
from tests.support.playout import Playout

T0 = datetime(2026, 12, 2, 20, 0, tzinfo=UTC)
FORFEIT = ClockSettings(action_seconds=5, bank_seconds=0, on_timeout="forfeit")


def seated(
    table_id: str,
    names: list[str],
    *,
    game: str = "forty-five",
    seed: int = 0,
    tournament: str | None = None,
    clock: ClockSettings | None = None,
) -> Playout:
    """A started table: ``names`` in seat order, the first deal answered."""
    created = tables.create(table_id, game, len(names), {}, tournament=tournament, clock=clock)
    playout = Playout(created, seed)
    for seat, name in enumerate(names):
        playout.apply(tables.take_seat(playout.table, seat, name))
    return playout


def play_until_scored(playout: Playout) -> None:
    """Random legal play until a deal has been scored, with the game still on."""
    for _ in playout.steps():
        if any(isinstance(event, HandScored) for event in playout.events):
            break
    assert playout.table.status == "playing", "the game ended with its first scored deal"


def resign(playout: Playout, seat: int) -> None:
    playout.apply(liveness.decide(playout.table, Resign(), seat, T0))


def forfeit(playout: Playout) -> int:
    """Start the clocks and let the first turn run out; the seat that forfeited.
    The table must have been created with a forfeiting clock (``FORFEIT``)."""
    playout.apply(liveness.set_clock(playout.table, T0, None))
    deadline = playout.table.next_deadline
    assert deadline is not None
    expired = liveness.expire(playout.table, deadline)
    playout.apply(expired)
    forfeited = expired[-1]
    assert isinstance(forfeited, GameForfeited), "the table's clock does not forfeit"
    return forfeited.seat


def abort(playout: Playout, reason: str = "the hall closes") -> None:
    playout.apply(liveness.abort(playout.table, reason))
