"""Tables that always finish (DESIGN 10): clocks, absent players, leaving, resigning,
replacing, pausing and aborting — the same for every game, around its rules.

The clock: each turn a seat gets ``action_seconds``; past them its bank (per game, never
refilled) runs; when both are spent the turn expires. The table keeps, per seat, when its
turn began (``since``) and the bank left; a ``clock_set`` event records every change, so
a fold of the events knows every deadline. Time comes in on the command (``at``), as the
service read it when it decided: the domain never reads a clock, and the verifier re-runs
every clock step from the recorded instants.

On expiry the table either forfeits (the expired seat's side loses) or the computer plays
the turn for the seat; a seat whose turns expire twice in a row is marked absent, and the
computer plays it on every turn until its player sends a command of its own.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from msgspec.structs import replace

from domain import table as tables
from domain.commands import Leave, PlayerCommand, Resign, Return
from domain.engine import HELD_PAUSE
from domain.errors import RuleCode, RuleError
from domain.events import (
    ClockExpired,
    ClockSet,
    Event,
    GameForfeited,
    GameResigned,
    SeatLeft,
    SeatMarkedAbsent,
    SeatReplaced,
    SeatReturned,
    TableAborted,
    TablePaused,
    TableResumed,
    TimeCalled,
)
from domain.table import Table

ABSENT_AFTER = 2  # expiries in a row that mark a seat absent
# The engine from which the time given back after an outage is at least ``at_least``.
GIVEN_BACK_AT_LEAST = "1.2.0"
# The engine from which seats whose time runs out at the same instant all forfeit.
FORFEIT_TOGETHER = "1.3.0"
# The engine from which a clock_set's deadline is the turn's, never a timed round's end.
TURN_DEADLINE = "1.4.0"


def decide(table: Table[Any], command: PlayerCommand, seat: int, at: datetime) -> list[Event]:
    """A command sent by ``seat``'s player at ``at``: a seat command of every game
    (``leave``, ``resign``, ``return``) or a move of the game. A move after the seat's
    deadline is refused (the clock acts for it instead); a move by an absent seat's
    player brings the seat back first."""
    match command:
        case Leave():
            return _leave(table, seat)
        case Resign():
            return _resign(table, seat)
        case Return():
            tables.require_open(table)
            if seat not in table.absent:
                raise RuleError(RuleCode.NOT_ALLOWED_NOW, f"seat {seat} is not absent", seat=seat)
            return [SeatReturned(seat=seat)]
    deadline = table.deadline(seat)
    if deadline is not None and at >= deadline:
        raise RuleError(RuleCode.CLOCK_EXPIRED, f"seat {seat}'s time ran out", seat=seat)
    try:
        events = tables.decide(table, command, seat)
    except RuleError as refused:
        # The move of a seat whose last turn ran out, sent once the clock had played it:
        # the player learns that his time ran out, not merely that it is not his turn.
        if refused.code is RuleCode.NOT_YOUR_TURN and seat in table.strikes:
            raise RuleError(
                RuleCode.CLOCK_EXPIRED,
                f"seat {seat}'s time ran out: the clock played its turn",
                seat=seat,
            ) from None
        raise
    return [SeatReturned(seat=seat), *events] if seat in table.absent else events


def _leave(table: Table[Any], seat: int) -> list[Event]:
    tables.require_open(table)
    return [SeatLeft(seat=seat)]


def _resign(table: Table[Any], seat: int) -> list[Event]:
    tables.require_open(table)
    if table.status != "playing":
        raise RuleError(RuleCode.NOT_ALLOWED_NOW, "the game has not started")
    if len(table.rules.units(len(table.names))) != 2:
        raise RuleError(
            RuleCode.NO_SIDES,
            f"{table.game} has no two sides to resign to; leave the table instead",
            seat=seat,
        )
    winners, losers = _sides(table, [seat])
    return [GameResigned(seat=seat, winners=winners, losers=losers)]


def _sides(table: Table[Any], seats: list[int]) -> tuple[list[int], list[int]]:
    """The seats that win and lose when ``seats`` give up: their partnerships lose."""
    units = [u for u in table.rules.units(len(table.names)) if set(u) & set(seats)]
    losers = sorted(s for unit in units for s in unit)
    return [s for s in range(len(table.names)) if s not in losers], losers


# --- the operator ---------------------------------------------------------------------


def replace_seat(table: Table[Any], seat: int, name: str, *, computer: bool) -> list[Event]:
    """The operator seats another player (or the computer); the old token is revoked."""
    if not 0 <= seat < len(table.names):
        raise RuleError(RuleCode.NO_SUCH_SEAT, f"this table has seats 0 to {len(table.names) - 1}")
    refuse_if_over(table)
    return [SeatReplaced(seat=seat, name=name, computer=computer)]


def abort(table: Table[Any], reason: str) -> list[Event]:
    refuse_if_over(table)  # a paused table may be aborted
    return [TableAborted(reason=reason)]


def pause(table: Table[Any], at: datetime) -> list[Event]:
    tables.require_open(table)
    if table.status != "playing":
        raise RuleError(RuleCode.NOT_ALLOWED_NOW, "only a game in play can be paused")
    return [TablePaused(at=at)]


def resume(table: Table[Any], at: datetime) -> list[Event]:
    """Clocks restart where they stood: each running turn is moved on by the pause."""
    if table.engine_since(HELD_PAUSE):
        refuse_if_over(table)  # aborted while paused: it stays as it ended
    if table.paused_at is None:
        tables.require_open(table)
        raise RuleError(RuleCode.NOT_PAUSED, "the table is not paused")
    resumed = TableResumed(at=at)
    return [resumed, *_shifted(tables.evolve(table, resumed), at - table.paused_at, None)]


def refuse_if_over(table: Table[Any]) -> None:
    """The refusal of a table that ended: finished, aborted or expired."""
    if table.status in ("finished", "aborted", "expired"):
        tables.require_open(table)


# --- the clock ------------------------------------------------------------------------


def set_clock(
    table: Table[Any], at: datetime, acted: int | None, *, moved: bool = False
) -> list[Event]:
    """The clocks after a batch of events, at ``at``: the seat that ``acted`` and every
    seat no longer to act are charged for their turn (past ``action_seconds``, from the
    bank) and stopped; every seat to act that is not running starts now. ``moved``: the
    seat that acted is its player (not the computer or the clock), so its strikes end.
    No event when nothing changed, never one on a table without a clock, and none while
    the table is paused (the pause holds the clocks)."""
    if table.clock is None:
        return []
    if table.paused_at is not None and table.engine_since(HELD_PAUSE):
        return []  # a pause holds every running turn where it stood; resume moves it on
    # Engine 1.0.0's pause: every running turn charged and stopped.
    on = set(tables.to_act(table)) if table.paused_at is None else set()
    since, banks = list(table.since), list(table.banks)
    action_ms = table.clock.action_seconds * 1000
    for seat in range(len(table.names)):
        started = since[seat]
        if started is not None and (seat == acted or seat not in on):
            used = _ms(at - started)
            banks[seat] = max(0, banks[seat] - max(0, used - action_ms))
            since[seat] = None
        if seat in on and since[seat] is None:
            since[seat] = at
    mover = acted if moved and acted in table.strikes else None
    if since == list(table.since) and banks == list(table.banks) and mover is None:
        return []
    return [_clock_event(table, since, banks, mover)]


def expire(table: Table[Any], at: datetime) -> list[Event]:
    """The events of the first turn that expired by ``at``: ``clock_expired``, then
    either the forfeit or, after the second expiry in a row, the seat marked absent.
    The computer's move for the seat (on ``autoplay``) follows as a command of its own.
    On ``forfeit``, every seat whose turn expired at that same instant forfeits with it
    (engine 1.3.0 on): a ``clock_expired`` each, then one ``game_forfeited``."""
    expired = [
        (deadline, seat)
        for seat in range(len(table.names))
        if (deadline := table.deadline(seat)) is not None and deadline <= at
    ]
    if table.clock is None or not expired or table.status != "playing":
        raise RuleError(RuleCode.NOT_ALLOWED_NOW, "no clock has expired")
    first, seat = min(expired)
    if table.clock.on_timeout == "forfeit":
        # Seats acting at once (Reserve Bridge's reserves) whose time runs out at the same
        # instant are equally late: all of them forfeit, not the lowest seat alone.
        late = [seat]
        if table.engine_since(FORFEIT_TOGETHER):
            late = sorted(s for deadline, s in expired if deadline == first)
        expiries: list[Event] = [
            ClockExpired(seat=s, in_a_row=2 if s in table.strikes else 1) for s in late
        ]
        winners, losers = _sides(table, late)
        return [*expiries, GameForfeited(seat=seat, winners=winners, losers=losers)]
    in_a_row = 2 if seat in table.strikes else 1
    events: list[Event] = [ClockExpired(seat=seat, in_a_row=in_a_row)]
    if in_a_row >= ABSENT_AFTER and seat not in table.absent:
        events.append(SeatMarkedAbsent(seat=seat))
    return events


def due(table: Table[Any], at: datetime) -> bool:
    deadline = table.next_deadline
    return table.status == "playing" and deadline is not None and deadline <= at


def time_due(table: Table[Any], at: datetime) -> bool:
    """Whether the table's timed round is over and its time not yet called."""
    return (
        table.status == "playing"
        and table.ends_at is not None
        and not table.time_called
        and table.ends_at <= at
    )


