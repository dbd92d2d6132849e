"""The state of an Auction Pitch table, folded from its events (RULES 2)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

import msgspec
from msgspec.structs import replace

from domain.common.structs import Call, CompletedTrick, PlayedCard
from domain.common.tricks import trick_leader


class Phase(StrEnum):
    DRAW = "draw"  # waiting for the dealer draw (RULES 0.4)
    DEAL = "deal"  # waiting for a shuffled deck
    AUCTION = "auction"
    PLAY = "play"  # the pitcher's first card fixes trump (RULES 2.5)
    FINISHED = "finished"


class PitchOptions(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The table options of RULES 2, validated when the table is created."""

    # RULES 2.3: Low to the seat dealt the lowest trump, or to the seat that wins it.
    low_point: Literal["dealt", "won"] = "dealt"
    # RULES 2.4: when every seat passes, the next dealer deals, or the dealer must bid.
    all_pass: Literal["redeal", "stick_dealer"] = "redeal"
    # RULES 2.8: one more chip from each loser for every time he was set back.
    setback_chip: bool = False
    # RULES 2.7, 2.10: the winning order, or the highest score at the target. UNSET when
    # left out, so that a table created without it records the options it always did.
    game_end: (
        Annotated[
            Literal["rules", "highest"],
            msgspec.Meta(
                description='RULES 2.10: "highest": the highest score at 7 or more wins, a tie'
                ' at the top plays another deal (default "rules", the order of RULES 2.7)'
            ),
        ]
        | msgspec.UnsetType
    ) = msgspec.UNSET


class PitchCall(Call, frozen=True):
    call: Literal["bid", "pass", "hold"]


class PitchPlayedCard(PlayedCard, frozen=True):
    """A card played to a Pitch trick; its own class for its own name in the API."""


class State(msgspec.Struct, frozen=True, kw_only=True):
    phase: Phase
    seats: int
    options: PitchOptions = PitchOptions()
    dealer: int | None = None
    drawing: tuple[int, ...] = ()
    deal: int = 0
    hands: tuple[tuple[str, ...], ...] = ()
    # Cards left in the pack after the deal: out of play, seen by the operator only.
    undealt: tuple[str, ...] = ()
    turn: int | None = None
    calls: tuple[PitchCall, ...] = ()
    high_bid: int = 0
    high_bidder: int | None = None
    pitcher: int | None = None
    trump: str | None = None
    trick: tuple[PitchPlayedCard, ...] = ()
    tricks: tuple[CompletedTrick[PitchPlayedCard], ...] = ()
    scores: tuple[int, ...] = ()
    setbacks: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()
    chips: tuple[int, ...] | None = None

    @property
    def leader(self) -> int | None:
        """Who leads (or led) the current trick: the pitcher first, then each winner."""
        led = trick_leader(self.trick, self.tricks)
        return self.pitcher if led is None else led


def new_state(seats: int, options: PitchOptions, first_dealer: int | None) -> State:
    state = State(
        phase=Phase.DEAL,
        seats=seats,
        options=options,
        dealer=first_dealer,
        hands=((),) * seats,
        scores=(0,) * seats,
        setbacks=(0,) * seats,
    )
    if first_dealer is None:
        return replace(state, phase=Phase.DRAW, drawing=tuple(range(seats)))
    return state
