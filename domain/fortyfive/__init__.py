"""Auction Forty-Five (RULES 1): Dave Barker's four-player partnership game, no kitty.

Four seats in two partnerships ({0, 2} and {1, 3}) play to 120. Each deal: five cards
(3 then 2), an auction of 5..30 with the dealer's hold, trump named by the winner, an
exchange of up to five cards from the stock, five tricks worth 5 each plus 5 for the
highest trump played, and 30-for-60 on a made bid of 30.
"""

from domain.fortyfive.game import FORTY_FIVE, FortyFive, FortyFiveView

__all__ = ["FORTY_FIVE", "FortyFive", "FortyFiveView"]
