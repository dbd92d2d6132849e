"""Who calls next and what he may bid: the three rounds of RULES 4.2 and the caps of 4.3.

Rounds 1 and 2 give each player one call (A first). Round 3 alternates until one player
passes. A pass is final; the other player (the *survivor*) then has one call in each
remaining round, the current one included: raise his own bid of the previous round by at
most 5, or stand. A slam bid (24, 30, 32, 40 or 50) is allowed whatever the cap.
"""

from __future__ import annotations

import msgspec

from domain.bridge import rules
from domain.bridge.state import State, other

LAST_ROUND = 3


class Window(msgspec.Struct, frozen=True):
    """The calls open to the seat to act: bids from ``low`` to ``cap`` (None: no cap)."""

    low: int
    cap: int | None
    may_pass: bool
    may_stand: bool

    def amounts(self) -> list[int]:
        """Every legal bid: the capped range, and slam bids above it."""
        top = rules.MAX_BID if self.cap is None else min(self.cap, rules.MAX_BID)
        plain = range(max(self.low, rules.MIN_BID), top + 1)
        slams = (s for s in sorted(rules.SLAM_BIDS) if s >= self.low and s > top)
        return [*plain, *slams]

    def beyond_cap(self, amount: int) -> bool:
        return self.cap is not None and amount > self.cap


def window(state: State, seat: int) -> Window:
    """What ``seat``, the seat to act in the auction, may call."""
    if state.passed is not None:
        if state.bids[seat] == 0:
            # Only when A passed first in round 1: B's first bid is free, and a pass
            # from him means nobody bid (RULES 4.3).
            return Window(rules.MIN_BID, None, may_pass=True, may_stand=False)
        cap = state.previous_bids[seat] + rules.RAISE_CAP
        return Window(state.high_bid + 1, cap, may_pass=False, may_stand=True)
    if state.high_bid == 0:
        return Window(rules.MIN_BID, None, may_pass=True, may_stand=False)  # free [decision]
    if state.round == LAST_ROUND:
        return Window(state.high_bid + 1, None, may_pass=True, may_stand=False)
    cap = state.high_bid + rules.RAISE_CAP
    return Window(state.high_bid + 1, cap, may_pass=True, may_stand=False)


def next_caller(state: State) -> int | None:
    """The seat to call next in the current round, or None when the round is over."""
    assert state.dealer is not None
    first, second = other(state.dealer), state.dealer
    called = [c.seat for c in state.calls if c.round == state.round]
    if state.round < LAST_ROUND:
        for seat in (first, second):
            if seat not in called and seat != state.passed:
                return seat
        return None
    if state.passed is None:
        return first if not called else other(called[-1])
    survivor = other(state.passed)
    return survivor if survivor not in called else None
