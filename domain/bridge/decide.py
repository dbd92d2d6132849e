"""Deciding Reserve Bridge commands and listing the legal ones: one small function per phase
(RULES 4)."""

from __future__ import annotations

from functools import partial

from domain.bridge import events as bridge_events
from domain.bridge import rules
from domain.bridge.auction import LAST_ROUND, window
from domain.bridge.evolve import evolve
from domain.bridge.scoring import score_deal
from domain.bridge.state import SEATS, Phase, State, other
from domain.cards import holds_all, suit
from domain.commands import (
    Accept,
    Bid,
    CardChoice,
    Contra,
    Declare,
    LegalAction,
    Pass,
    Play,
    PlayerCommand,
    Recontra,
    Reserve,
    ReserveChoice,
    Stand,
    SupplyDeck,
)
from domain.common import turns
from domain.common.chance import deal_packets, decide_chance
from domain.common.tricks import trick_closed
from domain.errors import RuleCode, RuleError
from domain.events import AuctionWon, BidMade, CardPlayed, DealThrownIn, Event, Passed
from domain.protocol import Actor

_ONE_TO_ACT = (Phase.AUCTION, Phase.DECLARE, Phase.CONTRA, Phase.RECONTRA, Phase.PLAY)


def to_act(state: State) -> list[int]:
    """The seats that may act: one at a time, but both lay their reserves at once."""
    if state.phase is Phase.RESERVE:
        return [seat for seat in range(SEATS) if not state.reserve_laid[seat]]
    return turns.seat_to_act(state.phase, state.turn, _ONE_TO_ACT)


def decide(state: State, command: PlayerCommand | SupplyDeck, actor: Actor) -> list[Event]:
    if isinstance(command, SupplyDeck):
        return decide_chance(state, command, actor, SEATS, rules.ORDER, _deal)
    seat = turns.acting_seat(str(state.phase), state.phase is Phase.FINISHED, to_act(state), actor)
    match state.phase, command:
        case Phase.AUCTION, Bid(amount=amount):
            return _bid(state, seat, amount)
        case Phase.AUCTION, Pass():
            return _pass(state, seat)
        case Phase.AUCTION, Stand():
            return _stand(state, seat)
        case Phase.DECLARE, Declare(denomination=denomination):
            return _declare(state, seat, denomination)
        case Phase.CONTRA, Contra():
            return [bridge_events.ContraCalled(seat=seat)]
        case Phase.CONTRA | Phase.RECONTRA, Accept():
            return _settle(state, [])
        case Phase.RECONTRA, Recontra():
            return _settle(state, [bridge_events.RecontraCalled(seat=seat)])
        case Phase.RECONTRA, Declare(denomination=denomination):
            return _change(state, seat, denomination)
        case Phase.RESERVE, Reserve(cards=cards):
            return _reserve(state, seat, cards)
        case Phase.PLAY, Play(card=card):
            return _play(state, seat, card)
    raise turns.not_allowed(command, str(state.phase))


def actions_to_act(state: State, seat: int) -> list[LegalAction]:
    """Exactly what :func:`decide` accepts now from ``seat``, a seat to act."""
    match state.phase:
        case Phase.AUCTION:
            allowed = window(state, seat)
            actions: list[LegalAction] = []
            if allowed.may_pass:
                actions.append(Pass())
            if allowed.may_stand:
                actions.append(Stand())
            actions.extend(Bid(amount=a) for a in allowed.amounts())
            return actions
        case Phase.DECLARE:
            return [Declare(denomination=d) for d in _allowed(state)]
        case Phase.CONTRA:
            return [Contra(), Accept()]
        case Phase.RECONTRA:
            changes = [d for d in _allowed(state) if d != state.denomination]
            return [Recontra(), Accept(), *(Declare(denomination=d) for d in changes)]
        case Phase.RESERVE:
            hand = list(state.hands[seat])
            size = rules.RESERVE_SIZE
            return [ReserveChoice(cards=CardChoice(from_=hand, min=size, max=size))]
        case Phase.PLAY:
            reserve = rules.from_reserve(state.trick_number)
            cards = state.reserves[seat] if reserve else state.hands[seat]
            led = state.trick[0].card if state.trick else None
            return [Play(card=c) for c in rules.legal_plays(cards, led)]
    return []


