"""Folding Auction Pitch events into state. Never validates: events are facts."""

from __future__ import annotations

from msgspec.structs import replace

from domain.common.draw import DRAW_ORDER
from domain.common.fold import between_deals, call_made, fold_alike, game_events, new_deal
from domain.common.tricks import card_played, left_of
from domain.events import (
    AuctionWon,
    BidMade,
    CardPlayed,
    CardsDealt,
    Event,
    HandScored,
    Held,
    Passed,
    TrumpNamed,
)
from domain.pitch.events import PitchChipsSettled
from domain.pitch.state import Phase, PitchCall, PitchPlayedCard, State

EVENTS = game_events(calls=(Held,), contract=(TrumpNamed,), ending=(PitchChipsSettled,))
"""Every event a Pitch table records, in the order the event union lists them."""


def evolve(state: State, event: Event) -> State:
    n = state.seats
    match event:
        case CardsDealt():
            return _dealt(state, event)
        case BidMade(seat=seat, amount=amount):
            return call_made(state, PitchCall(seat, "bid", amount), left_of(seat, n))
        case Held(seat=seat, amount=amount):
            return call_made(state, PitchCall(seat, "hold", amount), left_of(seat, n))
        case Passed(seat=seat):
            return call_made(state, PitchCall(seat, "pass"), left_of(seat, n))
        case AuctionWon(seat=seat, amount=amount):
            return replace(
                state, phase=Phase.PLAY, pitcher=seat, high_bidder=seat, high_bid=amount, turn=seat
            )
        case CardPlayed(seat=seat, card=card):
            return card_played(state, PitchPlayedCard(seat, card), left_of(seat, n))
        case TrumpNamed(suit=suit):
            return replace(state, trump=suit)
        case HandScored(scores=scores, contract=contract):
            setbacks = list(state.setbacks)
            if contract is not None and not contract.made:
                setbacks[contract.seat] += 1
            return replace(
                between_deals(state, n, Phase.DEAL), scores=tuple(scores), setbacks=tuple(setbacks)
            )
        case PitchChipsSettled(chips=chips):
            return replace(state, chips=tuple(chips))
    return fold_alike(state, event, DRAW_ORDER, n, Phase)


def _dealt(state: State, event: CardsDealt) -> State:
    return replace(
        new_deal(state, event, Phase.AUCTION, turn=left_of(event.dealer, state.seats)),
        undealt=tuple(event.rest or ()),
        pitcher=None,
        trump=None,
    )
