"""Seeded random playouts through the table aggregate, choosing only legal actions.

The chance steps go through the service's own loop (``domain.table.settle``) with seeds
from a seeded RNG, so a playout is pure and repeatable: a failing seed can be replayed exactly.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import msgspec
import pytest

from domain import table as tables
from domain.commands import LegalAction, PlayerCommand
from domain.errors import RuleCode, RuleError
from domain.events import Event
from domain.protocol import Chance
from domain.table import Table
from service.choices import choose, pick_index

COMMAND = msgspec.json.Decoder(PlayerCommand)


def to_command(action: LegalAction, rng: random.Random) -> PlayerCommand:
    return COMMAND.decode(msgspec.json.encode(choose(msgspec.to_builtins(action), rng)))


class Playout:
    """A table driven by a seeded RNG: its events, its state, and its shuffle seeds."""

    def __init__(self, created: Event, seed: int, pass_rate: float = 0.5) -> None:
        self.rng = random.Random(seed)
        self.pass_rate = pass_rate
        self.events: list[Event] = [created]
        self.table: Table[Any] = tables.fold(self.events)
        self.seeds: dict[int, bytes] = {}

    def apply(self, events: list[Event]) -> None:
        for event in events:
            self.events.append(event)
            self.table = tables.evolve(self.table, event)
        self.settle()

    def settle(self) -> None:
        """Reveal what is out of play and answer chance steps, as the service does."""
        for step in tables.settle(self.table, self):
            self.events.extend(step.events)
            self.table = step.table

    # The chance source of ``settle``: seeds from this playout's own random generator.
    def revealed(self, shuffle_no: int) -> bytes | None:
        return self.seeds.get(shuffle_no)

    def seed(self, shuffle_no: int, chance: Chance) -> bytes:
        self.seeds[shuffle_no] = seed = self.rng.randbytes(32)
        return seed

    def _record(self, event: Event) -> None:
        self.events.append(event)
        self.table = tables.evolve(self.table, event)

    def seat_everyone(self) -> None:
        for seat in range(len(self.table.names)):
            self.apply(tables.take_seat(self.table, seat, f"player {seat}"))

    def act(self, seat: int, command: PlayerCommand) -> list[Event]:
        events = tables.decide(self.table, command, seat)
        self.apply(events)
        return events

    def steps(self, limit: int = 100_000) -> Iterator[tuple[int, PlayerCommand]]:
        """Play random legal commands until the game ends, yielding each one played."""
        for _ in range(limit):
            if self.table.status != "playing":
                return
            seat = self.choose_seat()
            action = self.pick(tables.legal_actions(self.table, seat))
            command = to_command(action, self.rng)
            self.act(seat, command)
            yield seat, command
        raise AssertionError("the game did not end")

    def choose_seat(self) -> int:
        """The seat that acts next; games with optional actions off turn may override."""
        return self.rng.choice(tables.to_act(self.table))

    def pick(self, actions: list[LegalAction]) -> LegalAction:
        return actions[pick_index(msgspec.to_builtins(actions), self.rng, self.pass_rate)]

    def play_out(self, on_step: Callable[[Playout], None] | None = None) -> None:
        for _ in self.steps():
            if on_step is not None:
                on_step(self)


def played_out(playout: Playout) -> list[Event]:
    """Every seat taken and the game played to its end: all its events."""
    playout.seat_everyone()
    playout.play_out()
    return playout.events


def act_all(playout: Playout, calls: Sequence[tuple[int, PlayerCommand]]) -> list[Event]:
    """Each seat's command in turn; the events of the last one."""
    events: list[Event] = []
    for seat, command in calls:
        events = playout.act(seat, command)
    return events


def refused(playout: Playout, seat: int, command: PlayerCommand) -> RuleCode:
    """The code a command is refused with; it was not among the seat's legal actions."""
    with pytest.raises(RuleError) as error:
        playout.act(seat, command)
    assert command not in tables.legal_actions(playout.table, seat)
    return error.value.code
