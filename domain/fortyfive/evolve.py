"""Folding Auction Forty-Five events into state. Never validates: events are facts."""

from __future__ import annotations

from msgspec.structs import replace

from domain.cards import remove_cards
from domain.common.draw import DRAW_ORDER
from domain.common.fold import between_deals, call_made, fold_alike, game_events, new_deal
from domain.common.tricks import card_played, left_of
from domain.events import (
    AuctionWon,
    BidMade,
    CardPlayed,
    CardsDealt,
    CardsExchanged,
    Event,
    HandScored,
    Held,
    Passed,
    TrumpNamed,
)
from domain.fortyfive.state import SEATS, FortyFiveCall, FortyFivePlayedCard, Phase, State


def next_bidder(passed: tuple[int, ...], after: int) -> int | None:
    """The next seat clockwise of ``after`` that has not passed."""
    for step in range(1, SEATS + 1):
        seat = left_of(after, SEATS, step)
        if seat not in passed:
            return seat
    return None


EVENTS = game_events(calls=(Held,), contract=(TrumpNamed, CardsExchanged))
"""Every event a Forty-Five table records, in the order the event union lists them."""


def evolve(state: State, event: Event) -> State:
    match event:
        case CardsDealt():
            return _dealt(state, event)
        case BidMade(seat=seat, amount=amount):
            turn = next_bidder(state.passed, seat)
            return call_made(state, FortyFiveCall(seat, "bid", amount), turn)
        case Held(seat=seat, amount=amount):
            turn = next_bidder(state.passed, seat)
            return call_made(state, FortyFiveCall(seat, "hold", amount), turn)
        case Passed(seat=seat):
            passed = (*state.passed, seat)
            turn = next_bidder(passed, seat)
            return call_made(replace(state, passed=passed), FortyFiveCall(seat, "pass"), turn)
        case AuctionWon(seat=seat):
            return replace(state, phase=Phase.TRUMP, turn=seat)
        case TrumpNamed(suit=suit):
            assert state.dealer is not None
            return replace(
                state, phase=Phase.EXCHANGE, trump=suit, turn=left_of(state.dealer, SEATS)
            )
        case CardsExchanged():
            return _exchanged(state, event)
        case CardPlayed(seat=seat, card=card):
            return card_played(state, FortyFivePlayedCard(seat, card), left_of(seat, SEATS))
        case HandScored(scores=scores):
            return replace(between_deals(state, SEATS, Phase.DEAL), scores=(scores[0], scores[1]))
    return fold_alike(state, event, DRAW_ORDER, SEATS, Phase)


def _dealt(state: State, event: CardsDealt) -> State:
    return replace(
        new_deal(state, event, Phase.AUCTION, turn=left_of(event.dealer, SEATS)),
        stock=tuple(event.rest or ()),
        discarded=(),
        passed=(),
        trump=None,
        exchanged=(None,) * SEATS,
    )


def _exchanged(state: State, event: CardsExchanged) -> State:
    seat = event.seat
    hands = list(state.hands)
    discard = tuple(event.discard or ())
    hands[seat] = remove_cards(hands[seat], discard) + tuple(event.drawn or ())
    exchanged = list(state.exchanged)
    exchanged[seat] = event.count
    done = seat == state.dealer
    return replace(
        state,
        hands=tuple(hands),
        stock=state.stock[event.count :],
        discarded=state.discarded + discard,
        exchanged=tuple(exchanged),
        phase=Phase.PLAY if done else Phase.EXCHANGE,
        turn=state.leader if done else left_of(seat, SEATS),
    )
