"""Tournament standings: players and partnerships ranked across a tournament's tables.

A pure fold over the events of the tournament's tables. Entrants are recomputed from the
finished tables' results on every result, so the standings are a function of the results
— never a running tally that a replayed event could count twice.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec
from msgspec.structs import replace

from domain.events import Event, GameWon, SeatTaken, TableCreated
from projections.units import scoring_units

NAME = "standings"


class TableResult(msgspec.Struct, frozen=True, kw_only=True):
    table: str
    players: list[str | None]
    units: list[list[int]]
    finished: bool = False
    winners: list[int] = []
    scores: list[int] = []


class Entrant(msgspec.Struct, frozen=True, kw_only=True):
    """A player, or a partnership (its members' names joined by `` & ``)."""

    name: str
    members: list[str]
    played: int
    won: int
    score: int


class Standings(msgspec.Struct, frozen=True, kw_only=True):
    tournament: str
    game: str | None = None
    tables: dict[str, TableResult] = {}
    players: list[Entrant] = []
    partnerships: list[Entrant] = []
    position: int = 0


def fold(standings: Standings, table_id: str, event: Event, position: int) -> Standings:
    standings = replace(standings, position=position)
    result = standings.tables.get(table_id)
    match event:
        case TableCreated(game=game, seats=seats):
            result = TableResult(
                table=table_id, players=[None] * seats, units=scoring_units(game, seats)
            )
            standings = replace(standings, game=game)
        case SeatTaken(seat=seat, name=name) if result is not None:
            names = list(result.players)
            names[seat] = name
            result = replace(result, players=names)
        case GameWon(winners=winners, scores=scores) if result is not None:
            result = replace(result, finished=True, winners=list(winners), scores=list(scores))
        case _:
            return standings
    if result is None:
        return standings
    tables = {**standings.tables, table_id: result}
    ranked_players, ranked_partnerships = rank(tables.values())
    return replace(
        standings, tables=tables, players=ranked_players, partnerships=ranked_partnerships
    )


def rank(results: Iterable[TableResult]) -> tuple[list[Entrant], list[Entrant]]:
    """Players and partnerships by games won, then score, then name."""
    players: dict[str, list[int]] = {}
    partnerships: dict[tuple[str, ...], list[int]] = {}
    for result in results:
        if not result.finished:
            continue
        for unit, seats in enumerate(result.units):
            names = tuple(sorted(result.players[s] or f"seat {s}" for s in seats))
            won = int(any(s in result.winners for s in seats))
            score = result.scores[unit] if unit < len(result.scores) else 0
            for name in names:
                _add(players.setdefault(name, [0, 0, 0]), won, score)
            if len(names) > 1:
                _add(partnerships.setdefault(names, [0, 0, 0]), won, score)
    ranked_players = _sorted([_entrant((name,), t) for name, t in players.items()])
    ranked_partnerships = _sorted([_entrant(names, t) for names, t in partnerships.items()])
    return ranked_players, ranked_partnerships


def _add(totals: list[int], won: int, score: int) -> None:
    totals[0] += 1
    totals[1] += won
    totals[2] += score


def _entrant(members: tuple[str, ...], totals: list[int]) -> Entrant:
    return Entrant(
        name=" & ".join(members),
        members=list(members),
        played=totals[0],
        won=totals[1],
        score=totals[2],
    )


def _sorted(entrants: list[Entrant]) -> list[Entrant]:
    return sorted(entrants, key=lambda e: (-e.won, -e.score, e.name))
