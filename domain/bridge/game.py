"""Reserve Bridge behind the game protocol: its rules, views and redaction."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import msgspec
from msgspec.structs import replace

from domain.bridge import events as bridge_events
from domain.bridge import rules
from domain.bridge.decide import actions_to_act, decide, to_act
from domain.bridge.evolve import EVENTS, evolve
from domain.bridge.scoring import totals, vulnerable
from domain.bridge.state import (
    SEATS,
    BridgeCall,
    BridgeHonour,
    BridgeOptions,
    BridgePlayedCard,
    BridgeSheetEntry,
    Doubling,
    Phase,
    State,
)
from domain.cards import Card, piquet_pack
from domain.common.draw import before_first_deal
from domain.common.game import PlainGame, Rules
from domain.common.view import own_hand_only, redact_deal, seat_fields, tricks_won
from domain.events import CardsDealt, Event
from domain.protocol import Audience, View, ViewHeader


class BridgeTrickView(msgspec.Struct, frozen=True):
    """A trick: ``size`` cards (4 in tricks 1-6, else 2) played from ``source``."""

    number: int
    leader: int
    size: int
    source: Literal["hand", "reserve"]
    cards: list[BridgePlayedCard]
    winner: int | None


class BridgeContractView(msgspec.Struct, frozen=True):
    """The high bid and what became of it; ``slam_only`` when bid as a slam over a cap."""

    declarer: int
    amount: int
    slam_only: bool
    denomination: str | None
    odd_tricks: int | None
    doubling: Doubling
    changed: bool


class BridgeSheetView(msgspec.Struct, frozen=True):
    """The rubber's score sheet: ``below[p][seat]`` is the seat's score in partie ``p``."""

    below: list[list[int]]
    above: list[int]
    parties: list[int]
    vulnerable: list[bool]
    totals: list[int]
    last_deal: list[BridgeSheetEntry]


class ReserveBridgeView(View, frozen=True, kw_only=True, tag="reserve-bridge"):
    """``non_dealer`` is player A (speaks and leads first), ``dealer`` player B.

    ``hand`` is the cards in play in tricks 1-7 (all 16 until the reserve is laid) and
    ``reserve`` the seat's own face-down three; nobody else sees them until played.
    ``stock`` counts the cards still to be dealt this deal; only the operator sees them
    (``undealt``), as well as every hand and reserve (``hands``, ``reserves``).
    """

    options: BridgeOptions
    non_dealer: int | None
    stage: int
    round: int | None
    hand_sizes: list[int]
    reserve: list[Card] | None
    reserves: list[list[Card]] | None
    reserve_sizes: list[int]
    reserve_laid: list[bool]
    stock: int
    undealt: list[Card] | None
    auction: list[BridgeCall]
    passed: int | None
    contract: BridgeContractView | None
    honours: list[BridgeHonour]
    trick: BridgeTrickView | None
    last_trick: BridgeTrickView | None
    tricks_won: list[int]
    sheet: BridgeSheetView
    winners: list[int]
    difference: int | None


class ReserveBridge(PlainGame[State]):
    id: ClassVar[str] = "reserve-bridge"
    min_seats: ClassVar[int] = SEATS
    max_seats: ClassVar[int] = SEATS
    pack: ClassVar[tuple[str, ...]] = piquet_pack()
    options_type: ClassVar[type[msgspec.Struct]] = BridgeOptions
    state_type: ClassVar[type[Any]] = State
    view_type: ClassVar[type[View]] = ReserveBridgeView
    event_types: ClassVar[tuple[type[Event], ...]] = EVENTS

    def initial_state(self, seats: int, options: Any, first_dealer: int | None) -> State:
        return before_first_deal(State(phase=Phase.DRAW), SEATS, first_dealer, Phase)

    def view(self, state: State, audience: Audience, header: ViewHeader) -> ReserveBridgeView:
        seat = audience if isinstance(audience, int) else None
        operator = audience == "operator"
        finished = state.phase is Phase.FINISHED
        last = state.tricks[-1] if state.tricks else None
        sheet = _sheet(state)
        return ReserveBridgeView(
            **header.fields(),
            **seat_fields(self, state, audience, header),
            scores=sheet.totals,
            non_dealer=state.non_dealer,
            stage=state.stage,
            round=state.round if state.phase is Phase.AUCTION else None,
            hand_sizes=[len(h) for h in state.hands],
            reserve=list(state.reserves[seat]) if seat is not None else None,
            reserves=[list(r) for r in state.reserves] if operator else None,
            reserve_sizes=[len(r) for r in state.reserves],
            reserve_laid=list(state.reserve_laid),
            stock=len(state.stock),
            undealt=list(state.stock) if operator else None,
            auction=list(state.calls),
            passed=state.passed,
            contract=_contract(state),
            honours=list(state.honours),
            trick=_current_trick(state),
            last_trick=_trick_view(len(state.tricks), last.leader, last.cards, last.winner)
            if last
            else None,
            tricks_won=tricks_won(state.tricks, SEATS),
            sheet=sheet,
            winners=list(state.winners),
            difference=abs(sheet.totals[0] - sheet.totals[1]) if finished else None,
        )

    def redact(self, event: Event, audience: Audience) -> Event:
        match event:
            case CardsDealt():
                return redact_deal(event, audience)
            case bridge_events.StageDealt(hands=hands):
                return replace(event, hands=own_hand_only(hands, audience))
            case bridge_events.ReserveLaid(seat=seat) if seat != audience:
                return replace(event, cards=None)
        return event


def _contract(state: State) -> BridgeContractView | None:
    if state.high_bidder is None or state.phase in (Phase.AUCTION, Phase.DEAL, Phase.DRAW):
        return None
    denomination = state.denomination
    return BridgeContractView(
        declarer=state.high_bidder,
        amount=state.high_bid,
        slam_only=state.slam_only,
        denomination=denomination,
        odd_tricks=rules.odd_tricks_needed(state.high_bid, denomination) if denomination else None,
        doubling=state.doubling,
        changed=state.changed,
    )


def _current_trick(state: State) -> BridgeTrickView | None:
    """The trick being played; its leader is the seat to act while it is empty."""
    if state.phase is not Phase.PLAY or state.turn is None:
        return None
    leader = state.trick[0].seat if state.trick else state.turn
    return _trick_view(state.trick_number, leader, state.trick, None)


def _trick_view(
    number: int, leader: int, cards: tuple[BridgePlayedCard, ...], winner: int | None
) -> BridgeTrickView:
    return BridgeTrickView(
        number=number,
        leader=leader,
        size=rules.trick_size(number),
        source="reserve" if rules.from_reserve(number) else "hand",
        cards=list(cards),
        winner=winner,
    )


def _sheet(state: State) -> BridgeSheetView:
    # A column for each partie won and the one in play; a rubber won has none in play,
    # but one ended on time may have a part-score in it.
    columns = sum(state.parties) + (state.phase is not Phase.FINISHED)
    columns = max([columns, 1, *(e.partie + 1 for e in state.sheet if e.line == "below")])
    below = [[0] * SEATS for _ in range(columns)]
    above = [0] * SEATS
    for entry in state.sheet:
        if entry.line == "below":
            below[entry.partie][entry.seat] += entry.points
        else:
            above[entry.seat] += entry.points
    return BridgeSheetView(
        below=below,
        above=above,
        parties=list(state.parties),
        vulnerable=[vulnerable(state, s) for s in range(SEATS)],
        totals=totals(state),
        last_deal=[e for e in state.sheet if e.deal == state.sheet[-1].deal] if state.sheet else [],
    )


RESERVE_BRIDGE = ReserveBridge(Rules(decide, evolve, to_act, actions_to_act))
