"""Scoring a deal of Auction Forty-Five and the end of the game (RULES 1.7, 1.8)."""

from __future__ import annotations

from domain.common.scoring import hand_scored
from domain.events import Contract, Event, GameWon, ScoreItem
from domain.fortyfive import rules
from domain.fortyfive.state import SIDES, State, side_of

TRICK_POINTS = 5
BONUS = 5


def highest_trump_side(state: State) -> int | None:
    """The side that won the trick holding the highest trump played this deal."""
    assert state.trump is not None
    trump = state.trump
    best: tuple[int, int] | None = None  # (power, side)
    for trick in state.tricks:
        for played in trick.cards:
            if rules.is_trump(played.card, trump):
                power = rules.trump_power(played.card, trump)
                if best is None or power > best[0]:
                    best = (power, side_of(trick.winner))
    return None if best is None else best[1]


def score_deal(state: State) -> list[Event]:
    """``hand_scored`` for the five tricks in ``state``, and ``game_won`` at 120."""
    assert state.high_bidder is not None
    bidders = side_of(state.high_bidder)
    bid = state.high_bid
    items: list[ScoreItem] = []
    taken = [0, 0]
    for trick in state.tricks:
        taken[side_of(trick.winner)] += TRICK_POINTS
    for side in (0, 1):
        if taken[side]:
            items.append(ScoreItem(unit=side, label="tricks", points=taken[side]))
    bonus_side = highest_trump_side(state)
    if bonus_side is not None:
        taken[bonus_side] += BONUS
        items.append(ScoreItem(unit=bonus_side, label="highest_trump", points=BONUS))

    made = taken[bidders] >= bid
    changes = list(taken)
    if not made:
        changes[bidders] = -bid
    elif bid == 30:
        changes[bidders] = 60  # a made 30 is worth double; a failed one only loses 30
    contract = Contract(seat=state.high_bidder, amount=bid, made=made)
    hand = hand_scored(state.deal, items, changes, state.scores, contract)
    events: list[Event] = [hand]
    scores = hand.scores
    reached = [side for side in (0, 1) if scores[side] >= rules.TARGET]
    if reached:
        winner = bidders if bidders in reached else reached[0]
        events.append(GameWon(winners=list(SIDES[winner]), scores=scores))
    return events