def call_time(table: Table[Any], at: datetime) -> list[Event]:
    """The round's time is up (DESIGN 14): the deal in progress is played out and no
    other starts; between two deals the game ends at once (``table.settle`` ends it)."""
    if not time_due(table, at):
        raise RuleError(RuleCode.NOT_ALLOWED_NOW, "the table's round is not out of time")
    return [TimeCalled()]


def extend(
    table: Table[Any], at: datetime, down_since: datetime, at_least: timedelta = timedelta(0)
) -> list[Event]:
    """Give back the time no timekeeper ran, from ``down_since`` to ``at``: each running
    turn is moved on by the part of that outage it spent (DESIGN 10), and further if it
    would then expire within ``at_least`` of ``at`` (time for a player told to send the
    move again to do so) — from engine 1.2.0 on: an older table gets exactly the time it
    had left, whatever ``at_least`` says (so an export claiming more fails to re-run)."""
    if table.clock is None or table.paused_at is not None:
        return []
    since = [
        None if s is None else s + max(at - max(down_since, s), timedelta(0)) for s in table.since
    ]
    if at_least > timedelta(0) and table.engine_since(GIVEN_BACK_AT_LEAST):
        moved = replace(table, since=tuple(since))
        for seat, started in enumerate(since):
            deadline = moved.deadline(seat)
            if started is not None and deadline is not None and deadline < at + at_least:
                since[seat] = started + (at + at_least - deadline)
    if since == list(table.since):
        return []
    return [_clock_event(table, since, list(table.banks), None)]


def _shifted(table: Table[Any], by: timedelta, mover: int | None) -> list[Event]:
    if table.clock is None or all(s is None for s in table.since):
        return []
    since = [None if s is None else s + by for s in table.since]
    return [_clock_event(table, since, list(table.banks), mover)]


def _clock_event(
    table: Table[Any], since: list[datetime | None], banks: list[int], mover: int | None
) -> ClockSet:
    after = replace(table, since=tuple(since), banks=tuple(banks))
    deadline = after.turn_deadline if table.engine_since(TURN_DEADLINE) else after.next_deadline
    return ClockSet(since=since, banks=banks, deadline=deadline, moved=mover)


def _ms(span: timedelta) -> int:
    return int(span.total_seconds() * 1000)
