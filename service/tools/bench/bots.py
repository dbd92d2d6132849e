"""``cardroom bench bots``: the computer player against random play, game by game.

Every game is played through the domain alone, as the tests' playouts are: the chance
steps go through ``domain.table.settle`` with seeds from a seeded generator, the computer
seats send ``domain.computer.choose`` and the others pick at random from their legal
actions exactly as the reference bot does (``service.choices``). Game ``i`` of a run with
seed ``S`` is fully determined by ``(game id, S + i)``, so any figure can be replayed.

Two-sided games (Forty-Five partnerships, Reserve Bridge) report the computer side's win
rate; the others report points (or chips) per deal of the computer seat against the
average random seat, and how often each wins the game. The computer's seat (or side)
rotates from game to game so that no seat's advantage counts for it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import msgspec

from domain import computer
from domain import table as tables
from domain.commands import PlayerCommand
from domain.errors import RuleError
from domain.events import Contract, Event
from domain.protocol import Chance
from domain.table import Table
from service.choices import choose, pick_index

# Seats per game id: the default table of each game (Pitch at four, a common table).
SEATS: dict[str, int] = {
    "forty-five": 4,
    "pitch": 4,
    "pinochle": 3,
    "pinochle-three": 3,
    "pinochle-widow": 3,
    "pinochle-four": 4,
    "reserve-bridge": 2,
}
TWO_SIDED = {"forty-five", "reserve-bridge"}
# What the scores count at each bench table (the games' defaults).
UNITS: dict[str, str] = {
    "forty-five": "points per side",
    "pitch": "points",
    "pinochle": "chips (the kitty's ante and share included)",
    "pinochle-three": "points",
    "pinochle-widow": "points",
    "pinochle-four": "points",
    "reserve-bridge": "score-sheet points, above and below the line",
}
COMMAND_LIMIT = 200_000  # a game that runs longer than this is a bug, not a long game

_command = msgspec.json.Decoder(PlayerCommand)


class _Seeds:
    """The chance source of ``settle``: deck seeds from a seeded generator."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.seeds: dict[int, bytes] = {}

    def revealed(self, shuffle_no: int) -> bytes | None:
        return self.seeds.get(shuffle_no)

    def seed(self, shuffle_no: int, chance: Chance) -> bytes:
        self.seeds[shuffle_no] = seed = self.rng.randbytes(32)
        return seed


class GameResult(msgspec.Struct, frozen=True):
    scores: list[int]  # per seat (per side in Forty-Five)
    winners: list[int]
    deals: int
    commands: int
    refused: int
    contracts: list[Contract]


def computer_seats(game_id: str, index: int) -> frozenset[int]:
    """Which seats the computer plays in game ``index``: a side, or one seat, in turn."""
    seats = SEATS[game_id]
    if game_id == "forty-five":
        return frozenset({index % 2, index % 2 + 2})
    return frozenset({index % seats})


def random_command(table: Table[Any], seat: int, rng: random.Random) -> PlayerCommand:
    actions = msgspec.to_builtins(tables.legal_actions(table, seat))
    picked = choose(actions[pick_index(actions, rng)], rng)
    return _command.decode(msgspec.json.encode(picked))


