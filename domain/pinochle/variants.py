"""The three Pinochle variants as small overrides of the 3A game (RULES 3.B, 3.C, 3.D).

- ``pinochle-three`` (3.B): no auction; 16 each in fours, the dealer's last card turned up
  for trump, the dix exchange, everyone melds, and everyone scores melds and card points.
- ``pinochle-four`` (3.D): the same with four seats, 12 each in threes.
- ``pinochle-widow`` (3.C): 3A's auction, widow and play, but the opponents meld and
  score for themselves too, and the soloist scores his bid or nothing.

In all three a player who takes no trick loses his melds, and the game is to 1000 with the
target rising by 250 when too many reach it on one deal.
"""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec

from domain.common.scoring import hand_scored, points_by_unit
from domain.events import Contract, Event, GameWon, HandScored, ScoreItem
from domain.pinochle import settlement
from domain.pinochle.deal import everyone
from domain.pinochle.events import TargetRaised
from domain.pinochle.game import AuctionPinochle
from domain.pinochle.options import (
    TARGET_STEP,
    Config,
    TurnUpOptions,
    WidowOptions,
    auction_config,
    with_play_rules,
)
from domain.pinochle.state import State
from domain.pinochle.view import PinochleViewBase
from domain.protocol import View


class PinochleThreeView(PinochleViewBase, frozen=True, kw_only=True, tag="pinochle-three"):
    """Three-hand Pinochle: scores are points; ``target`` is the score to reach."""

    options: TurnUpOptions


class PinochleWidowView(PinochleViewBase, frozen=True, kw_only=True, tag="pinochle-widow"):
    """Widow Pinochle: scores are points; ``target`` is the score to reach."""

    options: WidowOptions


class PinochleFourView(PinochleViewBase, frozen=True, kw_only=True, tag="pinochle-four"):
    """Four-hand individual Pinochle: scores are points; ``target`` is the score to reach."""

    options: TurnUpOptions


def player_items(state: State, seat: int) -> list[ScoreItem]:
    """Melds (and a scored dix) only with a trick taken; card points; the last trick."""
    took = settlement.tricks_won(state, seat) > 0
    items = [
        ScoreItem(unit=seat, label="melds", points=state.meld_points[seat] * took),
        ScoreItem(unit=seat, label="dix", points=state.dix_bonus[seat] * took),
        ScoreItem(unit=seat, label="cards", points=settlement.card_points(state, seat)),
        ScoreItem(unit=seat, label="last_trick", points=settlement.last_trick(state, seat)),
    ]
    return [item for item in items if item.points]


def scored(state: State, items: list[ScoreItem], contract: Contract | None = None) -> HandScored:
    changes = points_by_unit(items, state.seats)
    return hand_scored(state.deal, items, changes, state.scores, contract)


def target_reached(state: State, scores: list[int], contenders: list[int]) -> list[Event]:
    """One contender at the target wins; two or more raise it by 250 and play goes on
    [decision: one raise per deal; the new target is to be reached on a later deal]."""
    reached = [seat for seat in contenders if scores[seat] >= state.target]
    if len(reached) == 1:
        return [GameWon(winners=reached, scores=scores)]
    if len(reached) > 1:
        return [TargetRaised(target=state.target + TARGET_STEP)]
    return []


class ThreeHandPinochle(AuctionPinochle):
    """RULES 3.B: three players, each for himself, no widow and no auction."""

    id: ClassVar[str] = "pinochle-three"
    min_seats: ClassVar[int] = 3
    max_seats: ClassVar[int] = 3
    options_type: ClassVar[type[msgspec.Struct]] = TurnUpOptions
    view_type: ClassVar[type[View]] = PinochleThreeView
    auction: ClassVar[bool] = False
    concessions: ClassVar[bool] = False
    packets: ClassVar[tuple[int, ...]] = (4, 4, 4, 4)

    def config(self, options: Any, seats: int) -> Config:
        assert isinstance(options, TurnUpOptions)
        return with_play_rules(Config(packets=self.packets, widow=0), options)

    def active_seats(self, seats: int, dealer: int) -> tuple[int, ...]:
        return everyone(seats, dealer)

    def score_deal(self, state: State) -> list[Event]:
        items = [item for seat in state.active for item in player_items(state, seat)]
        hand = scored(state, items)
        return [hand, *target_reached(state, hand.scores, list(state.active))]


class FourHandPinochle(ThreeHandPinochle):
    """RULES 3.D: as 3.B with four players and 12 cards each, dealt in threes."""

    id: ClassVar[str] = "pinochle-four"
    min_seats: ClassVar[int] = 4
    max_seats: ClassVar[int] = 4
    view_type: ClassVar[type[View]] = PinochleFourView
    packets: ClassVar[tuple[int, ...]] = (3, 3, 3, 3)


class WidowPinochle(AuctionPinochle):
    """RULES 3.C: 3A's auction, widow and play; everyone melds and scores for himself."""

    id: ClassVar[str] = "pinochle-widow"
    min_seats: ClassVar[int] = 3
    max_seats: ClassVar[int] = 3
    options_type: ClassVar[type[msgspec.Struct]] = WidowOptions
    view_type: ClassVar[type[View]] = PinochleWidowView
    # [decision] No concessions: the soloist risks nothing by playing on (a failed bid
    # scores zero) and the opponents score their own points only by playing.
    concessions: ClassVar[bool] = False
    opponents_meld: ClassVar[bool] = True

    def config(self, options: Any, seats: int) -> Config:
        assert isinstance(options, WidowOptions)
        return auction_config(options, seats)

    def score_deal(self, state: State) -> list[Event]:
        seat, bid = state.soloist, state.high_bid
        assert seat is not None
        # [decision] "A player with no trick loses his melds" holds for the soloist too.
        count = settlement.soloist_count(state, melds_need_a_trick=True)
        made = sum(item.points for item in count) >= bid
        items = [ScoreItem(unit=seat, label="bid", points=bid)] if made else []
        items += [item for opp in state.opponents for item in player_items(state, opp)]
        hand = scored(state, items, Contract(seat=seat, amount=bid, made=made))
        # The soloist is counted first and wins on reaching the target, whatever the rest.
        if hand.scores[seat] >= state.target:
            return [hand, GameWon(winners=[seat], scores=hand.scores)]
        return [hand, *target_reached(state, hand.scores, list(state.opponents))]


PINOCHLE_THREE = ThreeHandPinochle()
PINOCHLE_FOUR = FourHandPinochle()
PINOCHLE_WIDOW = WidowPinochle()
