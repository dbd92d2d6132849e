"""What every game's ``evolve`` folds alike: a new deal, the pause between deals, and the
game's end."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Protocol, TypeVar, cast

import msgspec
from msgspec.structs import replace

from domain.common.tricks import left_of
from domain.events import CardsDealt

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


class Dealt(Protocol):
    """What :func:`between_deals` reads of a game's state."""

    @property
    def dealer(self) -> int | None: ...


def between_deals(state: S, seats: int, deal_phase: StrEnum) -> S:
    """After every deal, a thrown-in one included, the deal passes left (RULES 0.4) and
    the table waits for the next deck. ``state`` is any game's state with ``phase``,
    ``dealer`` and ``turn`` fields (:class:`Dealt`)."""
    dealer = cast(Dealt, state).dealer
    assert dealer is not None
    return replace(state, phase=deal_phase, dealer=left_of(dealer, seats), turn=None)


def game_won(state: S, winners: Sequence[int], finished: StrEnum) -> S:
    """The fold of ``game_won``: the game is ``finished`` and nobody acts any more."""
    return replace(state, phase=finished, winners=tuple(winners), turn=None)
