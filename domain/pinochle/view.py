"""What each audience sees of a Pinochle table, and the events redacted for it (RULES 0.6).

A seat sees its own hand (an inactive seat has none: ``[]``), the widow once turned up,
every meld claim, every card played, and that trumps were buried — never which cards, but
for the soloist himself. Other hands, the widow before it is turned up and the burial
are for the operator only.
"""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from domain.cards import Card
from domain.commands import MeldClaim
from domain.common.view import last_trick, redact_deal, seat_fields, tricks_won
from domain.events import CardsDealt, Event
from domain.pinochle.events import CardsBuried
from domain.pinochle.state import PinochleCall, PinochlePlayedCard, State
from domain.protocol import Audience, Game, View, ViewHeader


class PinochleTrickView(msgspec.Struct, frozen=True):
    leader: int
    winner: int | None
    cards: list[PinochlePlayedCard]


class PinochleViewBase(View, frozen=True, kw_only=True):
    """Per-seat lists are indexed by seat; ``scores`` are chips (or points)."""

    scoring: str
    active: list[int]
    hand_sizes: list[int]
    auction: list[PinochleCall]
    high_bid: int | None
    soloist: int | None
    widow: list[Card] | None
    trump: str | None
    turn_up: Card | None
    dix_exchanged_by: int | None
    melds: list[list[MeldClaim] | None]
    meld_points: list[int]
    buried: list[Card] | None
    buried_count: int
    trumps_buried: bool
    conceded: list[int]
    trick: PinochleTrickView | None
    last_trick: PinochleTrickView | None
    tricks_won: list[int]
    card_points: list[int]
    kitty: int | None
    target: int | None
    deals: int | None
    winners: list[int]


def build(
    game: Game[State], state: State, audience: Audience, header: ViewHeader
) -> PinochleViewBase:
    """The table as ``audience`` sees it, in the view type of ``game`` (one per game id)."""
    view_type = game.view_type
    assert issubclass(view_type, PinochleViewBase)
    seat = audience if isinstance(audience, int) else None
    operator = audience == "operator"
    chips = state.config.scoring == "chips"
    sees_burial = operator or (seat is not None and seat == state.soloist)
    return view_type(
        **header.fields(),
        **seat_fields(game, state, audience, header),
        scores=list(state.scores),
        scoring=state.config.scoring,
        active=list(state.active),
        hand_sizes=[len(h) for h in state.hands],
        auction=list(state.calls),
        high_bid=state.high_bid or None,
        soloist=state.soloist,
        widow=list(state.widow) if state.widow_up or (operator and state.widow) else None,
        trump=state.trump,
        turn_up=state.turn_up,
        dix_exchanged_by=state.dix_exchanged_by,
        melds=[None if m is None else list(m) for m in state.melds],
        meld_points=list(state.meld_points) or [0] * state.seats,
        buried=list(state.buried) if sees_burial and state.buried else None,
        buried_count=len(state.buried),
        trumps_buried=state.trumps_buried,
        conceded=list(state.conceded),
        trick=PinochleTrickView(leader=state.trick[0].seat, winner=None, cards=list(state.trick))
        if state.trick
        else None,
        last_trick=last_trick(PinochleTrickView, state.tricks),
        tricks_won=tricks_won(state.tricks, state.seats),
        card_points=list(state.taken) if state.taken else [0] * state.seats,
        kitty=state.kitty if chips and state.config.kitty else None,
        target=None if chips else state.target,
        deals=state.config.deals if chips else None,
        winners=list(state.winners),
    )


def redact(event: Event, audience: Audience) -> Event:
    match event:
        case CardsDealt():
            return redact_deal(event, audience)
        case CardsBuried(seat=seat) if seat != audience:
            return replace(event, cards=None)
    return event
