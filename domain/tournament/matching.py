"""Pairing a ranked list without rematches: greedy first, exact when greedy is stuck.

Vertices are places 0..n-1 in rank order and ``allowed(a, b)`` says whether a and b may
meet. :func:`greedy` pairs each unpaired place with the next allowed one below it, which
keeps pairs inside score groups and floats the odd one down, the way a director pairs by
hand. A greedy pass can strand a few places at the bottom whose every remaining
candidate is a rematch even though a rematch-free pairing exists; :func:`complete` then
grows the greedy matching to a maximum one with Edmonds' blossom algorithm. It starts
from the greedy pairs and only changes the few pairs along each augmenting path, and it
looks at candidates nearest in rank first, so the repair stays local and the cost is a
few searches of the field rather than a matching of the whole complete graph.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

Allowed = Callable[[int, int], bool]
FREE = -1


def greedy(size: int, allowed: Allowed) -> list[int]:
    """``mate[v]`` for each place (``FREE`` if unpaired), paired top-down."""
    mate = [FREE] * size
    # A linked list of the unpaired places, so that each removal costs nothing.
    following = list(range(1, size + 1))
    preceding = list(range(-1, size - 1))

    def remove(v: int) -> None:
        if preceding[v] >= 0:
            following[preceding[v]] = following[v]
        if following[v] < size:
            preceding[following[v]] = preceding[v]

    head = 0
    while head < size:
        a = head
        b = following[a]
        while b < size and not allowed(a, b):
            b = following[b]
        if b < size:
            mate[a], mate[b] = b, a
            remove(b)
        remove(a)
        head = following[a]
    return mate


def nearest(v: int, size: int) -> Iterator[int]:
    """Every other place, the nearest in rank first (the lower-ranked one of two alike)."""
    for distance in range(1, size):
        if v + distance < size:
            yield v + distance
        if v - distance >= 0:
            yield v - distance


def complete(size: int, allowed: Allowed, mate: list[int]) -> list[int]:
    """Grow ``mate`` to a maximum matching of the allowed pairs (Edmonds' blossoms)."""
    mate = list(mate)
    for root in reversed(range(size)):
        if mate[root] == FREE:
            end, parent = _augmenting_path(size, allowed, mate, root)
            while end != FREE:  # flip the path's pairs: root .. end all paired
                before = parent[end]
                after = mate[before]
                mate[end], mate[before] = before, end
                end = after
    return mate


def _augmenting_path(
    size: int, allowed: Allowed, mate: list[int], root: int
) -> tuple[int, list[int]]:
    """A free place reachable from ``root`` by an alternating path, and the path's parents;
    ``FREE`` if there is none. Odd cycles (blossoms) are shrunk to their base as found."""
    parent = [FREE] * size
    base = list(range(size))
    outer = [False] * size
    outer[root] = True
    queue = [root]

    def common_base(a: int, b: int) -> int:
        seen = [False] * size
        while True:
            a = base[a]
            seen[a] = True
            if mate[a] == FREE:
                break
            a = parent[mate[a]]
        while True:
            b = base[b]
            if seen[b]:
                return b
            b = parent[mate[b]]

    def mark(v: int, stem: int, child: int, blossom: list[bool]) -> None:
        while base[v] != stem:
            blossom[base[v]] = blossom[base[mate[v]]] = True
            parent[v] = child
            child = mate[v]
            v = parent[mate[v]]

    head = 0
    while head < len(queue):
        v = queue[head]
        head += 1
        for to in nearest(v, size):
            if base[v] == base[to] or mate[v] == to or not allowed(v, to):
                continue
            if to == root or (mate[to] != FREE and parent[mate[to]] != FREE):
                stem = common_base(v, to)
                blossom = [False] * size
                mark(v, stem, to, blossom)
                mark(to, stem, v, blossom)
                for u in range(size):
                    if blossom[base[u]]:
                        base[u] = stem
                        if not outer[u]:
                            outer[u] = True
                            queue.append(u)
            elif parent[to] == FREE:
                parent[to] = v
                if mate[to] == FREE:
                    return to, parent
                outer[mate[to]] = True
                queue.append(mate[to])
    return FREE, parent
