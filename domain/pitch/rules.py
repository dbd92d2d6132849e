"""Card order, following and game points of Auction Pitch (RULES 2.1, 2.3, 2.5)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from domain.cards import RANKS, SUITS, rank, suit

TARGET = 7
BIDS = (2, 3, 4)
SMUDGE = 4
PACKET = 3
HAND_SIZE = 6
TRICKS = 6

# Ace high in every suit: A K Q J T 9 ... 2 (RULES 2.1).
RANK_POWER = {r: i for i, r in enumerate(RANKS, start=1)}
GAME_VALUE = {"T": 10, "A": 4, "K": 3, "Q": 2, "J": 1}  # RULES 2.3, all suits
# Per card code, since views total every seat's captured cards on every request.
_CARD_GAME_POINTS = {r + s: GAME_VALUE.get(r, 0) for r in RANKS for s in SUITS}


def power(card: str) -> int:
    return RANK_POWER[rank(card)]


def game_points(cards: Iterable[str]) -> int:
    return sum(map(_CARD_GAME_POINTS.__getitem__, cards))


def legal_plays(hand: Sequence[str], lead: str | None, trump: str | None) -> list[str]:
    """Every card of ``hand`` that may go to a trick led by ``lead`` (RULES 2.5).

    The pitcher's first lead is free (it fixes trump). On a trump lead a seat holding a
    trump must play one; on a plain lead it may follow suit or trump, at will; a seat
    void in the suit led may play anything.
    """
    if lead is None or trump is None:
        return list(hand)
    led = suit(lead)
    trumps = [c for c in hand if suit(c) == trump]
    if led == trump:
        return trumps or list(hand)
    followers = [c for c in hand if suit(c) == led]
    if followers:
        return followers + trumps
    return list(hand)


def power_in_trick(card: str, trump: str, led: str) -> int:
    """Trumps above the suit led, the suit led above everything else (RULES 0.7)."""
    if suit(card) == trump:
        return 100 + power(card)
    if suit(card) == led:
        return power(card)
    return 0
