"""The state of an Auction Forty-Five table, folded from its events."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

import msgspec

from domain.common.structs import Call, CompletedTrick, PlayedCard
from domain.common.tricks import trick_leader


class Phase(StrEnum):
    DRAW = "draw"  # waiting for the dealer draw (RULES 0.4)
    DEAL = "deal"  # waiting for a shuffled deck
    AUCTION = "auction"
    TRUMP = "trump"
    EXCHANGE = "exchange"
    PLAY = "play"
    FINISHED = "finished"


class FortyFiveOptions(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Auction Forty-Five has no table options: Barker's rules are fixed (RULES 1)."""


class FortyFiveCall(Call, frozen=True):
    call: Literal["bid", "pass", "hold"]


class FortyFivePlayedCard(PlayedCard, frozen=True):
    """A card played to a Forty-Five trick; its own class for its own name in the API."""


SEATS = 4
SIDES = ((0, 2), (1, 3))


def side_of(seat: int) -> int:
    """Partnerships are {0, 2} and {1, 3} (RULES 1.1)."""
    return seat % 2


class State(msgspec.Struct, frozen=True, kw_only=True):
    phase: Phase
    dealer: int | None = None
    drawing: tuple[int, ...] = ()
    deal: int = 0
    hands: tuple[tuple[str, ...], ...] = ((), (), (), ())
    stock: tuple[str, ...] = ()
    turn: int | None = None
    calls: tuple[FortyFiveCall, ...] = ()
    passed: tuple[int, ...] = ()
    high_bid: int = 0
    high_bidder: int | None = None
    trump: str | None = None
    exchanged: tuple[int | None, ...] = (None, None, None, None)
    trick: tuple[FortyFivePlayedCard, ...] = ()
    tricks: tuple[CompletedTrick[FortyFivePlayedCard], ...] = ()
    scores: tuple[int, int] = (0, 0)
    winners: tuple[int, ...] = ()
    discarded: tuple[str, ...] = ()

    @property
    def leader(self) -> int | None:
        """Who leads (or led) the current trick: the bidder's left leads the first."""
        led = trick_leader(self.trick, self.tricks)
        if led is not None or self.high_bidder is None:
            return led
        return (self.high_bidder + 1) % SEATS
