"""The matching under Swiss pairing: greedy down the ranking, repaired to a maximum."""

from __future__ import annotations

from functools import cache
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.tournament.matching import FREE, complete, greedy


def most_pairs(size: int, edges: frozenset[frozenset[int]]) -> int:
    """The size of a maximum matching, by brute force."""

    @cache
    def best(left: frozenset[int]) -> int:
        if len(left) < 2:
            return 0
        first = min(left)
        without = best(left - {first})
        with_first = [
            1 + best(left - {first, other})
            for other in left - {first}
            if frozenset((first, other)) in edges
        ]
        return max([without, *with_first])

    return best(frozenset(range(size)))


def test_greedy_pairs_each_place_with_the_next_one_it_may_meet() -> None:
    barred = {frozenset((0, 1))}
    mate = greedy(4, lambda a, b: frozenset((a, b)) not in barred)
    assert mate == [2, 3, 0, 1]


def test_a_bottom_pair_greedy_strands_is_repaired_by_changing_the_pairs_above_it() -> None:
    barred = {frozenset((2, 3))}

    def allowed(a: int, b: int) -> bool:
        return frozenset((a, b)) not in barred

    mate = greedy(4, allowed)
    assert mate == [1, 0, FREE, FREE]
    repaired = complete(4, allowed, mate)
    assert FREE not in repaired and repaired[2] != 3


def test_a_path_through_odd_cycles_is_found() -> None:
    # Two five-cycles, 9-8=7-6=5-9 and 0-1=2-3=4-0, joined by 8-1; 9 and 0 are free. From
    # either free place the search meets the far end of the bridge only as the partner of
    # a place it reached, never as a place to go on from, unless it treats its odd cycle
    # as one place (a blossom): then 9-5=6-7=8-1=2-3=4-0 is found.
    cycles = [(9, 8), (8, 7), (7, 6), (6, 5), (5, 9), (0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]
    edges = {frozenset(e) for e in [*cycles, (8, 1)]}
    start = [FREE, 2, 1, 4, 3, 6, 5, 8, 7, FREE]
    mate = complete(10, lambda a, b: frozenset((a, b)) in edges, start)
    assert mate == [4, 8, 3, 2, 0, 9, 7, 6, 1, 5]


@settings(max_examples=60, deadline=None)
@given(size=st.integers(min_value=1, max_value=11), data=st.data())
def test_the_repaired_matching_is_a_maximum_one(size: int, data: st.DataObject) -> None:
    edges = frozenset(
        frozenset(pair) for pair in combinations(range(size), 2) if data.draw(st.booleans())
    )

    def allowed(a: int, b: int) -> bool:
        return frozenset((a, b)) in edges

    mate = complete(size, allowed, greedy(size, allowed))
    assert all(mate[mate[v]] == v and allowed(v, mate[v]) for v in range(size) if mate[v] != FREE)
    assert sum(m != FREE for m in mate) // 2 == most_pairs(size, edges)
