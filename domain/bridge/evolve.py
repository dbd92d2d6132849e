"""Folding Reserve Bridge events into state. Never validates: events are facts."""

from __future__ import annotations

from msgspec.structs import replace

from domain.bridge import rules
from domain.bridge.auction import next_caller
from domain.bridge.events import (
    BidStood,
    ContraCalled,
    ContractSettled,
    DenominationChanged,
    DenominationNamed,
    HonoursAnnounced,
    PartieWon,
    RecontraCalled,
    ReserveLaid,
    RubberWon,
    SlamBidMade,
    StageDealt,
)
from domain.bridge.state import (
    SEATS,
    BridgeCall,
    BridgeHonour,
    BridgePlayedCard,
    BridgeSheetEntry,
    Phase,
    State,
)
from domain.bridge.state import other as other_seat
from domain.cards import remove_cards, remove_from
from domain.common.fold import between_deals, fold_alike, game_events, new_deal
from domain.events import AuctionWon, BidMade, CardPlayed, CardsDealt, Event, HandScored, Passed

EVENTS = game_events(
    dealing=(StageDealt,),
    bids=(SlamBidMade, BidStood),
    contract=(
        DenominationNamed,
        ContraCalled,
        RecontraCalled,
        DenominationChanged,
        ContractSettled,
        HonoursAnnounced,
        ReserveLaid,
    ),
    scoring=(PartieWon, RubberWon),
)
"""Every event a Reserve Bridge table records, in the order the event union lists them."""


def evolve(state: State, event: Event) -> State:
    match event:
        case CardsDealt():
            return _dealt(state, event)
        case StageDealt():
            return _stage(state, event)
        case BidMade(seat=seat, amount=amount):
            return _called(
                state, BridgeCall(seat, state.round, "bid", amount), amount, slam_only=False
            )
        case SlamBidMade(seat=seat, amount=amount):
            return _called(
                state, BridgeCall(seat, state.round, "slam", amount), amount, slam_only=True
            )
        case BidStood(seat=seat, amount=amount):
            return _called(state, BridgeCall(seat, state.round, "stand", amount))
        case Passed(seat=seat):
            state = replace(state, passed=seat)
            return _called(state, BridgeCall(seat, state.round, "pass"))
        case AuctionWon(seat=seat):
            return replace(state, phase=Phase.DECLARE, turn=seat)
        case DenominationNamed(seat=seat, denomination=denomination):
            return replace(
                state, phase=Phase.CONTRA, denomination=denomination, turn=other_seat(seat)
            )
        case ContraCalled(seat=seat):
            return replace(state, phase=Phase.RECONTRA, doubling="contra", turn=other_seat(seat))
        case RecontraCalled():
            return replace(state, doubling="recontra")
        case DenominationChanged(denomination=denomination):
            return replace(state, denomination=denomination, changed=True)
        case ContractSettled():
            return replace(state, phase=Phase.RESERVE, turn=None)
        case HonoursAnnounced(seat=seat, kind=kind, count=count, points=points):
            return replace(state, honours=(*state.honours, BridgeHonour(seat, kind, count, points)))
        case ReserveLaid():
            return _reserved(state, event)
        case CardPlayed(seat=seat, card=card):
            return _played(state, seat, card)
        case HandScored():
            return _scored(state, event)
        case PartieWon(parties=parties):
            return replace(state, parties=(parties[0], parties[1]))
    return fold_alike(state, event, rules.ORDER, SEATS, Phase)


def _dealt(state: State, event: CardsDealt) -> State:
    return replace(
        new_deal(state, event, Phase.AUCTION, turn=other_seat(event.dealer)),
        reserves=((), ()),
        reserve_laid=(False, False),
        stock=tuple(event.rest or ()),
        stage=1,
        round=1,
        passed=None,
        slam_only=False,
        bids=(0, 0),
        previous_bids=(0, 0),
        denomination=None,
        doubling="none",
        changed=False,
        honours=(),
    )


def _stage(state: State, event: StageDealt) -> State:
    hands = tuple(h + tuple(new or ()) for h, new in zip(state.hands, event.hands, strict=True))
    dealt = sum(len(new or ()) for new in event.hands)
    state = replace(state, hands=hands, stock=state.stock[dealt:], stage=event.stage)
    if state.phase is not Phase.AUCTION:
        return state  # the last stage comes after the contract
    state = replace(state, round=event.stage, previous_bids=state.bids)
    return replace(state, turn=next_caller(state))


def _called(
    state: State, call: BridgeCall, amount: int | None = None, *, slam_only: bool = False
) -> State:
    state = replace(state, calls=(*state.calls, call))
    if amount is not None:
        bids = list(state.bids)
        bids[call.seat] = amount
        state = replace(
            state,
            high_bid=amount,
            high_bidder=call.seat,
            slam_only=slam_only,
            bids=(bids[0], bids[1]),
        )
    return replace(state, turn=next_caller(state))


def _reserved(state: State, event: ReserveLaid) -> State:
    seat = event.seat
    cards = tuple(event.cards or ())
    hands, reserves, laid = list(state.hands), list(state.reserves), list(state.reserve_laid)
    hands[seat] = remove_cards(hands[seat], cards)
    reserves[seat] = cards
    laid[seat] = True
    both = all(laid)
    return replace(
        state,
        hands=tuple(hands),
        reserves=tuple(reserves),
        reserve_laid=(laid[0], laid[1]),
        phase=Phase.PLAY if both else Phase.RESERVE,
        turn=state.non_dealer if both else None,
    )


def _played(state: State, seat: int, card: str) -> State:
    if rules.from_reserve(state.trick_number):
        state = replace(state, reserves=remove_from(state.reserves, seat, [card]))
    else:
        state = replace(state, hands=remove_from(state.hands, seat, [card]))
    # Within every trick the players alternate: leader, opponent, leader, opponent.
    return replace(state, trick=(*state.trick, BridgePlayedCard(seat, card)), turn=other_seat(seat))


def _scored(state: State, event: HandScored) -> State:
    partie = sum(state.parties)
    entries = []
    for item in event.items:
        line, _, label = item.label.partition(":")
        entries.append(
            BridgeSheetEntry(
                deal=event.deal,
                partie=partie,
                seat=item.unit,
                line="below" if line == "below" else "above",
                label=label,
                points=item.points,
            )
        )
    return replace(between_deals(state, SEATS, Phase.DEAL), sheet=(*state.sheet, *entries))
