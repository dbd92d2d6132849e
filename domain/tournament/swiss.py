"""Swiss pairing (RULES 5.4).

Entries are ranked by points, then by the seed's order; an odd field first gives the bye
to the lowest-ranked entry with the fewest byes (none, until everyone has had one). The
rest are paired down the ranking, each with the nearest entry below it that it has not
met (``matching.greedy``); if that strands anyone, the pairs are completed to a maximum
rematch-free matching (``matching.complete``), and only entries for whom no rematch-free
partner is left at all meet again.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.tournament import matching
from domain.tournament.field import Inputs, seat_sides, seed_key
from domain.tournament.model import Format, Pairing, Shape
from domain.tournament.tally import Played, byes, played, points


def pair_swiss(inputs: Inputs) -> Pairing:
    shape, seed = inputs.shape, inputs.seed
    lines = played(shape, inputs.history)
    ids = inputs.playing()
    scored = {entry: points(Format.SWISS, lines.get(entry, ())) for entry in ids}
    ranked = sorted(ids, key=lambda entry: (-scored[entry], seed_key(seed, entry)))
    place = {entry: index for index, entry in enumerate(ranked)}
    met = [
        {place[o] for line in lines.get(entry, ()) for o in line.opponents if o in place}
        for entry in ranked
    ]
    bye: list[int] = []
    field = list(range(len(ranked)))
    if len(ranked) % 2:
        had = [byes(lines.get(entry, ())) for entry in ranked]
        bye, field, mate = _bye(met, had)
    else:
        mate = _matching(field, met)
    pairs = _pairs(field, mate)
    sides = [_sides(shape, lines.get(entry, ())) for entry in ranked]
    tables = []
    for board, (a, b) in enumerate(sorted(pairs)):
        first, second = (a, b) if _first_takes_side_zero(sides[a], sides[b], board) else (b, a)
        tables.append(seat_sides(shape, (ranked[first], ranked[second])))
    return Pairing(round=inputs.round, tables=tuple(tables), byes=tuple(ranked[v] for v in bye))


def _pairs(field: list[int], mate: list[int]) -> list[tuple[int, int]]:
    """The pairs of a maximum rematch-free matching of ``field``, and the stranded."""
    pairs = [(field[v], field[mate[v]]) for v in range(len(field)) if v < mate[v]]
    # Whoever is left has met everyone else left (two who had not would have been matched):
    # the fewest rematches there can be, paired down the ranking.
    stranded = [field[v] for v in range(len(field)) if mate[v] == matching.FREE]
    pairs += zip(stranded[0::2], stranded[1::2], strict=True)
    return [(min(p), max(p)) for p in pairs]


def _matching(field: list[int], met: list[set[int]]) -> list[int]:
    def allowed(a: int, b: int) -> bool:
        return field[b] not in met[field[a]]

    mate = matching.greedy(len(field), allowed)
    if matching.FREE in mate:
        mate = matching.complete(len(field), allowed, mate)
    return mate


def _bye(met: list[set[int]], had: list[int]) -> tuple[list[int], list[int], list[int]]:
    """The bye, the rest and their matching. The bye is the lowest-ranked place with the
    fewest byes whose absence leaves a rematch-free pairing, if any does; else the
    lowest-ranked one with the fewest byes."""
    fewest = min(had)
    candidates = [v for v in reversed(range(len(had))) if had[v] == fewest]
    everyone = list(range(len(had)))

    def without(candidate: int) -> tuple[list[int], list[int]]:
        rest = [v for v in everyone if v != candidate]
        return rest, _matching(rest, met)

    lowest = without(candidates[0])
    if matching.FREE not in lowest[1]:
        return [candidates[0]], *lowest
    # Before trying the others one by one, one matching says whether any will do: a
    # stand-in for the bye, ranked last, that every entry but the candidates has "met".
    stand_in = len(had)
    others = {v for v in everyone if had[v] != fewest}
    met_stand_in = [m | {stand_in} if v in others else m for v, m in enumerate(met)]
    if matching.FREE not in _matching([*everyone, stand_in], [*met_stand_in, others]):
        for candidate in candidates[1:]:
            rest, mate = without(candidate)
            if matching.FREE not in mate:
                return [candidate], rest, mate
    return [candidates[0]], *lowest


def _sides(shape: Shape, lines: Sequence[Played]) -> list[int]:
    assert shape.sides is not None
    return [shape.sides[line.seat] for line in lines if line.seat is not None]


def _first_takes_side_zero(first: list[int], second: list[int], board: int) -> bool:
    """Whether the higher-ranked entry takes side 0: the entry whose games lean less to
    side 0 (its games there less its games on side 1) takes it, then the one that had
    side 1 last time; with nothing to choose, the higher-ranked entry takes side 0 on
    every other table."""
    balance = first.count(0) - first.count(1), second.count(0) - second.count(1)
    if balance[0] != balance[1]:
        return balance[0] < balance[1]
    last = first[-1:], second[-1:]
    if last[0] != last[1] and last[0] and last[1]:
        return last[0] == [1]
    return board % 2 == 0
