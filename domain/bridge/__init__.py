"""Reserve Bridge (RULES 4): Mendelev's two-hand auction bridge with face-down reserves.

A 32-card pack; the non-dealer is A, the dealer B, and the deal alternates. One shuffle
per deal is dealt in four stages (10, 2, 2, 2 cards each) interleaved with three rounds
of bidding in points; the winner names a denomination (a trump suit, no-trump or nullo),
which may be contra'd and recontra'd. Each player then lays three cards face down as a
reserve: six four-card tricks and one two-card trick come from the hand, the last three
from the reserves. Bridge-style score sheet: 20 below the line is a partie, two parties a
rubber, and the table ends with the rubber.
"""

from domain.bridge.game import RESERVE_BRIDGE, ReserveBridge, ReserveBridgeView

__all__ = ["RESERVE_BRIDGE", "ReserveBridge", "ReserveBridgeView"]
