"""Folding Pinochle events into state. Never validates: events are facts."""

from __future__ import annotations

from msgspec.structs import replace

from domain import events
from domain.cards import remove_cards, suit
from domain.common.fold import between_deals, call_made, fold_alike, game_events, new_deal
from domain.common.tricks import card_played, trick_taken
from domain.pinochle.cards import DRAW_ORDER, points, sorted_cards
from domain.pinochle.events import (
    CardsBuried,
    ChipsSettled,
    DealConceded,
    DixExchanged,
    MeldsClaimed,
    TargetRaised,
    TrumpTurnedUp,
    WidowTurnedUp,
)
from domain.pinochle.hooks import Hooks
from domain.pinochle.state import Claim, Phase, PinochleCall, PinochlePlayedCard, State, per_seat

DEAL_ENDING = {"made", "opponents_conceded", "conceded", "set", "widowless_concession"}


EVENTS = game_events(
    contract=(
        WidowTurnedUp,
        events.TrumpNamed,
        MeldsClaimed,
        CardsBuried,
        DealConceded,
        TrumpTurnedUp,
        DixExchanged,
    ),
    scoring=(ChipsSettled, TargetRaised),
)
"""Every event a Pinochle table records (all four game ids), in the order the event
union lists them."""


def evolve(rules: Hooks, state: State, event: events.Event) -> State:
    match event:
        case events.CardsDealt():
            return _dealt(rules, state, event)
        case events.BidMade(seat=seat, amount=amount):
            turn = _next_bidder(state, state.passed, seat)
            return call_made(state, PinochleCall(seat, "bid", amount), turn)
        case events.Passed(seat=seat) if state.phase is Phase.DIX:
            if seat == state.dealer:
                return _to_melds(state)
            return replace(state, turn=state.next_active(seat))
        case events.Passed(seat=seat):
            passed = (*state.passed, seat)
            turn = _next_bidder(state, passed, seat)
            return call_made(replace(state, passed=passed), PinochleCall(seat, "pass"), turn)
        case events.AuctionWon(seat=seat, amount=amount):
            return replace(
                state, phase=Phase.WIDOW, soloist=seat, high_bid=amount, high_bidder=seat, turn=seat
            )
        case WidowTurnedUp(seat=seat, cards=cards):
            hands = _with_hand(state, seat, sorted_cards((*state.hands[seat], *cards)))
            return replace(state, phase=Phase.PREPARE, hands=hands, widow_up=True, turn=seat)
        case events.TrumpNamed(suit=trump):
            if state.soloist is not None:  # a claim is only valid for its trump
                state = _with_claim(state, state.soloist, None, 0)
            if state.config.trump_change_withdraws:  # conceded to the old trump (3A.5)
                state = replace(state, conceded=())
            return replace(state, trump=trump)
        case MeldsClaimed(seat=seat, melds=claim, points=worth):
            state = _with_claim(state, seat, tuple(claim), worth)
            return _next_melder(state, seat) if state.phase is Phase.MELD else state
        case CardsBuried(seat=seat, cards=cards, trumps=trumps):
            kept = remove_cards(state.cards_of(seat), cards or ())
            hands = _with_hand(state, seat, sorted_cards(kept))
            return replace(state, hands=hands, buried=tuple(cards or ()), trumps_buried=trumps)
        case DealConceded(seat=seat) if seat != state.soloist:
            return replace(state, conceded=(*state.conceded, seat))
        case TrumpTurnedUp(card=card):
            return _turned_up(state, card)
        case DixExchanged():
            return _dix_exchanged(state, event)
        case events.CardPlayed(seat=seat, card=card):
            return _played(rules, state, seat, card)
        case events.TrickWon(seat=winner, cards=cards):
            taken = list(state.taken)
            taken[winner] += points(cards)
            return replace(trick_taken(state, winner), taken=tuple(taken))
        case events.HandScored(scores=scores):
            return replace(between_deals(state, state.seats, Phase.DEAL), scores=tuple(scores))
        case ChipsSettled(scores=scores, kitty_total=kitty, reason=reason):
            if reason in DEAL_ENDING:
                state = between_deals(state, state.seats, Phase.DEAL)
            return replace(state, scores=tuple(scores), kitty=kitty)
        case TargetRaised(target=target):
            return replace(state, target=target)
    return fold_alike(state, event, DRAW_ORDER, state.seats, Phase)


