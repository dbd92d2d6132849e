"""Re-running a table's liveness batches (DESIGN 10): the clock steps, the timekeeper's
expiries and extensions, the operator's replace, pause, resume and abort, and the
retention sweeper's expiry of a table nobody filled (DESIGN 12).

Each is one batch opened by its command, decided at the batch's ``recorded_at`` — the
instant the service passed to the rules (every event of a commit carries it):

- ``set_clock`` (actor ``system``), after the chance steps that follow a batch, on a
  table with a clock: ``liveness.set_clock(table, at, acted, moved=moved)``;
- ``expire`` (actor ``clock``): ``liveness.expire(table, at)``;
- ``extend_clocks`` (actor ``clock``), after the timekeeper was down since
  ``down_since``: ``liveness.extend(table, at, down_since)``;
- ``replace``, ``abort``, ``pause``, ``resume`` (actor ``operator``);
- ``expire_table`` (actor ``retention``): ``tables.expire_waiting(table)``. How long the
  table waited is the service's setting, not a rule: the rules check that it was waiting.

A clock step's ``acted`` and ``moved`` are not the rules' to check, yet they decide whose
turn is charged and who gets fresh ``action_seconds``: the verifier remembers the batch
the step follows (:class:`Timing`) and holds the step to it. That is the batch just
before it, chance steps aside — not the last seat's command since the previous clock
step: a step that changes nothing is not recorded, so a seat's command (an off-turn
``leave``, say) may have had none, and the step after a later take-over or operator
command rightly names no seat.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any, Union

import msgspec

from domain import liveness
from domain import table as tables
from domain.errors import RuleError
from domain.events import ClockExpired, Event
from domain.table import Table
from service.audit.entries import Entry, Mismatch
from service.write.codec import convert

SYSTEM = "system"
CLOCK = "clock"
OPERATOR = "operator"
RETENTION = "retention"


# The table commands as the service records them. Unknown fields are let through: the
# rules read only these, and the hash chain already covers the rest.
class SetClock(msgspec.Struct, frozen=True, tag_field="type", tag="set_clock"):
    acted: int | None
    moved: bool


class Expire(msgspec.Struct, frozen=True, tag_field="type", tag="expire"):
    pass


class ExtendClocks(msgspec.Struct, frozen=True, tag_field="type", tag="extend_clocks"):
    down_since: Annotated[datetime, msgspec.Meta(tz=True)]
    at_least_ms: int = 0  # engine 1.2.0 on: the least time given back


class ReplaceSeat(msgspec.Struct, frozen=True, tag_field="type", tag="replace"):
    seat: int
    name: str
    computer: bool = False


class Abort(msgspec.Struct, frozen=True, tag_field="type", tag="abort"):
    reason: str


class Pause(msgspec.Struct, frozen=True, tag_field="type", tag="pause"):
    pass


class Resume(msgspec.Struct, frozen=True, tag_field="type", tag="resume"):
    pass


class ExpireTable(msgspec.Struct, frozen=True, tag_field="type", tag="expire_table"):
    pass


class CallTime(msgspec.Struct, frozen=True, tag_field="type", tag="call_time"):
    pass


TableCommand = Union[  # noqa: UP007
    SetClock, Expire, ExtendClocks, ReplaceSeat, Abort, Pause, Resume, ExpireTable, CallTime
]

# Who may send each: the service's clock step, the timekeeper, the operator, retention.
ACTORS: dict[str, str] = {
    "set_clock": SYSTEM,
    "expire": CLOCK,
    "extend_clocks": CLOCK,
    "replace": OPERATOR,
    "abort": OPERATOR,
    "pause": OPERATOR,
    "resume": OPERATOR,
    "expire_table": RETENTION,
    "call_time": CLOCK,
}


class Acted(msgspec.Struct, frozen=True):
    """A batch in which a seat acted: a seat's, the computer's or the clock's command, or
    the expiry of the seat's turn."""

    seat: int
    actor: str
    version: int

    @property
    def by_player(self) -> bool:
        return self.actor.startswith("seat:")


class Timing(msgspec.Struct, kw_only=True):
    """What the verifier remembers of the batch before, to hold the clock's commands to."""

    acted: Acted | None = None  # a seat's command or expiry: the batch a clock step times
    expired: tuple[int, int] | None = None  # (seat, version): an expiry the clock may play
    # When the time lost to an outage was last given back: a later outage began after it.
    given_back_at: datetime | None = None


