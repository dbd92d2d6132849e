"""Deciding Auction Forty-Five commands and listing the legal ones: one small function per
phase (RULES 1)."""

from __future__ import annotations

from functools import partial

from domain.cards import holds_all
from domain.commands import (
    Bid,
    CardChoice,
    Exchange,
    ExchangeChoice,
    Hold,
    LegalAction,
    NameTrump,
    Pass,
    Play,
    PlayerCommand,
    SupplyDeck,
)
from domain.common import turns
from domain.common.chance import deal_packets, decide_chance
from domain.common.draw import DRAW_ORDER
from domain.common.tricks import trick_closed
from domain.errors import RuleCode, RuleError
from domain.events import (
    AuctionWon,
    BidMade,
    CardPlayed,
    CardsExchanged,
    DealThrownIn,
    Event,
    Held,
    Passed,
    TrumpNamed,
)
from domain.fortyfive import rules
from domain.fortyfive.evolve import evolve
from domain.fortyfive.scoring import score_deal
from domain.fortyfive.state import SEATS, Phase, State, side_of
from domain.protocol import Actor

ACTING = (Phase.AUCTION, Phase.TRUMP, Phase.EXCHANGE, Phase.PLAY)


def to_act(state: State) -> list[int]:
    return turns.seat_to_act(state.phase, state.turn, ACTING)


def decide(state: State, command: PlayerCommand | SupplyDeck, actor: Actor) -> list[Event]:
    if isinstance(command, SupplyDeck):
        return decide_chance(state, command, actor, SEATS, DRAW_ORDER, _deal)
    seat = turns.acting_seat(str(state.phase), state.phase is Phase.FINISHED, to_act(state), actor)
    match state.phase, command:
        case Phase.AUCTION, Pass():
            return _pass(state, seat)
        case Phase.AUCTION, Bid(amount=amount):
            return _bid(state, seat, amount)
        case Phase.AUCTION, Hold():
            return _hold(state, seat)
        case Phase.TRUMP, NameTrump(suit=suit):
            return [TrumpNamed(seat=seat, suit=suit)]
        case Phase.EXCHANGE, Exchange(discard=discard):
            return _exchange(state, seat, discard)
        case Phase.PLAY, Play(card=card):
            return _play(state, seat, card)
    raise turns.not_allowed(command, str(state.phase))


def actions_to_act(state: State, seat: int) -> list[LegalAction]:
    """Exactly what :func:`decide` accepts now from ``seat``, a seat to act."""
    match state.phase:
        case Phase.AUCTION:
            floor = max(state.high_bid + 1, minimum_bid(state, seat))
            actions: list[LegalAction] = [Pass()]
            actions.extend(Bid(amount=a) for a in rules.BIDS if a >= floor)
            if can_hold(state, seat):
                actions.append(Hold())
            return actions
        case Phase.TRUMP:
            return [NameTrump(suit=s) for s in "CDHS"]
        case Phase.EXCHANGE:
            hand = list(state.hands[seat])
            choice = CardChoice(from_=hand, min=0, max=min(rules.MAX_DISCARD, len(hand)))
            return [ExchangeChoice(discard=choice)]
        case Phase.PLAY:
            assert state.trump is not None
            lead = state.trick[0].card if state.trick else None
            return [Play(card=c) for c in rules.legal_plays(state.hands[seat], lead, state.trump)]
    return []


# --- chance -----------------------------------------------------------------------------


def _deal(state: State, command: SupplyDeck) -> list[Event]:
    """3 then 2 to each seat from the dealer's left; the rest is the stock (RULES 1.2)."""
    return [deal_packets(command, state, seats=SEATS, packets=(3, 2))]


# --- the auction (RULES 1.4) ------------------------------------------------------------


def minimum_bid(state: State, seat: int) -> int:
    """A partnership at 100 or more may not bid or hold below 20."""
    return 20 if state.scores[side_of(seat)] >= 100 else 5


def can_hold(state: State, seat: int) -> bool:
    return (
        seat == state.dealer
        and state.high_bidder is not None
        and state.high_bidder != seat
        and state.high_bid >= minimum_bid(state, seat)
    )


def _after_call(state: State, events: list[Event]) -> list[Event]:
    """Close the auction once one bidder is left, or throw the deal in if none is."""
    for event in events:
        state = evolve(state, event)
    remaining = [s for s in range(SEATS) if s not in state.passed]
    if not remaining:
        return [*events, DealThrownIn(deal=state.deal)]
    if remaining == [state.high_bidder]:
        return [*events, AuctionWon(seat=remaining[0], amount=state.high_bid)]
    return events


def _pass(state: State, seat: int) -> list[Event]:
    return _after_call(state, [Passed(seat=seat)])


def _bid(state: State, seat: int, amount: int) -> list[Event]:
    if amount not in rules.BIDS:
        raise RuleError(RuleCode.BID_NOT_ALLOWED, "bids are 5, 10, 15, 20, 25 or 30", amount=amount)
    turns.require_over(state.high_bid, amount)
    if amount < minimum_bid(state, seat):
        raise RuleError(
            RuleCode.BID_TOO_LOW, "a side with 100 or more may not bid below 20", amount=amount
        )
    return _after_call(state, [BidMade(seat=seat, amount=amount)])


def _hold(state: State, seat: int) -> list[Event]:
    if not can_hold(state, seat):
        raise RuleError(
            RuleCode.CANNOT_HOLD,
            "only the dealer holds, only another seat's bid, and not below his minimum",
            high_bid=state.high_bid,
        )
    return _after_call(state, [Held(seat=seat, amount=state.high_bid)])


# --- the exchange (RULES 1.5) -----------------------------------------------------------


def _exchange(state: State, seat: int, discard: list[str]) -> list[Event]:
    hand = state.hands[seat]
    if len(discard) > rules.MAX_DISCARD:
        raise RuleError(RuleCode.INVALID_DISCARD, "discard at most 5 cards", count=len(discard))
    if len(set(discard)) != len(discard) or not holds_all(hand, discard):
        raise RuleError(RuleCode.INVALID_DISCARD, "discard only cards you hold, each once")
    drawn = list(state.stock[: len(discard)])
    return [CardsExchanged(seat=seat, count=len(discard), discard=list(discard), drawn=drawn)]


# --- play (RULES 1.6) -------------------------------------------------------------------


def check_play(state: State, seat: int, card: str) -> None:
    hand = state.hands[seat]
    turns.require_held(hand, seat, card)
    assert state.trump is not None
    lead = state.trick[0].card if state.trick else None
    if card in rules.legal_plays(hand, lead, state.trump):
        return
    assert lead is not None
    if rules.is_trump(lead, state.trump):
        raise RuleError(
            RuleCode.MUST_PLAY_TRUMP, "you hold a trump that may not be withheld", card=card
        )
    raise RuleError(RuleCode.MUST_FOLLOW_SUIT, "follow suit or play a trump", card=card)


def _play(state: State, seat: int, card: str) -> list[Event]:
    check_play(state, seat, card)
    events: list[Event] = [CardPlayed(seat=seat, card=card)]
    state = evolve(state, events[0])
    if len(state.trick) < SEATS:
        return events
    assert state.trump is not None
    trump = state.trump
    led = rules.led_suit(state.trick[0].card, trump)
    number = len(state.tricks) + 1
    power = partial(rules.power_in_trick, trump=trump, led_suit=led)
    return [*events, *trick_closed(state, number, power, evolve, score_deal, rules.TRICKS)]
