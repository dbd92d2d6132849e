"""Card order and the follow rules of Auction Forty-Five (RULES 1.3, 1.6)."""

from __future__ import annotations

from collections.abc import Sequence

from domain.cards import rank, suit

TARGET = 120
BIDS = (5, 10, 15, 20, 25, 30)
MAX_DISCARD = 5
TRICKS = 5
HAND_SIZE = 5

# Highest first. The ace of hearts is always a trump and never a heart.
_TRUMP_ORDER = {
    "S": "5S JS AH AS KS QS 2S 3S 4S 6S 7S 8S 9S TS",
    "C": "5C JC AH AC KC QC 2C 3C 4C 6C 7C 8C 9C TC",
    "D": "5D JD AH AD KD QD TD 9D 8D 7D 6D 4D 3D 2D",
    "H": "5H JH AH KH QH TH 9H 8H 7H 6H 4H 3H 2H",
}
_PLAIN_ORDER = {
    "H": "K Q J T 9 8 7 6 5 4 3 2",
    "D": "K Q J T 9 8 7 6 5 4 3 2 A",
    "C": "K Q J A 2 3 4 5 6 7 8 9 T",
    "S": "K Q J A 2 3 4 5 6 7 8 9 T",
}
TRUMP_RANKING: dict[str, dict[str, int]] = {
    t: {c: len(order.split()) - i for i, c in enumerate(order.split())}
    for t, order in _TRUMP_ORDER.items()
}
PLAIN_RANKING: dict[str, dict[str, int]] = {
    s: {r + s: len(order.split()) - i for i, r in enumerate(order.split())}
    for s, order in _PLAIN_ORDER.items()
}


def is_trump(card: str, trump: str) -> bool:
    return card == "AH" or suit(card) == trump


def trump_power(card: str, trump: str) -> int:
    return TRUMP_RANKING[trump][card]


def power_in_trick(card: str, trump: str, led_suit: str) -> int:
    """Trumps above everything, then the suit led, then nothing (RULES 0.7)."""
    if is_trump(card, trump):
        return 100 + trump_power(card, trump)
    if suit(card) == led_suit:
        return PLAIN_RANKING[led_suit][card]
    return 0


def led_suit(lead: str, trump: str) -> str:
    """The suit a lead calls for; a lead of ``AH`` is a trump lead (RULES 1.6)."""
    return trump if is_trump(lead, trump) else suit(lead)


def is_protected(card: str, lead: str, trump: str) -> bool:
    """5, J of trumps and ``AH`` may be withheld when a *lower* trump is led."""
    top_three = card == "AH" or (suit(card) == trump and rank(card) in "5J")
    return top_three and trump_power(card, trump) > trump_power(lead, trump)


def legal_plays(hand: Sequence[str], lead: str | None, trump: str) -> list[str]:
    """Every card of ``hand`` that may go to a trick led by ``lead`` (RULES 1.6)."""
    if lead is None:
        return list(hand)
    trumps = [c for c in hand if is_trump(c, trump)]
    if is_trump(lead, trump):
        if any(not is_protected(c, lead, trump) for c in trumps):
            return trumps
        return list(hand)
    followers = [c for c in hand if suit(c) == suit(lead) and not is_trump(c, trump)]
    if followers:
        return followers + trumps
    return list(hand)
