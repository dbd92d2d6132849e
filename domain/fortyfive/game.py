"""Auction Forty-Five behind the game protocol: its rules, views and redaction."""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec
from msgspec.structs import replace

from domain.cards import standard_pack
from domain.common.draw import before_first_deal
from domain.common.game import PlainGame, Rules
from domain.common.view import last_trick, redact_deal, seat_fields, tricks_won
from domain.events import CardsDealt, CardsExchanged, Event
from domain.fortyfive.decide import actions_to_act, decide, to_act
from domain.fortyfive.evolve import EVENTS, evolve
from domain.fortyfive.state import (
    SEATS,
    SIDES,
    FortyFiveCall,
    FortyFiveOptions,
    FortyFivePlayedCard,
    Phase,
    State,
    side_of,
)
from domain.protocol import Audience, View, ViewHeader


class FortyFiveTrickView(msgspec.Struct, frozen=True):
    leader: int
    winner: int | None
    cards: list[FortyFivePlayedCard]


class FortyFiveView(View, frozen=True, kw_only=True, tag="forty-five"):
    """Scores and tricks are per side: side 0 is seats 0 and 2, side 1 seats 1 and 3."""

    options: FortyFiveOptions
    sides: list[list[int]]
    hand_sizes: list[int]
    auction: list[FortyFiveCall]
    high_bid: int | None
    high_bidder: int | None
    trump: str | None
    exchanged: list[int | None]
    stock: int
    trick: FortyFiveTrickView | None
    last_trick: FortyFiveTrickView | None
    tricks_won: list[int]
    winners: list[int]


class FortyFive(PlainGame[State]):
    id: ClassVar[str] = "forty-five"
    min_seats: ClassVar[int] = SEATS
    max_seats: ClassVar[int] = SEATS
    pack: ClassVar[tuple[str, ...]] = standard_pack()
    options_type: ClassVar[type[msgspec.Struct]] = FortyFiveOptions
    state_type: ClassVar[type[Any]] = State
    view_type: ClassVar[type[View]] = FortyFiveView
    event_types: ClassVar[tuple[type[Event], ...]] = EVENTS

    def units(self, seats: int) -> list[tuple[int, ...]]:
        """Scores are per partnership (RULES 1.1)."""
        return [tuple(side) for side in SIDES]

    def initial_state(self, seats: int, options: Any, first_dealer: int | None) -> State:
        return before_first_deal(State(phase=Phase.DRAW), SEATS, first_dealer, Phase)

    def view(self, state: State, audience: Audience, header: ViewHeader) -> FortyFiveView:
        return FortyFiveView(
            **header.fields(),
            **seat_fields(self, state, audience, header),
            scores=list(state.scores),
            sides=[list(s) for s in SIDES],
            hand_sizes=[len(h) for h in state.hands],
            auction=list(state.calls),
            high_bid=state.high_bid or None,
            high_bidder=state.high_bidder,
            trump=state.trump,
            exchanged=list(state.exchanged),
            stock=len(state.stock),
            trick=FortyFiveTrickView(leader=state.leader, winner=None, cards=list(state.trick))
            if state.phase is Phase.PLAY and state.leader is not None
            else None,
            last_trick=last_trick(FortyFiveTrickView, state.tricks),
            tricks_won=tricks_won(state.tricks, len(SIDES), side_of),
            winners=list(state.winners),
        )

    def redact(self, event: Event, audience: Audience) -> Event:
        match event:
            case CardsDealt():
                return redact_deal(event, audience)
            case CardsExchanged(seat=seat) if seat != audience:
                return replace(event, discard=None, drawn=None)
        return event


FORTY_FIVE = FortyFive(Rules(decide, evolve, to_act, actions_to_act))
