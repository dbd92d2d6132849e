"""Auction Pinochle with a widow (RULES 3A) behind the game protocol, and the hooks that
the variants (:mod:`domain.pinochle.variants`) override."""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec

from domain.commands import LegalAction, PlayerCommand, SupplyDeck
from domain.common.draw import before_first_deal
from domain.common.game import GameRules
from domain.engine import engine_since
from domain.events import Event
from domain.pinochle import decide as deciding
from domain.pinochle import settlement
from domain.pinochle import view as views
from domain.pinochle.cards import PACK
from domain.pinochle.deal import sitting_in
from domain.pinochle.events import SettlementReason
from domain.pinochle.evolve import EVENTS, evolve
from domain.pinochle.options import (
    CONCESSION_TO_ITS_TRUMP,
    Config,
    PinochleOptions,
    auction_config,
)
from domain.pinochle.state import Phase, State, per_seat
from domain.protocol import Actor, Audience, View, ViewHeader


class PinochleView(views.PinochleViewBase, frozen=True, kw_only=True, tag="pinochle"):
    """Auction Pinochle: three active seats of three to five; chips (or points)."""

    options: PinochleOptions


class AuctionPinochle(GameRules[State]):
    """RULES 3A. Three to five seats, three active each deal; the auction for the widow
    makes a soloist against two; settled in chips with a kitty (or in points to 1000)."""

    id: ClassVar[str] = "pinochle"
    min_seats: ClassVar[int] = 3
    max_seats: ClassVar[int] = 5
    pack: ClassVar[tuple[str, ...]] = PACK
    options_type: ClassVar[type[msgspec.Struct]] = PinochleOptions
    state_type: ClassVar[type[Any]] = State
    view_type: ClassVar[type[View]] = PinochleView
    event_types: ClassVar[tuple[type[Event], ...]] = EVENTS

    # --- hooks (see domain.pinochle.hooks) ------------------------------------------------
    auction: ClassVar[bool] = True
    concessions: ClassVar[bool] = True
    opponents_meld: ClassVar[bool] = False

    def config(self, options: Any, seats: int) -> Config:
        assert isinstance(options, PinochleOptions)
        return auction_config(options, seats)

    def active_seats(self, seats: int, dealer: int) -> tuple[int, ...]:
        return sitting_in(seats, dealer)

    def dealt_in(self, seats: int) -> int:
        # Whoever deals, as many sit in (3A.1: three of four or five).
        return len(self.active_seats(seats, 0))

    def first_deal(self, state: State) -> list[Event]:
        return settlement.ante(state)

    def thrown_in(self, state: State) -> list[Event]:
        events = settlement.ante(state)
        return events + settlement.table_end(self._fold(state, events))

    def conceded(self, state: State, by_soloist: bool, widowless: bool = False) -> list[Event]:
        reason: SettlementReason = "conceded" if by_soloist else "opponents_conceded"
        if state.config.scoring == "points":
            return settlement.contract_points(state, reason, [], widowless=widowless)
        if widowless:
            events = settlement.widowless_chips(state)
        else:
            events = settlement.contract_chips(state, reason, [])
        return events + settlement.table_end(self._fold(state, events))

    def score_deal(self, state: State) -> list[Event]:
        count = settlement.soloist_count(state)
        made = sum(item.points for item in count) >= state.high_bid
        reason: SettlementReason = "made" if made else "set"
        if state.config.scoring == "points":
            return settlement.contract_points(state, reason, count)
        events = settlement.contract_chips(state, reason, count)
        return events + settlement.table_end(self._fold(state, events))

    def _fold(self, state: State, events: list[Event]) -> State:
        for event in events:
            state = evolve(self, state, event)
        return state

    # --- the game protocol ------------------------------------------------------------------

    def initial_state(self, seats: int, options: Any, first_dealer: int | None) -> State:
        state = State(
            phase=Phase.DRAW,
            config=self.config(options, seats),
            seats=seats,
            hands=((),) * seats,
            scores=per_seat(seats),
            melds=(None,) * seats,
            meld_points=per_seat(seats),
        )
        return before_first_deal(state, seats, first_dealer, Phase)

    def under_engine(self, state: State, engine: str) -> State:
        withdraws = engine_since(engine, CONCESSION_TO_ITS_TRUMP)
        if state.config.trump_change_withdraws == withdraws:
            return state
        config = msgspec.structs.replace(state.config, trump_change_withdraws=withdraws)
        return msgspec.structs.replace(state, config=config)

    def decide(
        self, state: State, command: PlayerCommand | SupplyDeck, actor: Actor
    ) -> list[Event]:
        return deciding.decide(self, state, command, actor)

    def evolve(self, state: State, event: Event) -> State:
        return evolve(self, state, event)

    to_act = staticmethod(deciding.to_act)

    def legal_actions(self, state: State, seat: int) -> list[LegalAction]:
        return deciding.legal_actions(self, state, seat)

    def view(self, state: State, audience: Audience, header: ViewHeader) -> View:
        return views.build(self, state, audience, header)

    redact = staticmethod(views.redact)


PINOCHLE = AuctionPinochle()