def instant(entry: Entry) -> datetime:
    """The instant the service passed to the rules for this batch: its ``recorded_at``,
    which must say its offset, or no deadline could be compared with it."""
    if entry.recorded_at.tzinfo is None:
        raise Mismatch(entry.version, "recorded_at has no UTC offset: it is no instant")
    return entry.recorded_at


def table_command(
    table: Table[Any], entry: Entry, command: dict[str, Any], timing: Timing
) -> list[Event]:
    """The events the rules give for the liveness batch opened by ``entry``."""
    kind = str(command.get("type"))
    if entry.actor != ACTORS[kind]:
        raise Mismatch(entry.version, f"{kind} recorded for {entry.actor!r}, not {ACTORS[kind]!r}")
    try:
        decided = convert(command, TableCommand)
    except msgspec.ValidationError as exc:
        raise Mismatch(entry.version, f"{kind}: not a command the service records: {exc}") from None
    at = instant(entry)
    try:
        match decided:
            case SetClock():
                return _set_clock(table, entry, decided, timing, at)
            case Expire():
                events = liveness.expire(table, at)
                assert isinstance(events[0], ClockExpired)
                seat = events[0].seat
                # The clock step after an expiry times the expired seat (the service
                # records it so, after the clock's autoplay if there is one).
                timing.acted = Acted(seat, entry.actor, entry.version)
                timing.expired = (seat, entry.version)
                return events
            case ExtendClocks(down_since=down_since, at_least_ms=at_least_ms):
                # An outage is given back once (DESIGN 10): the timekeeper beats again
                # after each recovery, so the next outage's down_since, its last beat,
                # comes after the time was given back.
                last = timing.given_back_at
                if last is not None and down_since < last:
                    raise Mismatch(
                        entry.version,
                        f"extend_clocks gives back the time since {down_since.isoformat()},"
                        f" though the table was given its time back at {last.isoformat()}:"
                        " an outage given back a second time",
                    )
                timing.given_back_at = at
                return liveness.extend(table, at, down_since, timedelta(milliseconds=at_least_ms))
            case ReplaceSeat(seat=seat, name=name, computer=computer):
                return liveness.replace_seat(table, seat, name, computer=computer)
            case Abort(reason=reason):
                return liveness.abort(table, reason)
            case Pause():
                return liveness.pause(table, at)
            case Resume():
                return liveness.resume(table, at)
            case ExpireTable():
                return tables.expire_waiting(table)
            case CallTime():
                return liveness.call_time(table, at)
    except RuleError as exc:
        raise Mismatch(
            entry.version, f"the rules refuse {kind}: {exc.code.value}: {exc.message}"
        ) from None
    raise AssertionError(f"unhandled table command {decided!r}")


def _set_clock(
    table: Table[Any], entry: Entry, step: SetClock, timing: Timing, at: datetime
) -> list[Event]:
    """A clock step must name the seat of the batch it times, and say ``moved`` only for
    a player's own command: a forged ``acted`` would give that seat fresh time, a forged
    ``moved`` would wipe its run of expiries."""
    if table.clock is None:
        raise Mismatch(entry.version, "a clock step on a table without a clock")
    acted, timing.acted = timing.acted, None
    if acted is not None and acted.actor == CLOCK and step.acted is None:
        # An expiry stopped the seat's clock already: naming it or no seat times it alike.
        acted = None
    if acted is None and step.acted is not None:
        raise Mismatch(
            entry.version,
            f"the clock step says seat {step.acted} acted; the batch it follows is no"
            " seat's command",
        )
    if acted is not None and step.acted != acted.seat:
        said = "no seat" if step.acted is None else f"seat {step.acted}"
        raise Mismatch(
            entry.version,
            f"the clock step says {said} acted; the batch it times (version {acted.version})"
            f" is seat {acted.seat}'s, sent by {acted.actor!r}",
        )
    if step.moved and (acted is None or not acted.by_player):
        by = "no seat's command" if acted is None else f"sent by {acted.actor!r}"
        raise Mismatch(
            entry.version, f"the clock step says the player moved; the batch it times is {by}"
        )
    if not step.moved and acted is not None and acted.by_player:
        # The service records every player's own command as moved: a batch relabelled
        # from the clock's or the computer's to the player's would keep its false here.
        raise Mismatch(
            entry.version,
            f"the clock step says the player did not move; the batch it times (version"
            f" {acted.version}) was sent by {acted.actor!r}",
        )
    return liveness.set_clock(table, at, step.acted, moved=step.moved)
