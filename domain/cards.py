"""Card codes and packs (RULES 0.1).

A card is its two-character code, rank then suit: ``5S``, ``AH``, ``TD``. Plain strings
keep events, views and commands readable on the wire and in exports; the helpers here
are the only place that takes a code apart.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Annotated

import msgspec

RANKS = "23456789TJQKA"
SUITS = "CDHS"

Card = Annotated[
    str,
    msgspec.Meta(
        pattern=r"^[2-9TJQKA][CDHS]$(?!\n)",
        description="A card code: rank (2-9, T, J, Q, K, A) then suit (C, D, H, S).",
        examples=["5S"],
    ),
]
Suit = Annotated[
    str,
    msgspec.Meta(pattern=r"^[CDHS]$(?!\n)", description="A suit: C, D, H or S.", examples=["S"]),
]


def rank(card: str) -> str:
    return card[0]


def suit(card: str) -> str:
    return card[1]


def is_card(code: str) -> bool:
    return len(code) == 2 and code[0] in RANKS and code[1] in SUITS


def standard_pack() -> tuple[str, ...]:
    """The 52-card pack in a fixed reference order (suits C D H S, ranks 2..A)."""
    return tuple(r + s for s in SUITS for r in RANKS)


def pinochle_pack() -> tuple[str, ...]:
    """48 cards: two copies each of 9 T J Q K A in four suits (RULES 3.1)."""
    single = tuple(r + s for s in SUITS for r in "9TJQKA")
    return single + single


def piquet_pack() -> tuple[str, ...]:
    """32 cards: 7 8 9 T J Q K A in four suits (RULES 4.1)."""
    return tuple(r + s for s in SUITS for r in "789TJQKA")


def same_cards(a: Iterable[str], b: Iterable[str]) -> bool:
    """Multiset equality: the pinochle pack holds duplicates (RULES 0.1)."""
    return Counter(a) == Counter(b)


def remove_cards(hand: tuple[str, ...], cards: Iterable[str]) -> tuple[str, ...]:
    """``hand`` less one copy of each of ``cards``; every card must be present."""
    rest = list(hand)
    for card in cards:
        rest.remove(card)
    return tuple(rest)


def remove_from(
    hands: tuple[tuple[str, ...], ...], seat: int, cards: Iterable[str]
) -> tuple[tuple[str, ...], ...]:
    """``hands`` with ``seat``'s hand less one copy of each of ``cards``."""
    changed = list(hands)
    changed[seat] = remove_cards(changed[seat], cards)
    return tuple(changed)


def holds_all(hand: Iterable[str], cards: Iterable[str]) -> bool:
    """True when ``hand`` contains every card of ``cards``, counting duplicates."""
    need = Counter(cards)
    have = Counter(hand)
    return all(have[c] >= n for c, n in need.items())


def canonical_deck(deck: Iterable[str]) -> str:
    """The canonical text of a deck order, top card first, as committed to (DESIGN 5)."""
    return " ".join(deck)