def play_game(
    game_id: str,
    seed: int,
    computers: frozenset[int],
    seats: int | None = None,
    options: dict[str, Any] | None = None,
) -> GameResult:
    """One seeded game to its end: the computer in ``computers``, random play elsewhere."""
    decks = _Seeds(random.Random(f"bench-bots:{game_id}:{seed}:decks"))
    rng = random.Random(f"bench-bots:{game_id}:{seed}:players")
    seats = seats or SEATS[game_id]
    created = tables.create(f"bench-{seed}", game_id, seats, options or {})
    table: Table[Any] = tables.start(created)
    contracts: list[Contract] = []

    def apply(events: list[Event]) -> None:
        nonlocal table
        for event in events:
            table = tables.evolve(table, event)
            contract = getattr(event, "contract", None)
            if isinstance(contract, Contract):
                contracts.append(contract)
        for step in tables.settle(table, decks):
            table = step.table

    for seat in range(seats):
        apply(tables.take_seat(table, seat, f"bench {seat}"))
    commands = refused = 0
    while table.status == "playing":
        commands += 1
        if commands > COMMAND_LIMIT:
            raise RuntimeError(f"{game_id} seed {seed}: no end after {COMMAND_LIMIT} commands")
        seat = rng.choice(tables.to_act(table))
        command = (
            computer.choose(table, seat) if seat in computers else random_command(table, seat, rng)
        )
        try:
            events = tables.decide(table, command, seat)
        except RuleError:
            refused += 1  # reported, never expected: play on with a random command
            events = tables.decide(table, random_command(table, seat, rng), seat)
        apply(events)
    final = tables.view(table, "operator")
    return GameResult(
        scores=list(final.scores),
        winners=list(getattr(final, "winners", [])),
        deals=table.deals,
        commands=commands,
        refused=refused,
        contracts=contracts,
    )


def _share(part: float, whole: float) -> float:
    return round(part / whole, 3) if whole else 0.0


def _contracts(results: list[tuple[frozenset[int], GameResult]], ours: bool) -> dict[str, Any]:
    won = made = 0
    for computers, result in results:
        for contract in result.contracts:
            if (contract.seat in computers) == ours:
                won += 1
                made += contract.made
    return {"played": won, "made_rate": _share(made, won)}


def measure_game(game_id: str, games: int, seed: int) -> dict[str, Any]:
    started = time.perf_counter()
    results = [
        (computer_seats(game_id, i), play_game(game_id, seed + i, computer_seats(game_id, i)))
        for i in range(games)
    ]
    seats = SEATS[game_id]
    deals = sum(r.deals for _, r in results)
    figures: dict[str, Any] = {"games": games, "seats": seats, "scores_in": UNITS[game_id]}
    if game_id in TWO_SIDED:
        unit: Callable[[int], int] = (lambda s: s % 2) if game_id == "forty-five" else int
        wins = sum(1 for c, r in results if r.winners and all(w in c for w in r.winners))
        losses = sum(1 for c, r in results if r.winners and not any(w in c for w in r.winners))
        ours = sum(r.scores[unit(min(c))] for c, r in results)
        theirs = sum(sum(r.scores) - r.scores[unit(min(c))] for c, r in results)
        figures |= {
            "computer": "a partnership (seats 0+2 or 1+3)"
            if game_id == "forty-five"
            else "one player (seat 0 or 1)",
            "win_rate": _share(wins, games),
            "loss_rate": _share(losses, games),
            "points_per_deal": {"computer": _share(ours, deals), "random": _share(theirs, deals)},
        }
    else:
        ours = sum(sum(r.scores[s] for s in c) for c, r in results)
        theirs = sum(sum(r.scores) for _, r in results) - ours
        wins = sum(1 for c, r in results if any(w in c for w in r.winners))
        random_wins = sum(len([w for w in r.winners if w not in c]) for c, r in results)
        figures |= {
            "computer": f"one seat of {seats}, rotating",
            "win_rate": {
                "computer": _share(wins, games),
                "random_seat": _share(random_wins, games * (seats - 1)),
            },
            "points_per_deal": {
                "computer": _share(ours, deals),
                "random_seat": _share(theirs, deals * (seats - 1)),
            },
        }
    if any(r.contracts for _, r in results):  # the games with an auction
        figures["contracts"] = {
            "computer": _contracts(results, True),
            "random": _contracts(results, False),
        }
    figures |= {
        "deals": deals,
        "commands": sum(r.commands for _, r in results),
        "refused": sum(r.refused for _, r in results),
        "seconds": round(time.perf_counter() - started, 1),
    }
    return figures


def run(games: int, seed: int, game_ids: list[str] | None = None) -> dict[str, Any]:
    """Figures for every game id (or those named), ``games`` seeded games each."""
    ids = game_ids or list(SEATS)
    return {
        "games_per_id": games,
        "seed": seed,
        "results": {g: measure_game(g, games, seed) for g in ids},
    }
