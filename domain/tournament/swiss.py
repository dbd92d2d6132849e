"""Swiss pairing (RULES 5.4).

Entries are ranked by points, then by the seed's order; an odd field first gives the bye
to the lowest-ranked entry with the fewest byes (none, until everyone has had one). The
rest are paired score group by score group, from the top: a group, with whoever floated
down from the groups above ranked first, is paired down the ranking, each with the
nearest entry below it that it has not met (``matching.greedy``); where that leaves some
of the group unpaired, the group's pairs are grown to a maximum rematch-free matching of
the group (``matching.complete``), and whoever is still unpaired floats down to the next
group. If that strands anyone at the bottom, the pairs of the whole field are completed
to a maximum rematch-free matching, and only entries for whom no rematch-free partner is
left at all meet again.

Pairing rules 2 and earlier (``model.PAIRING_RULES``) paired down the whole ranking at
once, so that two entries of an even group who had met each other floated down together
although their group could have been paired within itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from itertools import groupby

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
    # Rules 2 and earlier knew no score groups (None).
    group = [scored[entry] for entry in ranked] if inputs.rules >= 3 else None
    bye: list[int] = []
    field = list(range(len(ranked)))
    if len(ranked) % 2:
        had = [byes(lines.get(entry, ())) for entry in ranked]
        bye, field, mate = _bye(met, had, group)
    else:
        mate = _matching(field, met, group)
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


def _matching(field: list[int], met: list[set[int]], group: Sequence[float] | None) -> list[int]:
    """``mate`` over the positions of ``field`` (places in rank order): each score group
    (``group`` of a place) paired within itself as far as it can be, top group first,
    then the field's pairs completed to a maximum rematch-free matching. Without groups
    (rules 2 and earlier), the field paired down the ranking, then completed."""

    def allowed(a: int, b: int) -> bool:
        return field[b] not in met[field[a]]

    if group is None:
        mate = matching.greedy(len(field), allowed)
    else:
        mate = [matching.FREE] * len(field)
        floated: list[int] = []
        for _, members in groupby(range(len(field)), key=lambda v: group[field[v]]):
            pairing = floated + list(members)  # in rank order: the floaters came from above
            local = _maximum(len(pairing), partial(_among, pairing, allowed))
            for v, u in enumerate(local):
                if u != matching.FREE:
                    mate[pairing[v]] = pairing[u]
            floated = [pairing[v] for v, u in enumerate(local) if u == matching.FREE]
    if matching.FREE in mate:
        mate = matching.complete(len(field), allowed, mate)
    return mate


def _among(places: list[int], allowed: matching.Allowed, a: int, b: int) -> bool:
    return allowed(places[a], places[b])


def _maximum(size: int, allowed: matching.Allowed) -> list[int]:
    """Paired down the ranking, then grown to a maximum matching if that left more than
    an odd group's one unpaired (with fewer, it is one already)."""
    mate = matching.greedy(size, allowed)
    _swap_in(mate, allowed)
    if mate.count(matching.FREE) > size % 2:
        mate = matching.complete(size, allowed, mate)
    return mate


def _swap_in(mate: list[int], allowed: matching.Allowed) -> None:
    """Pair the unpaired two by two, each two by splitting one pair into two new ones,
    the pair lowest in the ranking that will do. Those greedy leaves unpaired have all
    met one another (any two who had not would have been paired), and usually one
    exchange with a pair near them pairs them: far cheaper in a large group than growing
    the matching in general, which :func:`_maximum` does only when this is not enough."""
    while True:
        free = [v for v, u in enumerate(mate) if u == matching.FREE]
        if len(free) < 2:
            return
        a, b = free[-2:]
        for c in sorted((v for v, u in enumerate(mate) if v < u), key=mate.__getitem__)[::-1]:
            d = mate[c]
            if allowed(a, c) and allowed(b, d):
                mate[a], mate[c], mate[b], mate[d] = c, a, d, b
                break
            if allowed(a, d) and allowed(b, c):
                mate[a], mate[d], mate[b], mate[c] = d, a, c, b
                break
        else:
            return


def _bye(
    met: list[set[int]], had: list[int], group: Sequence[float] | None
) -> tuple[list[int], list[int], list[int]]:
    """The bye, the rest and their matching. The bye is the lowest-ranked place with the
    fewest byes whose absence leaves a rematch-free pairing, if any does; else the
    lowest-ranked one with the fewest byes."""
    fewest = min(had)
    candidates = [v for v in reversed(range(len(had))) if had[v] == fewest]
    everyone = list(range(len(had)))

    def without(candidate: int) -> tuple[list[int], list[int]]:
        rest = [v for v in everyone if v != candidate]
        return rest, _matching(rest, met, group)

    lowest = without(candidates[0])
    if matching.FREE not in lowest[1]:
        return [candidates[0]], *lowest
    # Before trying the others one by one, one matching says whether any will do: a
    # stand-in for the bye, ranked last, that every entry but the candidates has "met".
    stand_in = len(had)
    others = {v for v in everyone if had[v] != fewest}
    met_stand_in = [m | {stand_in} if v in others else m for v, m in enumerate(met)]
    # The stand-in in a group of its own, last; whether a matching leaves anyone unpaired
    # is the same whichever way a maximum one is found.
    stand_in_group = None if group is None else [*group, min(group, default=0.0) - 1]
    if matching.FREE not in _matching(
        [*everyone, stand_in], [*met_stand_in, others], stand_in_group
    ):
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
