"""The state of a Pinochle table (any of the four games), folded from its events."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

import msgspec

from domain.commands import MeldClaim
from domain.common.structs import Call, CompletedTrick, PlayedCard
from domain.common.tricks import trick_leader
from domain.pinochle.options import Config


class Phase(StrEnum):
    DRAW = "draw"  # waiting for the dealer draw (RULES 0.4)
    DEAL = "deal"  # waiting for a shuffled deck
    AUCTION = "auction"  # 3A.3
    WIDOW = "widow"  # a compulsory opener may concede before seeing the widow (3A.3)
    PREPARE = "prepare"  # the soloist names trump, melds and buries (3A.4, 3A.5)
    DIX = "dix"  # seats in turn may exchange the dix for the turn-up (3.B)
    MELD = "meld"  # seats in turn claim their melds (3.B, 3.C)
    PLAY = "play"
    FINISHED = "finished"


class PinochleCall(Call, frozen=True):
    call: Literal["bid", "pass"]


class PinochlePlayedCard(PlayedCard, frozen=True):
    """A card played to a Pinochle trick; its own class for its own name in the API."""


Claim = tuple[MeldClaim, ...]


class State(msgspec.Struct, frozen=True, kw_only=True):
    phase: Phase
    config: Config
    seats: int
    dealer: int | None = None
    drawing: tuple[int, ...] = ()
    deal: int = 0
    # The seats dealt in, from the dealer's left; the others sit out this deal (3A.1).
    active: tuple[int, ...] = ()
    hands: tuple[tuple[str, ...], ...] = ()
    widow: tuple[str, ...] = ()
    widow_up: bool = False
    turn: int | None = None
    calls: tuple[PinochleCall, ...] = ()
    passed: tuple[int, ...] = ()
    high_bid: int = 0
    high_bidder: int | None = None
    soloist: int | None = None
    trump: str | None = None
    turn_up: str | None = None
    dix_exchanged_by: int | None = None
    dix_bonus: tuple[int, ...] = ()  # per seat: 10 for an exchanged (or turned-up) dix
    dix_barred: tuple[int, ...] = ()  # per seat: nines of trumps that may not be melded
    melds: tuple[Claim | None, ...] = ()  # per seat: the standing claim, None if none yet
    meld_points: tuple[int, ...] = ()  # per seat: what the standing claim is worth
    buried: tuple[str, ...] = ()
    trumps_buried: bool = False
    conceded: tuple[int, ...] = ()  # opponents who have conceded to the soloist
    trick: tuple[PinochlePlayedCard, ...] = ()
    tricks: tuple[CompletedTrick[PinochlePlayedCard], ...] = ()
    taken: tuple[int, ...] = ()  # per seat: card points in the tricks won this deal
    scores: tuple[int, ...] = ()  # chips or points, per seat
    kitty: int = 0
    target: int = 1000
    winners: tuple[int, ...] = ()

    @property
    def opponents(self) -> tuple[int, ...]:
        return tuple(s for s in self.active if s != self.soloist)

    @property
    def leader(self) -> int | None:
        """Who leads (or led) the current trick: the soloist, or the dealer's left, first."""
        led = trick_leader(self.trick, self.tricks)
        if led is not None:
            return led
        return self.soloist if self.soloist is not None else (self.active or (None,))[0]

    def next_active(self, seat: int) -> int:
        """The next seat clockwise that is dealt in (play and bidding skip sit-outs)."""
        for step in range(1, self.seats + 1):
            candidate = (seat + step) % self.seats
            if candidate in self.active:
                return candidate
        return seat

    def cards_of(self, seat: int) -> tuple[str, ...]:
        """What ``seat`` holds, with the soloist's buried cards (the 18 he melds from)."""
        return self.hands[seat] + (self.buried if seat == self.soloist else ())


def per_seat(seats: int, value: int = 0) -> tuple[int, ...]:
    return (value,) * seats
