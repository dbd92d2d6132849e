"""Tournament standings: players and partnerships ranked across a tournament's tables.

A pure fold over the events of the tournament's tables. Entrants are recomputed from the
finished tables' results on every result, so the standings are a function of the results
— never a running tally that a replayed event could count twice.

How a table counts (DESIGN 10: aborted tables count nowhere; forfeits and resignations
count as losses for the side that did it):

- ``game_won``: finished, with the game's winners and final scores.
- ``game_resigned`` and ``game_forfeited``: finished, with the event's winners — the side
  of the seat that resigned or ran out of time loses — and the scores as they stood: the
  running scores of the last scored deal (``hand_scored``, or ``chips_settled`` on a
  Pinochle chips table), zeros before any.
- ``table_aborted``: the table leaves the standings altogether. A table cannot be
  aborted once it has ended, so no counted result is ever taken back.

Names: a result is credited to the names seated when the table ends, as the table
itself names its seats (``projections.seats``). A seat taken over (``seat_taken`` on a
vacant seat) or given to another player by the operator (``seat_replaced``) is credited
to its new occupant: whoever finishes the game answers for it, and the one who left is
not credited at all. A seat left during play and never taken over keeps its leaver's name
— the computer only stands in — so leaving a losing game does not dodge the loss.

Once a table has ended, nothing changes its result: the domain refuses every command
after the end, and the fold ignores the table's later events to match.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import msgspec
from msgspec.structs import replace

from domain.events import (
    Event,
    GameForfeited,
    GameResigned,
    GameTimed,
    GameWon,
    HandScored,
    TableAborted,
    TableCreated,
)
from domain.pinochle.events import ChipsSettled
from projections.seats import seated
from projections.units import scoring_units

NAME = "standings"

Ending = Literal["played", "resigned", "forfeit", "time"]


class TableResult(msgspec.Struct, frozen=True, kw_only=True):
    """One table of the tournament. ``scores`` (per scoring unit) are the running scores
    while it is played and the final ones once it has ended; ``reason`` says how it
    ended (``None`` while it is played)."""

    table: str
    players: list[str | None]
    units: list[list[int]]
    finished: bool = False
    winners: list[int] = []
    scores: list[int] = []
    reason: Ending | None = None


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
    if isinstance(event, TableCreated):
        opened = TableResult(
            table=table_id,
            players=[None] * event.seats,
            units=scoring_units(event.game, event.seats),
        )
        tables = {**standings.tables, table_id: opened}
        return replace(standings, game=event.game, tables=tables)
    result = standings.tables.get(table_id)
    if result is None or result.finished:
        return standings  # not in the standings (or aborted), or already counted
    if isinstance(event, TableAborted):
        tables = {k: v for k, v in standings.tables.items() if k != table_id}
        return replace(standings, tables=tables)
    updated = _table(result, event)
    if updated is result:
        return standings
    tables = {**standings.tables, table_id: updated}
    if not updated.finished:
        # Only finished tables rank anybody: the entrants stand as they were.
        return replace(standings, tables=tables)
    ranked_players, ranked_partnerships = rank(tables.values())
    return replace(
        standings, tables=tables, players=ranked_players, partnerships=ranked_partnerships
    )


def _table(result: TableResult, event: Event) -> TableResult:
    """``result`` after one event of its table, still in play; the same object when
    the event does not concern the standings."""
    names = seated(result.players, event)
    if names is not None:
        return replace(result, players=names)
    match event:
        case HandScored(scores=scores) | ChipsSettled(scores=scores):
            return replace(result, scores=list(scores))
        case GameWon(winners=winners, scores=scores):
            return _ended(result, "played", winners, scores)
        case GameResigned(winners=winners):
            return _ended(result, "resigned", winners, _standing(result))
        case GameForfeited(winners=winners):
            return _ended(result, "forfeit", winners, _standing(result))
        case GameTimed(winners=winners, scores=scores):
            return _ended(result, "time", winners, scores)
    return result


def _standing(result: TableResult) -> list[int]:
    """The scores when a game is given up: as they stood, or zeros before any deal."""
    return list(result.scores) if result.scores else [0] * len(result.units)


def _ended(
    result: TableResult, reason: Ending, winners: list[int], scores: list[int]
) -> TableResult:
    return replace(result, finished=True, winners=list(winners), scores=list(scores), reason=reason)


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
