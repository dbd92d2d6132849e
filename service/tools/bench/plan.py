"""Planned games: a whole game's legal commands, worked out before the load starts.

A table created with operator decks and a fixed first dealer deals exactly as planned,
so a load generator can replay the plan with POSTs alone: the measured requests are the
commands, not the reads a real client would interleave.
"""

from __future__ import annotations

import random
from typing import Any

import msgspec

from domain import table as tables
from domain.commands import PlayerCommand
from domain.events import Event
from domain.protocol import Chance
from domain.registry import GAMES
from domain.shuffle import shuffle
from domain.table import Table
from service.choices import choose

_command = msgspec.json.Decoder(PlayerCommand)


class Plan(msgspec.Struct, frozen=True):
    """How to create the table, each (seat, command) of its game in order, and the
    events the game records (for filling a store directly)."""

    create: dict[str, Any]
    steps: list[tuple[int, dict[str, Any]]]
    events: list[Event]
    table: Table[Any]


class _PlannedDecks:
    """Only the table's own decks are dealt: no seed is ever drawn."""

    def revealed(self, shuffle_no: int) -> None:
        return None

    def seed(self, shuffle_no: int, chance: Chance) -> None:
        return None


def plan_game(
    game_id: str, seats: int, seed: int, decks: int = 60, table_id: str = "planned"
) -> Plan:
    """A whole game of ``game_id``, its choices drawn from ``seed``.

    The table is given only the decks its game deals: a game is played out on ``decks``
    decks first, then planned again on as many as it dealt (the same game, since the
    choices come from their own generator). Supplied decks stay in the table's snapshot,
    so sixty of them would make every command of the benchmark write a snapshot five
    times the size of a production table's."""
    rng = random.Random(seed)
    pack = GAMES[game_id].pack
    deals = [list(shuffle(pack, rng.randbytes(32))) for _ in range(decks)]
    trial = _play(game_id, seats, seed, deals, table_id)
    return _play(game_id, seats, seed, deals[: trial.table.deals], table_id)


def _play(game_id: str, seats: int, seed: int, deals: list[list[str]], table_id: str) -> Plan:
    rng = random.Random(seed)
    created = tables.create(table_id, game_id, seats, {}, first_dealer=0, decks=deals)
    table = tables.start(created)
    events: list[Event] = [created]

    def record(new: list[Event]) -> None:
        nonlocal table
        for event in new:
            table = tables.evolve(table, event)
            events.append(event)

    for seat in range(seats):
        record(tables.take_seat(table, seat, f"bench {seat}"))
    steps: list[tuple[int, dict[str, Any]]] = []
    while True:
        for step in tables.settle(table, _PlannedDecks()):
            table = step.table
            events.extend(step.events)
        if tables.pending_chance(table) is not None:
            break  # the planned decks are spent: the plan ends here
        if table.status != "playing":
            break
        seat = rng.choice(tables.to_act(table))
        actions = msgspec.to_builtins(tables.legal_actions(table, seat))
        passes = [a for a in actions if a["type"] == "pass"]
        action = passes[0] if passes and rng.random() < 0.5 else rng.choice(actions)
        command = choose(action, rng)
        record(tables.decide(table, _command.decode(msgspec.json.encode(command)), seat))
        steps.append((seat, command))
    create = {
        "game": game_id,
        "seats": seats,
        "first_dealer": 0,
        "deals": [{"deck": d} for d in deals],
    }
    return Plan(create=create, steps=steps, events=events, table=table)
