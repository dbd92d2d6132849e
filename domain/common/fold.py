"""What every game's ``evolve`` folds alike: a new deal, an auction call (Reserve Bridge
records its own), the pause between deals, the dealer draw, a trick won and the game's end;
and the events every game records."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Protocol, TypeVar, cast

import msgspec
from msgspec.structs import replace

from domain.common.draw import after_draw
from domain.common.structs import Call
from domain.common.tricks import left_of, trick_taken
from domain.events import (
    AuctionWon,
    BidMade,
    CardPlayed,
    CardsDealt,
    DealerDrawn,
    DealThrownIn,
    Event,
    GameTimed,
    GameWon,
    HandScored,
    Passed,
    TrickWon,
)

S = TypeVar("S", bound=msgspec.Struct)


def new_deal(
    state: S,
    event: CardsDealt,
    phase: StrEnum,
    turn: int,
    hands: tuple[tuple[str, ...], ...] | None = None,
) -> S:
    """The fold of ``cards_dealt`` as every game begins it: the deal's number, dealer and
    ``hands`` (as dealt unless the game sorts them), ``phase`` and ``turn``, and the last
    deal's auction and tricks cleared. A game clears its own fields on the result.

    ``state`` is any game's state with those fields and ``calls``, ``high_bid``,
    ``high_bidder``, ``trick`` and ``tricks``."""
    return replace(
        state,
        phase=phase,
        deal=event.deal,
        dealer=event.dealer,
        hands=tuple(tuple(h or ()) for h in event.hands) if hands is None else hands,
        turn=turn,
        calls=(),
        high_bid=0,
        high_bidder=None,
        trick=(),
        tricks=(),
    )


class Calling(Protocol):
    """What :func:`call_made` reads of a game's state."""

    @property
    def calls(self) -> tuple[Call, ...]: ...


def call_made(state: S, call: Call, turn: int | None) -> S:
    """The fold of an auction call (``bid_made``, ``held``, ``passed``) where the games
    record it alike (Forty-Five, Pitch, Pinochle): ``call`` joins the deal's calls, a bid
    is the new high bid, a hold makes its seat the high bidder at the same amount, and
    ``turn`` calls next. ``state`` is any game's state with ``calls``, ``high_bid``,
    ``high_bidder`` and ``turn`` fields (:class:`Calling`)."""
    calls = (*cast(Calling, state).calls, call)
    if call.call == "bid":
        return replace(state, calls=calls, high_bid=call.amount, high_bidder=call.seat, turn=turn)
    if call.call == "hold":
        return replace(state, calls=calls, high_bidder=call.seat, turn=turn)
    return replace(state, calls=calls, turn=turn)


class Dealt(Protocol):
    """What :func:`between_deals` and :func:`last_deals_dealer` read of a game's state."""

    @property
    def dealer(self) -> int | None: ...

    @property
    def deal(self) -> int: ...


def between_deals(state: S, seats: int, deal_phase: StrEnum) -> S:
    """After every deal, a thrown-in one included, the deal passes left (RULES 0.4) and
    the table waits for the next deck. ``state`` is any game's state with ``phase``,
    ``dealer`` and ``turn`` fields (:class:`Dealt`)."""
    dealer = cast(Dealt, state).dealer
    assert dealer is not None
    return replace(state, phase=deal_phase, dealer=left_of(dealer, seats), turn=None)


def game_won(state: S, winners: Sequence[int], seats: int, finished: StrEnum) -> S:
    """The fold of ``game_won``, and of ``game_timed`` (won by the side ahead when time
    was up, by nobody when level): the game is ``finished`` and nobody acts any more."""
    ended = replace(state, phase=finished, winners=tuple(winners), turn=None)
    return last_deals_dealer(ended, seats)


def last_deals_dealer(state: S, seats: int) -> S:
    """A game that ends between deals (won, or on time) ends after the scoring of its
    last deal, which passed the deal on to a deal never dealt: the dealer is again the
    last deal's, whose auction and tricks the ended game still shows."""
    dealt = cast(Dealt, state)
    if dealt.dealer is None or not dealt.deal:
        return state
    return replace(state, dealer=left_of(dealt.dealer, seats, -1))


def fold_alike(state: S, event: Event, draw_order: str, seats: int, phases: type[StrEnum]) -> S:
    """The fold of the events every game folds alike — the dealer draw (the best card in
    ``draw_order`` deals), a deal thrown in, a trick won and the game won — and of any
    other event none. A game's ``evolve`` matches its own events and leaves the rest to
    this. ``phases`` is the game's phase enum, with the ``deal`` and ``finished`` phases
    every game has."""
    match event:
        case DealerDrawn():
            return after_draw(state, event, draw_order, phases("deal"))
        case DealThrownIn():
            return between_deals(state, seats, phases("deal"))
        case TrickWon(seat=winner):
            return trick_taken(state, winner)
        case GameWon(winners=winners):
            return game_won(state, winners, seats, phases("finished"))
        case GameTimed(winners=winners):
            return game_won(state, winners, seats, phases("finished"))
    return state


Events = tuple[type[Event], ...]


def game_events(
    *,
    dealing: Events = (),
    bids: Events = (),
    calls: Events = (),
    contract: Events = (),
    scoring: Events = (),
    ending: Events = (),
) -> Events:
    """Every event a game's table records, in the order its event union lists them (the
    decoders and the OpenAPI document follow it): the events every game records, with the
    game's own in their places — ``dealing`` after the deal, ``bids`` after a bid, ``calls``
    after a pass, ``contract`` between the auction and the first card, ``scoring`` after
    the deal's score and ``ending`` after the game's end."""
    return (
        DealerDrawn,
        CardsDealt,
        *dealing,
        BidMade,
        *bids,
        Passed,
        *calls,
        AuctionWon,
        DealThrownIn,
        *contract,
        CardPlayed,
        TrickWon,
        HandScored,
        *scoring,
        GameWon,
        *ending,
    )
