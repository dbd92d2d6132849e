"""The state of an Auction Pitch table, folded from its events (RULES 2)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

import msgspec

from domain.common.draw import before_first_deal
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

    low_point: Annotated[
        Literal["dealt", "won"],
        msgspec.Meta(
            description="Low goes to the seat `dealt` the lowest trump in play, or to the"
            " seat that `won` the trick it falls in (RULES 2.3)."
        ),
    ] = "dealt"
    all_pass: Annotated[
        Literal["redeal", "stick_dealer"],
        msgspec.Meta(
            description="When every seat passes: `redeal` (the next dealer deals), or"
            " `stick_dealer` (the dealer must bid at least 2; RULES 2.4)."
        ),
    ] = "redeal"
    setback_chip: Annotated[
        bool,
        msgspec.Meta(
            description="At the settlement each loser pays the winner one more chip for"
            " every time he was set back (RULES 2.8)."
        ),
    ] = False
    # RULES 2.7, 2.10: the winning order, or the highest score at the target. UNSET when
    # left out, so that a table created without it records the options it always did.
    game_end: (
        Annotated[
            Literal["rules", "highest"],
            msgspec.Meta(
                description="`rules`: the winning order of RULES 2.7 (the default); `highest`:"
                " the highest score at 7 or more wins, a tie at the top plays another deal"
                " (RULES 2.10).",
                extra_json_schema={"default": "rules"},
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
        phase=Phase.DRAW,
        seats=seats,
        options=options,
        hands=((),) * seats,
        scores=(0,) * seats,
        setbacks=(0,) * seats,
    )
    return before_first_deal(state, seats, first_dealer, Phase)
