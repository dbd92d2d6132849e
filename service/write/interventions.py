"""Writes that are not a seat's move (DESIGN 10): the operator's replace, abort, pause and
resume, the timekeeper's expiries and downtime extensions, and retention's expiry of a
table nobody filled.

Each decides on the table as committed now and commits with its expected version
(``TableService.write``), so an intervention and a player's command racing for the same
version never both apply: the loser is decided again on the winner's table — an expiry
that a move got ahead of finds nothing due any more.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any, NamedTuple, TypeVar

import msgspec

from domain import computer, liveness
from domain import table as tables
from domain.events import ClockExpired, Event
from domain.table import Table
from service.refusals import ClocksRecovering, CommandConflict, PreconditionFailed
from service.write.handler import (
    GIVEN_BACK_AT_LEAST,
    RETRIES,
    Batch,
    Plan,
    TableService,
    etag,
    stale,
)

OPERATOR = "operator"
CLOCK = "clock"
RETENTION = "retention"
_T = TypeVar("_T")


def as_of(if_match: list[str] | None, table: Table[Any]) -> None:
    """The operator's ``If-Match`` (strong tags): the intervention is decided only on the
    version of the table it names, as a seat's command is (412 with the current ETag)."""
    current = etag(table.version, "operator")
    if stale(if_match, current):
        raise PreconditionFailed(
            f"the table is at version {table.version}", etag=current, version=table.version
        )


async def replace_seat(
    service: TableService,
    table_id: str,
    seat: int,
    name: str,
    *,
    by_computer: bool,
    if_match: list[str] | None = None,
) -> tuple[Table[Any], str | None]:
    """Give ``seat`` to ``name`` (or the computer); the old token stops working. The new
    player's token, unless the computer takes the seat."""
    command = {"type": "replace", "seat": seat, "name": name, "computer": by_computer}

    def plan(table: Table[Any], at: datetime) -> Plan:
        as_of(if_match, table)
        events = liveness.replace_seat(table, seat, name, computer=by_computer)
        return Plan([Batch(events, OPERATOR, command)])

    written = await service.write(table_id, plan, grant=None if by_computer else seat)
    assert written is not None
    return written


async def abort(
    service: TableService, table_id: str, reason: str, if_match: list[str] | None = None
) -> Table[Any]:
    command = {"type": "abort", "reason": reason}

    def decide(table: Table[Any], at: datetime) -> list[Event]:
        return liveness.abort(table, reason)

    return await _operate(service, table_id, command, decide, if_match)


async def pause(
    service: TableService, table_id: str, if_match: list[str] | None = None
) -> Table[Any]:
    """Hold the clocks where they stand. During an outage (no timekeeper has run for
    longer than a handover takes) the running turns are first given the outage back, in
    the same commit and recorded as the timekeeper records it: the pause would otherwise
    hold each turn with the outage charged, and the returning timekeeper gives no time
    back to a paused table (DESIGN 10: downtime is charged to nobody)."""

    async def attempt() -> Table[Any]:
        down_since = await service.clocks_down_since(service.clock())
        outage = None if down_since is None else await _outage(service, table_id, down_since)

        def plan(table: Table[Any], at: datetime) -> Plan:
            as_of(if_match, table)
            given = [] if outage is None else outage.given(table, at)
            paused = liveness.pause(_folded(table, [e for b in given for e in b.events]), at)
            return Plan([*given, Batch(paused, OPERATOR, {"type": "pause"})])

        written = await service.write(table_id, plan)
        assert written is not None
        return written[0]

    return await _looked_up_again(attempt)


async def resume(
    service: TableService, table_id: str, if_match: list[str] | None = None
) -> Table[Any]:
    """Restart the clocks where they stood; a table on the clock is refused during an
    outage, when no timekeeper would keep them and no move on the clock is taken
    (``clocks-recovering``)."""
    # Asked first: while the heartbeat is fresh this process knows it without a read,
    # and the table need not be loaded twice.
    down = await service.clocks_down_since(service.clock()) is not None
    if down and (await service.load(table_id)).table.clock is not None:
        raise ClocksRecovering(
            "no timekeeper has run for a while: the clocks restart once one runs again;"
            " send the resume again then"
        )

    def decide(table: Table[Any], at: datetime) -> list[Event]:
        # Every table, whatever its engine: a 1.0.0 table's rules took a resume after
        # an abort (re-run as they were), but none is taken any more.
        liveness.refuse_if_over(table)
        return liveness.resume(table, at)

    return await _operate(service, table_id, {"type": "resume"}, decide, if_match)


async def _operate(
    service: TableService,
    table_id: str,
    command: dict[str, Any],
    decide: Any,
    if_match: list[str] | None = None,
) -> Table[Any]:
    def plan(table: Table[Any], at: datetime) -> Plan:
        as_of(if_match, table)
        return Plan([Batch(decide(table, at), OPERATOR, command)])

    written = await service.write(table_id, plan)
    assert written is not None
    return written[0]


