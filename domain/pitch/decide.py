"""Deciding Auction Pitch commands and listing the legal ones: one small function per phase
(RULES 2)."""

from __future__ import annotations

from functools import partial

from domain.cards import suit
from domain.commands import Bid, Hold, LegalAction, Pass, Play, PlayerCommand, SupplyDeck
from domain.common import turns
from domain.common.chance import deal_packets, decide_chance
from domain.common.draw import DRAW_ORDER
from domain.common.tricks import trick_closed
from domain.errors import RuleCode, RuleError
from domain.events import (
    AuctionWon,
    BidMade,
    CardPlayed,
    DealThrownIn,
    Event,
    Held,
    Passed,
    TrumpNamed,
)
from domain.pitch import rules
from domain.pitch.evolve import evolve
from domain.pitch.scoring import score_deal
from domain.pitch.state import Phase, State
from domain.protocol import Actor

ACTING = (Phase.AUCTION, Phase.PLAY)


def to_act(state: State) -> list[int]:
    return turns.seat_to_act(state.phase, state.turn, ACTING)


def decide(state: State, command: PlayerCommand | SupplyDeck, actor: Actor) -> list[Event]:
    if isinstance(command, SupplyDeck):
        return decide_chance(state, command, actor, state.seats, DRAW_ORDER, _deal)
    seat = turns.acting_seat(str(state.phase), state.phase is Phase.FINISHED, to_act(state), actor)
    match state.phase, command:
        case Phase.AUCTION, Pass():
            return _pass(state, seat)
        case Phase.AUCTION, Bid(amount=amount):
            return _bid(state, seat, amount)
        case Phase.AUCTION, Hold():
            return _hold(state, seat)
        case Phase.PLAY, Play(card=card):
            return _play(state, seat, card)
    raise turns.not_allowed(command, str(state.phase))


def actions_to_act(state: State, seat: int) -> list[LegalAction]:
    """Exactly what :func:`decide` accepts now from ``seat``, a seat to act."""
    match state.phase:
        case Phase.AUCTION:
            actions: list[LegalAction] = [] if must_bid(state, seat) else [Pass()]
            actions.extend(Bid(amount=a) for a in rules.BIDS if a > state.high_bid)
            if can_hold(state, seat):
                actions.append(Hold())
            return actions
        case Phase.PLAY:
            lead = state.trick[0].card if state.trick else None
            return [Play(card=c) for c in rules.legal_plays(state.hands[seat], lead, state.trump)]
    return []


# --- chance -----------------------------------------------------------------------------


def _deal(state: State, command: SupplyDeck) -> list[Event]:
    """3 at a time from the dealer's left until each has 6; the rest is out of play (RULES 2.2)."""
    packets = (rules.PACKET,) * (rules.HAND_SIZE // rules.PACKET)
    return [deal_packets(command, state, seats=state.seats, packets=packets)]


# --- the auction (RULES 2.4) ------------------------------------------------------------


def can_hold(state: State, seat: int) -> bool:
    """The dealer, last to call, may take the high bid at its amount — never a smudge."""
    return (
        seat == state.dealer
        and state.high_bidder is not None
        and state.high_bidder != seat
        and state.high_bid < rules.SMUDGE
    )


def must_bid(state: State, seat: int) -> bool:
    """With ``all_pass="stick_dealer"`` a dealer facing no bid may not pass."""
    return (
        state.options.all_pass == "stick_dealer"
        and seat == state.dealer
        and state.high_bidder is None
    )


def _after_call(state: State, seat: int, call: Event) -> list[Event]:
    """One round only: the dealer's call, the last, closes the auction."""
    if seat != state.dealer:
        return [call]
    state = evolve(state, call)
    if state.high_bidder is None:
        return [call, DealThrownIn(deal=state.deal)]
    return [call, AuctionWon(seat=state.high_bidder, amount=state.high_bid)]


def _pass(state: State, seat: int) -> list[Event]:
    if must_bid(state, seat):
        raise RuleError(RuleCode.MUST_BID, "everyone passed: the dealer must bid at least 2")
    return _after_call(state, seat, Passed(seat=seat))


def _bid(state: State, seat: int, amount: int) -> list[Event]:
    if amount not in rules.BIDS:
        raise RuleError(RuleCode.BID_NOT_ALLOWED, "bids are 2, 3 or 4 (smudge)", amount=amount)
    turns.require_over(state.high_bid, amount)
    return _after_call(state, seat, BidMade(seat=seat, amount=amount))


def _hold(state: State, seat: int) -> list[Event]:
    if not can_hold(state, seat):
        raise RuleError(
            RuleCode.CANNOT_HOLD,
            "only the dealer takes the bid, only another seat's bid, and never a smudge",
            high_bid=state.high_bid,
        )
    return _after_call(state, seat, Held(seat=seat, amount=state.high_bid))


# --- play (RULES 2.5) -------------------------------------------------------------------


def check_play(state: State, seat: int, card: str) -> None:
    hand = state.hands[seat]
    turns.require_held(hand, seat, card)
    lead = state.trick[0].card if state.trick else None
    if card in rules.legal_plays(hand, lead, state.trump):
        return
    assert lead is not None
    if suit(lead) == state.trump:
        raise RuleError(RuleCode.MUST_PLAY_TRUMP, "trump was led and you hold one", card=card)
    raise RuleError(RuleCode.MUST_FOLLOW_SUIT, "follow suit or play a trump", card=card)


def _play(state: State, seat: int, card: str) -> list[Event]:
    check_play(state, seat, card)
    events: list[Event] = [CardPlayed(seat=seat, card=card)]
    if state.trump is None:
        # The pitch: the suit of the pitcher's first card becomes trump (RULES 2.5).
        events.append(TrumpNamed(seat=seat, suit=suit(card)))
    for event in events:
        state = evolve(state, event)
    if len(state.trick) < state.seats:
        return events
    trump = state.trump
    assert trump is not None
    led = suit(state.trick[0].card)
    number = len(state.tricks) + 1
    power = partial(rules.power_in_trick, trump=trump, led=led)
    return [*events, *trick_closed(state, number, power, evolve, score_deal, rules.TRICKS)]
