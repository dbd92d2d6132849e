"""Pinochle (RULES 3): Auction Pinochle with a widow and three variants, one machinery.

The 48-card pack holds two of each card ``A T K Q J 9`` per suit; hands are multisets.
- ``pinochle`` (3A): three to five seats, three active each deal. 15 cards each and a
  widow of 3; an auction (300–650 by tens) makes a soloist, who turns the widow up, names
  trump, claims melds and buries three cards (revisable until his first lead), then plays
  fifteen tricks against the other two, needing melds + card points + burial + last trick
  to reach his bid. Settled in chips (schedule, spades double, kitty) or points to 1000.
- ``pinochle-three`` (3.B) and ``pinochle-four`` (3.D): everyone for himself; the dealer's
  last card turned up for trump; the dix exchange; everyone melds; first to 1000.
- ``pinochle-widow`` (3.C): 3A's auction and widow, but every player scores for himself.

The variants reuse the 3A machinery through a handful of hooks (:mod:`.hooks`).
"""

from domain.pinochle.game import PINOCHLE, AuctionPinochle, PinochleView
from domain.pinochle.variants import (
    PINOCHLE_FOUR,
    PINOCHLE_THREE,
    PINOCHLE_WIDOW,
    FourHandPinochle,
    ThreeHandPinochle,
    WidowPinochle,
)

__all__ = [
    "PINOCHLE",
    "PINOCHLE_FOUR",
    "PINOCHLE_THREE",
    "PINOCHLE_WIDOW",
    "AuctionPinochle",
    "FourHandPinochle",
    "PinochleView",
    "ThreeHandPinochle",
    "WidowPinochle",
]
