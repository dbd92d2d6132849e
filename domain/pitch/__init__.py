"""Auction Pitch, or Setback (RULES 2): two to seven players, each for himself.

Six cards each (3 + 3), the rest out of play. One round of bidding 2, 3 or 4 (smudge),
the dealer last and free to take the high bid unless it is a smudge. The pitcher's first
card fixes trump. Six tricks decide four points — High, Low, Jack and Game; a pitcher who
falls short of his bid is set back by it. First to 7 wins (the pitcher counted first,
then High, Low, Jack, Game); a smudge made from a score of zero or more wins at once.
The game ends with a chip settlement.
"""

from domain.pitch.game import PITCH, Pitch, PitchView

__all__ = ["PITCH", "Pitch", "PitchView"]
