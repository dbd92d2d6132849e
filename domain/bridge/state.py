"""The state of a Reserve Bridge table, folded from its events."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

import msgspec

from domain.common.structs import CompletedTrick, PlayedCard


class Phase(StrEnum):
    DRAW = "draw"  # waiting for the dealer draw (RULES 0.4)
    DEAL = "deal"  # waiting for a shuffled deck
    AUCTION = "auction"  # three rounds, interleaved with stages 2 and 3 (RULES 4.2)
    DECLARE = "declare"  # the auction winner names the denomination
    CONTRA = "contra"  # the opponent may contra
    RECONTRA = "recontra"  # after a contra: recontra, change or accept
    RESERVE = "reserve"  # both players lay three cards face down, in any order
    PLAY = "play"
    FINISHED = "finished"


class BridgeOptions(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Reserve Bridge has no table options: RULES 4 fixes every rule."""


SEATS = 2
Doubling = Literal["none", "contra", "recontra"]


class BridgeCall(msgspec.Struct, frozen=True):
    """One auction call; ``slam`` marks a slam bid beyond the cap that applied (RULES 4.3).

    Not a :class:`domain.common.structs.Call`: ``round`` comes second in the stored state.
    """

    seat: int
    round: int
    call: Literal["bid", "slam", "pass", "stand"]
    amount: int | None = None


class BridgePlayedCard(PlayedCard, frozen=True):
    """A card played to a Reserve Bridge trick; its own class for its own name in the API."""


class BridgeHonour(msgspec.Struct, frozen=True):
    """Honours held once the deal is complete: ``kind`` run, aces or sevens (RULES 4.7)."""

    seat: int
    kind: Literal["run", "aces", "sevens"]
    count: int
    points: int


class BridgeSheetEntry(msgspec.Struct, frozen=True):
    """One line of the score sheet: ``line`` is above or below, ``partie`` is 0-based."""

    deal: int
    partie: int
    seat: int
    line: Literal["above", "below"]
    label: str
    points: int


def other(seat: int) -> int:
    return 1 - seat


class State(msgspec.Struct, frozen=True, kw_only=True):
    phase: Phase
    dealer: int | None = None
    drawing: tuple[int, ...] = ()
    deal: int = 0
    # Cards: the hand in play (all 16 until the reserve is laid), the reserve, and the
    # undealt rest of the deal's one shuffle, dealt in stages 2-4 (RULES 4.2).
    hands: tuple[tuple[str, ...], ...] = ((), ())
    reserves: tuple[tuple[str, ...], ...] = ((), ())
    reserve_laid: tuple[bool, bool] = (False, False)
    stock: tuple[str, ...] = ()
    stage: int = 0
    # The auction (RULES 4.3): own bids now and at the end of the previous round.
    round: int = 0
    turn: int | None = None
    calls: tuple[BridgeCall, ...] = ()
    passed: int | None = None
    high_bid: int = 0
    high_bidder: int | None = None
    slam_only: bool = False
    bids: tuple[int, int] = (0, 0)
    previous_bids: tuple[int, int] = (0, 0)
    # The contract (RULES 4.4).
    denomination: str | None = None
    doubling: Doubling = "none"
    changed: bool = False
    honours: tuple[BridgeHonour, ...] = ()
    trick: tuple[BridgePlayedCard, ...] = ()
    tricks: tuple[CompletedTrick[BridgePlayedCard], ...] = ()
    # The score sheet of the rubber (RULES 4.8).
    sheet: tuple[BridgeSheetEntry, ...] = ()
    parties: tuple[int, int] = (0, 0)
    winners: tuple[int, ...] = ()

    @property
    def non_dealer(self) -> int | None:
        """Player *A* of RULES 4.1, who speaks and leads first."""
        return None if self.dealer is None else other(self.dealer)

    @property
    def trick_number(self) -> int:
        return len(self.tricks) + 1
