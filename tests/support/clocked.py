"""Exports of tables with liveness batches (DESIGN 10), written without a server.

:class:`Recorder` records a table batch by batch as the service does — a batch opened by
its command and actor, every event of it at the same instant, then the chance steps
(``domain.table.settle``), then on a clocked table the clock step — but decides each
batch with the domain functions directly, so tests need no endpoint for leaving,
expiring or the operator's commands. :meth:`Recorder.lines` gives the export's lines,
hashed as the store hashes them, for ``verify_lines`` and for tampering.
"""

from __future__ import annotations

import copy
import random
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec

from domain import RULES_ENGINE_VERSION, computer, liveness
from domain import table as tables
from domain.commands import PlayerCommand
from domain.events import ClockSettings, Event
from domain.protocol import Chance
from domain.table import Table
from service.audit.format import FORMAT
from tests.support.audit import document_of, rechain

T0 = datetime(2026, 12, 2, 20, 0, tzinfo=UTC)
CLOCK = ClockSettings(action_seconds=20, bank_seconds=60)
SYSTEM = "system"

Lines = list[dict[str, Any]]


class Recorder:
    """One table's export, recorded batch by batch at the instant :attr:`at`."""

    def __init__(
        self,
        game: str = "forty-five",
        seats: int = 4,
        clock: ClockSettings | None = CLOCK,
        seed: int = 7,
        options: dict[str, Any] | None = None,
        ends_at: datetime | None = None,
        engine: str = RULES_ENGINE_VERSION,
    ) -> None:
        """``engine``: the rules engine the table is created under (an older one records
        its table as that engine played it)."""
        self.rng = random.Random(seed)
        self.seeds: dict[int, bytes] = {}
        self.at = T0
        self.events: Lines = []
        options = options or {}
        created = msgspec.structs.replace(
            tables.create("0b7e6a52-liveness", game, seats, options, clock=clock, ends_at=ends_at),
            rules_version=engine,
        )
        request: dict[str, Any] = {"game": game, "seats": seats, "options": options}
        if clock is not None:  # as service.http.schemas takes it
            seconds = {"action_seconds": clock.action_seconds, "bank_seconds": clock.bank_seconds}
            request.update(clock=seconds, on_timeout=clock.on_timeout)
        self.table: Table[Any] = tables.start(created)
        self._line(created, "anonymous", request)

    # --- batches ----------------------------------------------------------------------

    def batch(
        self,
        events: list[Event],
        actor: str,
        command: dict[str, Any],
        *,
        acted: int | None = None,
        clock_step: bool = True,
    ) -> None:
        """Record a batch, its chance steps and (unless told not to) its clock step,
        which times ``acted``: the seat whose command this was."""
        self._record(events, actor, command)
        for step in tables.settle(self.table, self):
            self._record(step.events, SYSTEM, step.command())
        if clock_step:
            self.clock_step(acted, moved=actor.startswith("seat:"))

    def clock_step(self, acted: int | None, *, moved: bool) -> None:
        """The clock step, recorded only when it changes something (as the service does)."""
        moved = moved and acted is not None
        events = liveness.set_clock(self.table, self.at, acted, moved=moved)
        command = {"type": "set_clock", "acted": acted, "moved": moved}
        self._record(events, SYSTEM, command)

    def take_seat(self, seat: int, name: str, *, computer: bool = False) -> None:
        command: dict[str, Any] = {"type": "take_seat", "seat": seat, "name": name}
        if computer:
            command["computer"] = True
        events = tables.take_seat(self.table, seat, name, computer=computer)
        self.batch(events, f"seat:{seat}", command)

    def seat_everyone(self, computers: tuple[int, ...] = ()) -> None:
        for seat in range(len(self.table.names)):
            self.take_seat(seat, f"P{seat}", computer=seat in computers)

    def player(self, seat: int, command: PlayerCommand | None = None) -> None:
        """``seat``'s player sends ``command`` (by default, the computer's choice)."""
        chosen = command or computer.choose(self.table, seat)
        events = liveness.decide(self.table, chosen, seat, self.at)
        self.batch(events, f"seat:{seat}", msgspec.to_builtins(chosen), acted=seat)

    def computer(
        self, seat: int, actor: str | None = None, command: PlayerCommand | None = None
    ) -> None:
        """The computer plays ``seat`` (as ``computer:N``, or as ``actor``: ``clock:N``),
        its own choice or, for a forgery, ``command``."""
        chosen = command or computer.choose(self.table, seat)
        events = tables.decide(self.table, chosen, seat)
        self.batch(events, actor or f"computer:{seat}", msgspec.to_builtins(chosen), acted=seat)

    def expire(self, *, clock_step: bool = True) -> int:
        """The timekeeper at the next deadline: the seat whose turn expired. Its clock
        step names that seat, as the service's does."""
        deadline = self.table.next_deadline
        assert deadline is not None
        self.at = deadline
        events = liveness.expire(self.table, self.at)
        seat = _seat(events)
        self.batch(events, "clock", {"type": "expire"}, acted=seat, clock_step=clock_step)
        return seat

    def call_time(self) -> None:
        """The timekeeper at the end of the table's timed round (DESIGN 14)."""
        assert self.table.ends_at is not None
        self.at = max(self.at, self.table.ends_at)
        events = liveness.call_time(self.table, self.at)
        self.batch(events, "clock", {"type": "call_time"})

    def operator(self, events: list[Event], command: dict[str, Any]) -> None:
        self.batch(events, "operator", command)

    # --- time and turns -------------------------------------------------------------

    def wait(self, seconds: float) -> None:
        self.at += timedelta(seconds=seconds)

    def to_act(self) -> int:
        return tables.to_act(self.table)[0]

    def play(self, moves: int, pace: tuple[float, ...] = (4, 11, 27, 2)) -> None:
        """``moves`` commands, each by the seat to act — the computer for its seats, the
        player for the others — at varied paces, never past the seat's deadline."""
        for index in range(moves):
            if self.table.status != "playing":
                return
            seat = self.to_act()
            deadline = self.table.deadline(seat)
            step = timedelta(seconds=pace[index % len(pace)])
            self.at = self.at + step if deadline is None else min(self.at + step, deadline)
            if self.at == deadline:
                self.at -= timedelta(milliseconds=1)
            if seat in tables.computer_to_act(self.table):
                self.computer(seat)
            else:
                self.player(seat)

    # --- the export ------------------------------------------------------------------

    def lines(self) -> Lines:
        """Header and event lines, numbered and hashed as the store does."""
        header = {
            "type": "header",
            "format": FORMAT,
            "table": self.table.id,
            "game": self.table.game,
            "seats": len(self.table.names),
            "options": self.table.options,
            "rules_version": self.table.rules_version,
            "tournament": None,
            "players": [{"seat": s, "name": n} for s, n in enumerate(self.table.names)],
            "status": self.table.status,
            "version": 0,
            "head": "",
            "exported_at": msgspec.to_builtins(self.at + timedelta(minutes=1)),
        }
        return rechain([header, *copy.deepcopy(self.events)])

    def document(self) -> bytes:
        return document_of(self.lines())

    # --- the chance source of ``settle``: seeds from this recorder's generator --------

    def revealed(self, shuffle_no: int) -> bytes | None:
        return self.seeds.get(shuffle_no)

    def seed(self, shuffle_no: int, chance: Chance) -> bytes:
        self.seeds[shuffle_no] = seed = self.rng.randbytes(32)
        return seed

    # --- recording --------------------------------------------------------------------

    def _record(self, events: list[Event], actor: str, command: dict[str, Any]) -> None:
        for index, event in enumerate(events):
            self.table = tables.evolve(self.table, event)
            self._line(event, actor, command if index == 0 else None)

    def _line(self, event: Event, actor: str, command: dict[str, Any] | None) -> None:
        self.events.append(
            {
                "type": "event",
                "version": len(self.events) + 1,
                "recorded_at": msgspec.to_builtins(self.at),
                "actor": actor,
                "command": command,
                "data": msgspec.to_builtins(event),
                "hash": "",
            }
        )


def _seat(events: list[Event]) -> int:
    seat = getattr(events[0], "seat", None)
    assert isinstance(seat, int)
    return seat