async def expire(service: TableService, table_id: str) -> Table[Any] | None:
    """Fire the table's clock if it expired: ``clock_expired`` (and the forfeit, or the
    seat marked absent), then on ``autoplay`` the computer's move for the seat, recorded
    as a command of actor ``clock:<seat>``; for a seat the computer plays, its move
    alone, as the computer's. ``None`` when nothing is due (any more)."""

    def plan(table: Table[Any], at: datetime) -> Plan | None:
        if liveness.time_due(table, at):
            return Plan([Batch(liveness.call_time(table, at), CLOCK, {"type": "call_time"})])
        if not liveness.due(table, at):
            return None
        late = _computer_late(table, at)
        if late is not None:
            # The computer plays this seat (its own, or an absent player's) and has not
            # moved in time only because the service was slow: its worker busy, or
            # between two leaders. The service's own delay is charged to no one (DESIGN
            # 10), so the computer moves now instead of losing the seat's time: a
            # forfeit would hand the game to the other side, an expiry mark it absent.
            move = computer.choose(table, late)
            events = tables.decide(table, move, late)
            return Plan([Batch(events, f"computer:{late}", msgspec.to_builtins(move))], acted=late)
        expired = liveness.expire(table, at)
        batches = [Batch(expired, CLOCK, {"type": "expire"})]
        first = expired[0]
        assert isinstance(first, ClockExpired)
        seat = first.seat
        after = _folded(table, expired)
        if after.status == "playing" and seat in tables.to_act(after):
            move = computer.choose(after, seat)
            batches.append(
                Batch(tables.decide(after, move, seat), f"clock:{seat}", msgspec.to_builtins(move))
            )
        return Plan(batches, acted=seat)

    written = await service.write(table_id, plan)
    return None if written is None else written[0]


async def extend(
    service: TableService, table_id: str, down_since: datetime, at_least: timedelta
) -> Table[Any] | None:
    """Give the table's running turns back the time since ``down_since`` that no
    timekeeper ran (DESIGN 10), and at least ``at_least`` from now (engine 1.2.0 on).
    Once is all a table gets: ``None`` when it had it already."""

    async def attempt() -> Table[Any] | None:
        outage = await _outage(service, table_id, down_since)
        if outage is None:
            return None

        def plan(table: Table[Any], at: datetime) -> Plan | None:
            given = outage.given(table, at, at_least)
            return Plan(given) if given else None

        written = await service.write(table_id, plan)
        return None if written is None else written[0]

    return await _looked_up_again(attempt)


class _Moved(Exception):
    """The table moved on from the version an outage was looked up at."""


class _Outage(NamedTuple):
    """An outage the table had not got back when it was at ``version``."""

    since: datetime
    version: int

    def given(
        self, table: Table[Any], at: datetime, at_least: timedelta = GIVEN_BACK_AT_LEAST
    ) -> list[Batch]:
        """The outage given back, only to the version it was looked up at."""
        if table.version != self.version:
            raise _Moved
        events = liveness.extend(table, at, self.since, at_least)
        if not events:
            return []
        command: dict[str, Any] = {"type": "extend_clocks", "down_since": self.since.isoformat()}
        if table.engine_since(liveness.GIVEN_BACK_AT_LEAST):  # older engines ignore it
            command["at_least_ms"] = int(at_least.total_seconds() * 1000)
        return [Batch(events, CLOCK, command)]


async def _outage(service: TableService, table_id: str, down_since: datetime) -> _Outage | None:
    """The outage since ``down_since``, unless the table got it back already: a recovery
    cut short gave some tables theirs (the next finds the same gap), and two can run at
    once (a stalled leader waking beside the next). Looked up after the table's version
    is read: a table given it meanwhile has moved on from that version, and is looked up
    again (:func:`_looked_up_again`)."""
    version = (await service.load(table_id)).table.version
    if await service.store.given_back(table_id, down_since):
        return None
    return _Outage(down_since, version)


async def _looked_up_again(attempt: Callable[[], Awaitable[_T]]) -> _T:
    for _ in range(RETRIES):
        try:
            return await attempt()
        except _Moved:
            continue
    raise CommandConflict("the table kept changing; try again")


async def expire_waiting(service: TableService, table_id: str) -> Table[Any] | None:
    """Retention: the table, still waiting for players, expires (``table_expired``,
    recorded as the command ``expire_table`` of actor ``retention``). ``None`` when it
    is not waiting any more: its last seat was taken first, or another sweeper expired
    it. How long it waited is the caller's business (service/workers/retention.py)."""

    def plan(table: Table[Any], at: datetime) -> Plan | None:
        if table.status != "waiting":
            return None
        events = tables.expire_waiting(table)
        return Plan([Batch(events, RETENTION, {"type": "expire_table"})])

    written = await service.write(table_id, plan)
    return None if written is None else written[0]


def _computer_late(table: Table[Any], at: datetime) -> int | None:
    """The first seat the computer plays whose deadline passed by ``at``, if any."""
    late = [
        (deadline, seat)
        for seat in tables.computer_to_act(table)
        if (deadline := table.deadline(seat)) is not None and deadline <= at
    ]
    return min(late)[1] if late else None


def _folded(table: Table[Any], events: list[Event]) -> Table[Any]:
    for event in events:
        table = tables.evolve(table, event)
    return table
