"""Auction Pitch behind the game protocol: its rules, views and redaction."""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec

from domain.cards import Card, standard_pack
from domain.common.game import PlainGame, Rules
from domain.common.view import last_trick, redact_deal, seat_fields, tricks_won
from domain.events import CardsDealt, Event
from domain.pitch.decide import actions_to_act, decide, to_act
from domain.pitch.evolve import EVENTS, evolve
from domain.pitch.scoring import captured_game_points
from domain.pitch.state import Phase, PitchCall, PitchOptions, PitchPlayedCard, State, new_state
from domain.protocol import Audience, View, ViewHeader


class PitchTrickView(msgspec.Struct, frozen=True):
    leader: int
    winner: int | None
    cards: list[PitchPlayedCard]


class PitchView(View, frozen=True, kw_only=True, tag="pitch"):
    """Scores are per seat. ``pitcher`` and ``bid`` are set once the auction is won;
    ``undealt`` (the cards out of play) is shown to the operator only."""

    options: PitchOptions
    hand_sizes: list[int]
    auction: list[PitchCall]
    high_bid: int | None
    high_bidder: int | None
    pitcher: int | None
    bid: int | None
    trump: str | None
    trick: PitchTrickView | None
    last_trick: PitchTrickView | None
    tricks_won: list[int]
    game_points: list[int]
    setbacks: list[int]
    winners: list[int]
    chips: list[int] | None
    undealt: list[Card] | None


class Pitch(PlainGame[State]):
    id: ClassVar[str] = "pitch"
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 7
    pack: ClassVar[tuple[str, ...]] = standard_pack()
    options_type: ClassVar[type[msgspec.Struct]] = PitchOptions
    state_type: ClassVar[type[Any]] = State
    view_type: ClassVar[type[View]] = PitchView
    event_types: ClassVar[tuple[type[Event], ...]] = EVENTS

    def initial_state(self, seats: int, options: Any, first_dealer: int | None) -> State:
        assert isinstance(options, PitchOptions)
        return new_state(seats, options, first_dealer)

    def view(self, state: State, audience: Audience, header: ViewHeader) -> PitchView:
        operator = audience == "operator"
        leader = state.leader
        return PitchView(
            **header.fields(),
            **seat_fields(self, state, audience, header),
            scores=list(state.scores),
            hand_sizes=[len(h) for h in state.hands],
            auction=list(state.calls),
            high_bid=state.high_bid or None,
            high_bidder=state.high_bidder,
            pitcher=state.pitcher,
            bid=state.high_bid if state.pitcher is not None else None,
            trump=state.trump,
            trick=PitchTrickView(leader=leader, winner=None, cards=list(state.trick))
            if state.phase is Phase.PLAY and leader is not None
            else None,
            last_trick=last_trick(PitchTrickView, state.tricks),
            tricks_won=tricks_won(state.tricks, state.seats),
            game_points=captured_game_points(state),
            setbacks=list(state.setbacks),
            winners=list(state.winners),
            chips=list(state.chips) if state.chips is not None else None,
            undealt=list(state.undealt) if operator else None,
        )

    def redact(self, event: Event, audience: Audience) -> Event:
        """Only the deal hides cards: other seats' hands and the undealt rest (RULES 2.2)."""
        match event:
            case CardsDealt():
                return redact_deal(event, audience)
        return event


PITCH = Pitch(Rules(decide, evolve, to_act, actions_to_act))