def _with_hand(state: State, seat: int, hand: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    hands = list(state.hands)
    hands[seat] = hand
    return tuple(hands)


def _with_claim(state: State, seat: int, claim: Claim | None, worth: int) -> State:
    melds, points = list(state.melds), list(state.meld_points)
    melds[seat], points[seat] = claim, worth
    return replace(state, melds=tuple(melds), meld_points=tuple(points))


def _next_bidder(state: State, passed: tuple[int, ...], after: int) -> int | None:
    """The next active seat clockwise of ``after`` that has not passed."""
    seat = after
    for _ in state.active:
        seat = state.next_active(seat)
        if seat not in passed:
            return seat
    return None


def _dealt(rules: Hooks, state: State, event: events.CardsDealt) -> State:
    seats = state.seats
    active = rules.active_seats(seats, event.dealer)
    phase = Phase.AUCTION if rules.auction else Phase.DIX
    hands = tuple(sorted_cards(h or ()) for h in event.hands)
    return replace(
        new_deal(state, event, phase, turn=active[0], hands=hands),
        active=active,
        widow=tuple(event.rest or ()),
        widow_up=False,
        passed=(),
        soloist=None,
        trump=None,
        turn_up=None,
        dix_exchanged_by=None,
        dix_bonus=per_seat(seats),
        dix_barred=per_seat(seats),
        melds=(None,) * seats,
        meld_points=per_seat(seats),
        buried=(),
        trumps_buried=False,
        conceded=(),
        taken=per_seat(seats),
    )


def _turned_up(state: State, card: str) -> State:
    state = replace(state, trump=suit(card), turn_up=card, turn=state.active[0], phase=Phase.DIX)
    if card[0] != "9":
        return state
    # RULES 3.B [decision]: a turned-up nine is the dealer's dix, scored and not melded again.
    assert state.dealer is not None
    return _to_melds(_dix_scored(state, state.dealer, state.dealer))


def _dix_scored(state: State, seat: int, dealer: int) -> State:
    bonus, barred = list(state.dix_bonus), list(state.dix_barred)
    bonus[seat] = 10
    barred[dealer] += 1
    return replace(state, dix_bonus=tuple(bonus), dix_barred=tuple(barred), dix_exchanged_by=seat)


def _dix_exchanged(state: State, event: DixExchanged) -> State:
    hands = list(state.hands)
    hands[event.seat] = sorted_cards((*remove_cards(hands[event.seat], [event.dix]), event.card))
    hands[event.dealer] = sorted_cards(
        (*remove_cards(hands[event.dealer], [event.card]), event.dix)
    )
    state = replace(state, hands=tuple(hands))
    return _to_melds(_dix_scored(state, event.seat, event.dealer))


def _to_melds(state: State) -> State:
    """[decision] 3.B: everyone claims in turn from the dealer's left, before the lead."""
    return replace(state, phase=Phase.MELD, turn=state.active[0])


def _next_melder(state: State, seat: int) -> State:
    """The next seat clockwise still to claim melds, or on to the play."""
    candidate = seat
    for _ in state.active:
        candidate = state.next_active(candidate)
        if state.melds[candidate] is None:
            return replace(state, turn=candidate)
    turn = state.next_active(state.trick[-1].seat) if state.trick else state.leader
    return replace(state, phase=Phase.PLAY, turn=turn)


def _played(rules: Hooks, state: State, seat: int, card: str) -> State:
    # RULES 3.C: the first lead fixes trump; then each opponent claims his melds in turn.
    melding = state.phase is Phase.PREPARE and rules.opponents_meld
    state = card_played(state, PinochlePlayedCard(seat, card), state.next_active(seat))
    return replace(state, phase=Phase.MELD if melding else Phase.PLAY)