def _allowed(state: State) -> list[rules.Denomination]:
    return rules.allowed_denominations(state.high_bid, state.slam_only)


# --- chance -----------------------------------------------------------------------------


def _deal(state: State, command: SupplyDeck) -> list[Event]:
    """Stage 1: ten each in twos, non-dealer first; the rest stays face down (RULES 4.2)."""
    packets = (rules.PACKET,) * (rules.STAGES[0] // rules.PACKET)
    return [deal_packets(command, state, seats=SEATS, packets=packets)]


def _next_stage(state: State, stage: int) -> bridge_events.StageDealt:
    """Two more each from the rest of the deal's shuffle, non-dealer first."""
    assert state.dealer is not None
    hands: list[list[str] | None] = [None, None]
    stock = iter(state.stock)
    for seat in (other(state.dealer), state.dealer):
        hands[seat] = [next(stock) for _ in range(rules.PACKET)]
    return bridge_events.StageDealt(deal=state.deal, stage=stage, hands=hands)


# --- the auction (RULES 4.3) ------------------------------------------------------------


def _bid(state: State, seat: int, amount: int) -> list[Event]:
    allowed = window(state, seat)
    low = max(allowed.low, rules.MIN_BID)
    if amount < low:
        raise RuleError(RuleCode.BID_TOO_LOW, f"the lowest bid now is {low}", lowest=low)
    if amount > rules.MAX_BID:
        raise RuleError(RuleCode.BID_NOT_ALLOWED, "bids go up to 50", amount=amount)
    if not allowed.beyond_cap(amount):
        return _after_call(state, [BidMade(seat=seat, amount=amount)])
    assert allowed.cap is not None
    if amount not in rules.SLAM_BIDS:
        raise RuleError(
            RuleCode.BID_NOT_ALLOWED,
            f"at most {allowed.cap} now, unless a slam bid (24, 30, 32, 40 or 50)",
            amount=amount,
            cap=allowed.cap,
        )
    slam = bridge_events.SlamBidMade(seat=seat, amount=amount, cap=allowed.cap)
    return _after_call(state, [slam])


def _pass(state: State, seat: int) -> list[Event]:
    if not window(state, seat).may_pass:
        raise RuleError(
            RuleCode.NOT_ALLOWED_NOW, "the opponent has passed: raise your bid or stand"
        )
    return _after_call(state, [Passed(seat=seat)])


def _stand(state: State, seat: int) -> list[Event]:
    if not window(state, seat).may_stand:
        raise RuleError(
            RuleCode.NOT_ALLOWED_NOW, "only a bidder whose opponent has passed may stand"
        )
    return _after_call(state, [bridge_events.BidStood(seat=seat, amount=state.bids[seat])])


def _after_call(state: State, events: list[Event]) -> list[Event]:
    """Close the round once both have called: the next stage, the winner or a throw-in."""
    for event in events:
        state = evolve(state, event)
    if state.turn is not None:
        return events
    if state.high_bidder is None:
        return [*events, DealThrownIn(deal=state.deal)]  # nobody bid [decision]
    if state.round < LAST_ROUND:
        return [*events, _next_stage(state, state.round + 1)]
    return [*events, AuctionWon(seat=state.high_bidder, amount=state.high_bid)]


# --- the contract (RULES 4.4) -----------------------------------------------------------


def check_denomination(state: State, denomination: str) -> None:
    if denomination in rules.allowed_denominations(state.high_bid, state.slam_only):
        return
    if state.slam_only:
        reason = f"{state.high_bid} was bid as a slam and is no slam in {denomination}"
    else:
        needed = rules.odd_tricks_needed(state.high_bid, denomination)
        reason = f"{state.high_bid} in {denomination} needs {needed} odd tricks, over five"
    raise RuleError(RuleCode.DENOMINATION_NOT_ALLOWED, reason, denomination=denomination)


def _declare(state: State, seat: int, denomination: str) -> list[Event]:
    check_denomination(state, denomination)
    return [bridge_events.DenominationNamed(seat=seat, denomination=denomination)]


def _change(state: State, seat: int, denomination: str) -> list[Event]:
    previous = state.denomination
    assert previous is not None
    if denomination == previous:
        raise RuleError(
            RuleCode.DENOMINATION_NOT_ALLOWED,
            f"{denomination} is already the denomination: accept to keep it",
            denomination=denomination,
        )
    check_denomination(state, denomination)
    # The contra stands and no recontra follows a change [decision].
    changed = bridge_events.DenominationChanged(
        seat=seat, denomination=denomination, previous=previous
    )
    return _settle(state, [changed])


def _settle(state: State, events: list[Event]) -> list[Event]:
    """The contract is fixed: the last stage is dealt and honours announced (RULES 4.2)."""
    for event in events:
        state = evolve(state, event)
    denomination = state.denomination
    assert state.high_bidder is not None and denomination is not None
    settled = bridge_events.ContractSettled(
        seat=state.high_bidder,
        amount=state.high_bid,
        denomination=denomination,
        doubling=state.doubling,
        odd_tricks=rules.odd_tricks_needed(state.high_bid, denomination),
    )
    state = evolve(state, settled)
    last = _next_stage(state, len(rules.STAGES))
    state = evolve(state, last)
    announced: list[Event] = []
    for seat in range(SEATS):
        held = rules.honours(state.hands[seat], denomination)
        if held is not None:
            kind, count, points = held
            announced.append(
                bridge_events.HonoursAnnounced(seat=seat, kind=kind, count=count, points=points)
            )
    return [*events, settled, last, *announced]


# --- the reserve and the play (RULES 4.2, 4.5) ------------------------------------------


def _reserve(state: State, seat: int, cards: list[str]) -> list[Event]:
    if len(cards) != rules.RESERVE_SIZE or len(set(cards)) != len(cards):
        raise RuleError(
            RuleCode.INVALID_DISCARD, "the reserve is three different cards", count=len(cards)
        )
    if not holds_all(state.hands[seat], cards):
        raise RuleError(RuleCode.INVALID_DISCARD, "lay aside only cards you hold")
    return [bridge_events.ReserveLaid(seat=seat, cards=list(cards))]


def check_play(state: State, seat: int, card: str) -> None:
    number = state.trick_number
    reserve = rules.from_reserve(number)
    cards = state.reserves[seat] if reserve else state.hands[seat]
    if card not in cards:
        where = "reserve (tricks 8-10)" if reserve else "hand (tricks 1-7)"
        raise RuleError(
            RuleCode.CARD_NOT_HELD, f"{card} is not in your {where}", card=card, trick=number
        )
    led = state.trick[0].card if state.trick else None
    if card not in rules.legal_plays(cards, led):
        raise RuleError(RuleCode.MUST_FOLLOW_SUIT, "follow the suit led", card=card)


def _play(state: State, seat: int, card: str) -> list[Event]:
    check_play(state, seat, card)
    number = state.trick_number
    events: list[Event] = [CardPlayed(seat=seat, card=card)]
    state = evolve(state, events[0])
    if len(state.trick) < rules.trick_size(number):
        return events
    trump, led = rules.trump_of(state.denomination), suit(state.trick[0].card)
    power = partial(rules.power_in_trick, trump=trump, led=led)
    return [*events, *trick_closed(state, number, power, evolve, score_deal, rules.TRICKS)]
