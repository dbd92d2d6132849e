"""Pinochle events. THIS IS THE STORAGE FORMAT — version with care (see domain/events.py).

The shared events carry the deal (``cards_dealt``: the widow is its ``rest``), the auction,
trump, play and points (``hand_scored``); these add what only Pinochle has.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.cards import Card
from domain.commands import MeldClaim
from domain.events import Contract, Event, ScoreItem, SeatEvent


class WidowTurnedUp(SeatEvent, frozen=True, tag="widow_turned_up"):
    """The soloist turns the widow face up for everyone and takes it (RULES 3A.4)."""

    cards: list[Card]


class MeldsClaimed(SeatEvent, frozen=True, tag="melds_claimed"):
    """A seat's meld claim, public, replacing its earlier claim of the deal (RULES 3.3)."""

    melds: list[MeldClaim]
    points: int


class CardsBuried(SeatEvent, frozen=True, tag="cards_buried"):
    """The soloist's burial, replacing any earlier one. Whether it holds trumps is public;
    how many is not [decision: RULES 3A.4 makes only "the fact" public]."""

    count: int
    trumps: bool
    cards: list[Card] | None = None


class DealConceded(SeatEvent, frozen=True, tag="deal_conceded"):
    """The soloist gives up, or one opponent agrees to give him the deal (RULES 3A.5)."""


class TrumpTurnedUp(SeatEvent, frozen=True, tag="trump_turned_up"):
    """The dealer's last card, face up: its suit is trump (RULES 3.B)."""

    card: Card


class DixExchanged(SeatEvent, frozen=True, tag="dix_exchanged"):
    """``seat`` gave the nine of trumps to ``dealer`` for the turned-up ``card`` (3.B)."""

    dealer: int
    dix: Card
    card: Card


class TargetRaised(Event, frozen=True, tag="target_raised"):
    """Too many players reached the target on one deal: it rises by 250 (3.B, 3.C)."""

    target: int


SettlementReason = Literal[
    "ante",
    "thrown_in",
    "made",
    "opponents_conceded",
    "conceded",
    "set",
    "widowless_concession",
    "kitty_shared",
]


class ChipsSettled(Event, frozen=True, tag="chips_settled"):
    """Chips moved between the seats and the kitty (RULES 3A.7, 3A.8).

    ``changes`` per seat and ``kitty`` (the kitty's change) always sum to zero, as do the
    running ``scores`` and ``kitty_total``. ``count`` itemises the soloist's points.
    """

    deal: int
    reason: SettlementReason
    changes: list[int]
    kitty: int
    scores: list[int]
    kitty_total: int
    unit: int = 0
    contract: Contract | None = None
    count: list[ScoreItem] = msgspec.field(default_factory=list)
