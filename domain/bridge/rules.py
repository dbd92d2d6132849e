"""The card rules of Reserve Bridge: denominations, contracts, tricks, honours (RULES 4)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from domain.cards import rank, suit
from domain.common import tricks

ORDER = "AKQJT987"  # highest first, in play and in the dealer draw (RULES 4.1, 0.4)
POWER = {r: len(ORDER) - i for i, r in enumerate(ORDER)}

Denomination = Literal["C", "D", "H", "S", "NT", "NULLO"]
DENOMINATIONS: tuple[Denomination, ...] = ("C", "D", "H", "S", "NT", "NULLO")
TRICK_VALUE = {"C": 6, "D": 6, "H": 8, "S": 8, "NT": 10, "NULLO": 10}
BOOK = 5  # odd tricks are those over five of ten
MAX_ODD = 5
MIN_BID, MAX_BID = 6, 50
RAISE_CAP = 5
SMALL, GRAND = 4, 5  # odd tricks of a small (9 tricks) and a grand (10 tricks) slam
SLAM_BIDS = frozenset(TRICK_VALUE[d] * n for d in DENOMINATIONS for n in (SMALL, GRAND))

STAGES = (10, 2, 2, 2)  # cards to each player per stage, dealt in twos (RULES 4.2)
PACKET = 2
RESERVE_SIZE = 3
TRICKS = 10
HAND_TRICKS = 7  # tricks 1-7 come from the hand, 8-10 from the reserve (RULES 4.5)
LONG_TRICKS = 6  # tricks 1-6 have four cards


def odd_tricks_needed(bid: int, denomination: str) -> int:
    """ceil(bid / value): the odd tricks a bid undertakes in a denomination (RULES 4.4)."""
    return -(-bid // TRICK_VALUE[denomination])


def slam_kind(bid: int, denomination: str) -> Literal["small", "grand"] | None:
    """A bid exactly worth a small or grand slam in ``denomination`` (RULES 4.3)."""
    value = TRICK_VALUE[denomination]
    if bid == value * SMALL:
        return "small"
    if bid == value * GRAND:
        return "grand"
    return None


def allowed_denominations(bid: int, slam_only: bool) -> list[Denomination]:
    """Where a bid may be played: at most five odd tricks, and a slam where it must be."""
    return [
        d
        for d in DENOMINATIONS
        if odd_tricks_needed(bid, d) <= MAX_ODD and (not slam_only or slam_kind(bid, d))
    ]


def trump_of(denomination: str | None) -> str | None:
    """The trump suit; no-trump and nullo have none (RULES 4.5)."""
    return denomination if denomination in ("C", "D", "H", "S") else None


def trick_size(number: int) -> int:
    return 4 if number <= LONG_TRICKS else 2


def from_reserve(number: int) -> bool:
    return number > HAND_TRICKS


def legal_plays(cards: Sequence[str], led: str | None) -> list[str]:
    """Follow the suit led when able, from the cards in play; else anything (RULES 4.5)."""
    if led is None:
        return list(cards)
    followers = [c for c in cards if suit(c) == suit(led)]
    return followers or list(cards)


def power_in_trick(card: str, trump: str | None, led: str) -> int:
    """The highest trump, else the highest card of the suit led (RULES 4.5)."""
    if suit(card) == trump:
        return 100 + POWER[rank(card)]
    return POWER[rank(card)] if suit(card) == led else 0


def trick_winner(plays: Sequence[tuple[int, str]], trump: str | None) -> int:
    """The seat that wins ``plays`` (seat, card) with ``trump`` (None: no trumps)."""
    led = suit(plays[0][1])
    return tricks.trick_winner(plays, lambda card: power_in_trick(card, trump, led))


# --- honours (RULES 4.7) ----------------------------------------------------------------

RUN_POINTS = {4: 15, 5: 30, 6: 45, 7: 60, 8: 75}
SET_POINTS = {3: 30, 4: 40}


def longest_run(cards: Sequence[str], trump: str) -> int:
    """The longest run of trumps consecutive in rank, from any card (not only the ace)."""
    held = {rank(c) for c in cards if suit(c) == trump}
    best = run = 0
    for r in ORDER:
        run = run + 1 if r in held else 0
        best = max(best, run)
    return best


def honours(
    cards: Sequence[str], denomination: str
) -> tuple[Literal["run", "aces", "sevens"], int, int] | None:
    """``(kind, count, points)`` of the honours in one player's 16 cards, or None."""
    trump = trump_of(denomination)
    if trump is not None:
        run = longest_run(cards, trump)
        return ("run", run, RUN_POINTS[run]) if run in RUN_POINTS else None
    wanted = "A" if denomination == "NT" else "7"
    count = sum(rank(c) == wanted for c in cards)
    if count not in SET_POINTS:
        return None
    return ("aces" if wanted == "A" else "sevens", count, SET_POINTS[count])
