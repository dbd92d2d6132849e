"""The auction for the widow (RULES 3A.3), shared by Auction and Widow Pinochle.

The first active player left of the dealer opens; each in turn bids higher or passes, and
a pass is final. Bids are multiples of 10 from ``min_bid`` to 650 (790 with
``roundhouse``). Two passes after a bid end it; three passes throw the deal in. With
``compulsory_opening`` the opener must open at the minimum, and if nobody overcalls he
may concede without seeing the widow.
"""

from __future__ import annotations

from domain.commands import Bid, LegalAction, Pass
from domain.errors import RuleCode, RuleError
from domain.events import AuctionWon, BidMade, DealThrownIn, Event, Passed
from domain.pinochle.events import WidowTurnedUp
from domain.pinochle.evolve import evolve
from domain.pinochle.hooks import Hooks
from domain.pinochle.state import State


def must_open(state: State) -> bool:
    """The opener's first call under ``compulsory_opening``: the minimum bid, nothing else."""
    return state.config.compulsory_opening and not state.calls


def bid_floor(state: State) -> int:
    return max(state.high_bid + 10, state.config.min_bid)


def actions(state: State) -> list[LegalAction]:
    if must_open(state):
        return [Bid(amount=state.config.min_bid)]
    bids: list[LegalAction] = [
        Bid(amount=a) for a in range(bid_floor(state), state.config.max_bid + 1, 10)
    ]
    return [Pass(), *bids]


def bid(rules: Hooks, state: State, seat: int, amount: int) -> list[Event]:
    config = state.config
    if amount % 10 or amount > config.max_bid:
        raise RuleError(
            RuleCode.BID_NOT_ALLOWED,
            f"bids are multiples of 10 up to {config.max_bid}",
            amount=amount,
        )
    if amount < bid_floor(state):
        raise RuleError(
            RuleCode.BID_TOO_LOW,
            f"the lowest bid now is {bid_floor(state)}",
            amount=amount,
            lowest=bid_floor(state),
        )
    if must_open(state) and amount != config.min_bid:
        raise RuleError(
            RuleCode.BID_NOT_ALLOWED,
            f"the opener must open at the minimum, {config.min_bid}",
            amount=amount,
        )
    return _after_call(rules, state, [BidMade(seat=seat, amount=amount)])


def pass_(rules: Hooks, state: State, seat: int) -> list[Event]:
    if must_open(state):
        raise RuleError(
            RuleCode.NOT_ALLOWED_NOW,
            f"the opener must open at the minimum, {state.config.min_bid}",
        )
    return _after_call(rules, state, [Passed(seat=seat)])


def widowless_concession_open(state: State) -> bool:
    """3A.3: the compulsory opener's minimum stood: he may concede before the widow."""
    return state.config.compulsory_opening and state.high_bid == state.config.min_bid


def _after_call(rules: Hooks, state: State, events: list[Event]) -> list[Event]:
    """Close the auction once one bidder is left, or throw the deal in if none is."""
    for event in events:
        state = evolve(rules, state, event)
    remaining = [s for s in state.active if s not in state.passed]
    if not remaining:
        thrown = DealThrownIn(deal=state.deal)
        return [*events, thrown, *rules.thrown_in(evolve(rules, state, thrown))]
    if remaining != [state.high_bidder]:
        return events
    won = AuctionWon(seat=remaining[0], amount=state.high_bid)
    events.append(won)
    if rules.concessions and widowless_concession_open(state):
        return events  # the soloist chooses: take the widow, or concede without it
    return [*events, turn_up_widow(state, remaining[0])]


def turn_up_widow(state: State, seat: int) -> WidowTurnedUp:
    return WidowTurnedUp(seat=seat, cards=list(state.widow))
