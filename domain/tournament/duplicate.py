"""Duplicate (RULES 5.6): every table of a round plays the same deals, and an entry is
compared only with the entries that held the same direction of the same deal.

A direction is a side in a two-sided game and a seat otherwise. The movement gives every
table one entry of each of E groups (E entries a table): group s sits at table
(j + (r - 1)·s) mod k in round r, so the groups meet different opponents from round to
round, and each entry's direction moves on by one each round, so that over the rounds it
holds every direction in turn (the same deals replayed in every round are then played
once from each direction).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

import msgspec

from domain.tournament.field import Inputs, seed_key, seed_order
from domain.tournament.model import Pairing, RoundRecord, Seating, Shape, TableResult
from domain.tournament.tally import byes, played


class Matchpoints(msgspec.Struct, frozen=True):
    """An entry's matchpoints, and the most it could have earned on the deals it played."""

    earned: float = 0.0
    top: float = 0.0

    @property
    def percentage(self) -> float:
        return round(100 * self.earned / self.top, 2) if self.top else 0.0


def direction_slots(shape: Shape) -> list[tuple[int, ...]]:
    """The seats of each entry's place at a table, with the place's direction: a pair
    entry holds a side, a single entry a seat."""
    if shape.entry_seats == 2:
        assert shape.sides is not None
        return [tuple(i for i, s in enumerate(shape.sides) if s == side) for side in (0, 1)]
    return [(seat,) for seat in range(shape.seats)]


def direction(shape: Shape, seat: int) -> int:
    return seat if shape.sides is None else shape.sides[seat]


def pair_duplicate(inputs: Inputs) -> Pairing:
    shape, seed, round = inputs.shape, inputs.seed, inputs.round
    slots = direction_slots(shape)
    size = len(slots)
    lines = played(shape, inputs.history)
    field = seed_order(seed, inputs.playing())
    had = {entry: byes(lines.get(entry, ())) for entry in field}
    # Byes in turn: fewest byes first, then an order the seed draws afresh each round.
    by_turn = sorted(field, key=lambda e: (had[e], seed_key(seed, e, f"bye {round}")))
    out = set(by_turn[: len(field) % size])
    seated = [entry for entry in field if entry not in out]
    k = len(seated) // size
    held: dict[str, Counter[int]] = {
        entry: Counter(
            direction(shape, line.seat) for line in lines.get(entry, ()) if line.seat is not None
        )
        for entry in seated
    }
    tables = []
    for t in range(k):
        group = [seated[s * k + (t - (round - 1) * s) % k] for s in range(size)]
        turn = _turn(shape, group, held, round)
        seats = [""] * shape.seats
        for s, entry in enumerate(group):
            for seat in slots[(s + turn) % size]:
                seats[seat] = entry
        tables.append(Seating(seats=tuple(seats)))
    return Pairing(round=round, tables=tuple(tables), byes=tuple(e for e in field if e in out))


def _turn(shape: Shape, group: list[str], held: dict[str, Counter[int]], round: int) -> int:
    """How far round the places group s sits this round: the turn that gives the fewest
    entries a direction they already held; of turns alike, one place on per round."""
    slots = direction_slots(shape)
    size = len(slots)

    def repeats(turn: int) -> tuple[int, int]:
        placed = sum(
            held[entry][direction(shape, slots[(s + turn) % size][0])]
            for s, entry in enumerate(group)
        )
        return placed, (turn - (round - 1)) % size

    return min(range(size), key=repeats)


def deal_matchpoints(scores: Sequence[int]) -> list[float]:
    """One direction's matchpoints on one deal, table by table: 1 for every other table
    whose score it beat, 1/2 for every tie."""
    return [
        sum(1.0 if mine > other else 0.5 if mine == other else 0.0 for other in scores) - 0.5
        for mine in scores
    ]


def _direction_scores(shape: Shape, deal: Sequence[int]) -> dict[int, tuple[int, list[int]]]:
    """Each direction's score on one deal at one table and the seats that hold it. With
    sides, a side's score is its points less the other side's, as both sides may score."""
    if shape.sides is None:
        return {seat: (points, [seat]) for seat, points in enumerate(deal)}
    first = {side: shape.sides.index(side) for side in (0, 1)}
    return {
        side: (
            deal[first[side]] - deal[first[1 - side]],
            [i for i, s in enumerate(shape.sides) if s == side],
        )
        for side in (0, 1)
    }


Played = list[tuple[Seating, Sequence[int]]]  # the tables that played a deal, their scores


def matchpoints(shape: Shape, history: Sequence[RoundRecord]) -> dict[str, Matchpoints]:
    """Every entry's matchpoints over the finished rounds (RULES 5.6). Each deal of a round
    is compared among the round's tables that played it; aborted tables count nowhere."""
    earned: defaultdict[str, float] = defaultdict(float)
    top: defaultdict[str, float] = defaultdict(float)
    for record in history:
        played_tables = [
            (seating, result)
            for seating, result in zip(record.pairing.tables, record.results, strict=True)
            if not result.aborted
        ]
        for played_deal in _deals(played_tables):
            _score_deal(shape, played_deal, earned, top)
    return {entry: Matchpoints(earned[entry], top[entry]) for entry in sorted(top)}


def _deals(tables: Sequence[tuple[Seating, TableResult]]) -> list[Played]:
    """The round's deals, each with the tables that played it. A deal is known by the deck
    it was dealt, so a deal thrown in or a table ended early shifts no other, and a deck
    a table shuffled for itself (past the shared ones) is compared with none. A result
    recorded without its decks (before API 1.9) is matched deal by deal in order."""
    by_deck: dict[str | int, Played] = {}
    for seating, result in tables:
        keys: Sequence[str | int] = result.deal_decks or range(len(result.deal_scores))
        for key, scores in zip(keys, result.deal_scores, strict=True):
            by_deck.setdefault(key, []).append((seating, scores))
    return list(by_deck.values())


def _score_deal(
    shape: Shape,
    played_deal: Played,
    earned: defaultdict[str, float],
    top: defaultdict[str, float],
) -> None:
    at = [(seating, _direction_scores(shape, scores)) for seating, scores in played_deal]
    for way in at[0][1]:
        points = deal_matchpoints([scores[way][0] for _, scores in at])
        for (seating, scores), mine in zip(at, points, strict=True):
            for entry in {seating.seats[seat] for seat in scores[way][1]}:
                earned[entry] += mine
                top[entry] += len(at) - 1
