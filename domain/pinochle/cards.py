"""The pinochle pack, card order and card points, and who may play what (RULES 3.1, 3.2,
3.5, 3A.6)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from domain.cards import pinochle_pack, rank, suit

PACK = pinochle_pack()
ORDER = "9JQKTA"  # lowest first: A > T > K > Q > J > 9 in every suit (RULES 3.1)
DRAW_ORDER = ORDER  # the lowest card deals (RULES 0.4)
RANK_POWER = {r: i for i, r in enumerate(ORDER)}
CARD_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0}
LAST_TRICK = 10
DEAL_POINTS = 250  # every card point in the pack plus the last trick (RULES 3.2)
SUIT_ORDER = "SHCD"  # how hands are shown: spades, hearts, clubs, diamonds


CARD_VALUE = {card: CARD_POINTS[rank(card)] for card in PACK}


def points(cards: Iterable[str]) -> int:
    return sum(map(CARD_VALUE.__getitem__, cards))


def sort_key(card: str) -> tuple[int, int]:
    return SUIT_ORDER.index(suit(card)), -RANK_POWER[rank(card)]


def sorted_cards(cards: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(cards, key=sort_key))


def power_in_trick(card: str, trump: str, led: str) -> int:
    """Trumps above the suit led, everything else below both (RULES 0.7)."""
    if suit(card) == trump:
        return 20 + RANK_POWER[rank(card)]
    if suit(card) == led:
        return 10 + RANK_POWER[rank(card)]
    return 0


def legal_plays(
    hand: Sequence[str],
    trick: Sequence[str],
    trump: str,
    must_head_plain: bool = False,
    must_overtrump: bool = False,
) -> list[str]:
    """The distinct cards of ``hand`` that may go to ``trick`` (cards in play order).

    Follow suit if able; if void, trump if able; on a trump lead beat every trump already
    in the trick if able. With ``must_head_plain`` a follower of a plain lead must also
    beat the best card of that suit, unless the trick is already trumped [decision: a
    plain card cannot beat a trump, so "beat the highest card" asks nothing then]. With
    ``must_overtrump`` a player who trumps must beat a trump already in the trick if able.
    """
    distinct = list(dict.fromkeys(hand))  # hands are kept sorted
    if not trick:
        return distinct
    led = suit(trick[0])
    followers = [c for c in distinct if suit(c) == led]
    if followers:
        if led == trump or (must_head_plain and not any(suit(c) == trump for c in trick)):
            return _heading(followers, trick, led)
        return followers
    trumps = [c for c in distinct if suit(c) == trump]
    if trumps and must_overtrump and any(suit(c) == trump for c in trick):
        return _heading(trumps, trick, trump)
    return trumps or distinct


def _heading(cards: list[str], trick: Sequence[str], wanted: str) -> list[str]:
    """Those of ``cards`` (all of suit ``wanted``) that beat every ``wanted`` card in the
    trick — all of them if none does. Of two identical cards the first wins (3.1)."""
    best = max(RANK_POWER[rank(c)] for c in trick if suit(c) == wanted)
    heading = [c for c in cards if RANK_POWER[rank(c)] > best]
    return heading or cards
