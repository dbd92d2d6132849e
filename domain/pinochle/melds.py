"""Melds: what a claim may contain and what it is worth (RULES 3.3, 3.4).

A card may serve in melds of different classes but never twice in one class, so a claim
is valid when, class by class, the cards of its melds (counted with their duplicates) are
all in the claimant's hand. The dix is a class of its own and counts only when claimed.

Within a class the only melds that compete for cards are the flush and the royal marriage
(both want the king and queen of trumps): every other meld can be taken as often as the
cards allow. So the best claim is unique — as many flushes as the hand makes, the rest of
the trump kings and queens as royal marriages, and every other meld as often as possible —
and every valid claim is a sub-claim of one of at most three *maximal* claims, one per
number of flushes. Those maximal claims are offered as choices (any pick is legal).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from domain.cards import holds_all, suit
from domain.commands import MeldClaim, MeldKind
from domain.errors import RuleCode, RuleError
from domain.pinochle.cards import SUIT_ORDER

POINTS: dict[str, int] = {
    "flush": 150,
    "royal_marriage": 40,
    "marriage": 20,
    "aces_around": 100,
    "kings_around": 80,
    "queens_around": 60,
    "jacks_around": 40,
    "pinochle": 40,
    "dix": 10,
}
MELD_CLASS: dict[str, str] = {
    "flush": "A",
    "royal_marriage": "A",
    "marriage": "A",
    "aces_around": "B",
    "kings_around": "B",
    "queens_around": "B",
    "jacks_around": "B",
    "pinochle": "C",
    "dix": "dix",
}
# RULES 3.4, option ``double_melds``: both copies of a meld claimed together score this
# instead of twice the single meld (points in the units of 3.3: aces around is 100).
DOUBLE_POINTS: dict[str, int] = {
    "flush": 1500,
    "aces_around": 1000,
    "kings_around": 800,
    "queens_around": 600,
    "jacks_around": 400,
    "pinochle": 300,
}
KIND_ORDER = tuple(POINTS)
AROUNDS: dict[MeldKind, str] = {
    "aces_around": "A",
    "kings_around": "K",
    "queens_around": "Q",
    "jacks_around": "J",
}
PINOCHLE = ("QS", "JD")


def make(kind: MeldKind, trump: str, plain: str | None = None) -> MeldClaim:
    """The canonical meld of ``kind`` (``plain`` names a marriage's suit)."""
    match kind:
        case "flush":
            cards = [r + trump for r in "ATKQJ"]
        case "royal_marriage":
            cards = ["K" + trump, "Q" + trump]
        case "marriage":
            assert plain is not None
            cards = ["K" + plain, "Q" + plain]
        case "pinochle":
            cards = list(PINOCHLE)
        case "dix":
            cards = ["9" + trump]
        case _:
            cards = [AROUNDS[kind] + s for s in SUIT_ORDER]
    return MeldClaim(kind=kind, cards=cards)


def canonical(meld: MeldClaim, trump: str) -> MeldClaim | None:
    """``meld`` with its cards in canonical order, or None if they do not make that kind."""
    plain = suit(meld.cards[0]) if meld.kind == "marriage" else None
    if plain == trump:
        return None
    wanted = make(meld.kind, trump, plain)
    if Counter(meld.cards) != Counter(wanted.cards):
        return None
    return wanted


def sort_claim(melds: Iterable[MeldClaim]) -> list[MeldClaim]:
    def key(m: MeldClaim) -> tuple[int, list[int]]:
        return KIND_ORDER.index(m.kind), [SUIT_ORDER.index(suit(c)) for c in m.cards]

    return sorted(melds, key=key)


def claim_points(melds: Iterable[MeldClaim], double_melds: bool = False) -> int:
    """What a valid claim scores; with ``double_melds`` a pair of one doubled kind scores
    its double value (a pack holds two copies of each card, so a claim has at most two)."""
    total = 0
    for kind, count in Counter(m.kind for m in melds).items():
        if double_melds and kind in DOUBLE_POINTS:
            doubles, count = divmod(count, 2)
            total += doubles * DOUBLE_POINTS[kind]
        total += count * POINTS[kind]
    return total


def exposure(melds: Iterable[MeldClaim]) -> Counter[str]:
    """The cards a claim shows, each copy once: per card, its most uses in any one class."""
    by_class: dict[str, Counter[str]] = {}
    for meld in melds:
        by_class.setdefault(MELD_CLASS[meld.kind], Counter()).update(meld.cards)
    shown: Counter[str] = Counter()
    for used in by_class.values():
        shown |= used
    return shown


def check_claim(
    melds: Sequence[MeldClaim], hand: Sequence[str], trump: str, barred_dix: int = 0
) -> list[MeldClaim]:
    """The claim in canonical form, or RuleError ``invalid-meld`` saying what is wrong.

    ``barred_dix`` copies of the nine of trumps may not be claimed as a dix (a dix
    already scored by exchange or turn-up, RULES 3.B).
    """
    fixed: list[MeldClaim] = []
    for meld in melds:
        shaped = canonical(meld, trump)
        if shaped is None:
            raise RuleError(
                RuleCode.INVALID_MELD,
                f"{' '.join(meld.cards)} is not a {meld.kind} with {trump} trumps",
                kind=meld.kind,
                cards=list(meld.cards),
            )
        fixed.append(shaped)
    by_class: dict[str, list[str]] = {}
    for meld in fixed:
        by_class.setdefault(MELD_CLASS[meld.kind], []).extend(meld.cards)
    for cls, cards in by_class.items():
        have = list(hand)
        if cls == "dix":
            for _ in range(barred_dix):
                if "9" + trump in have:
                    have.remove("9" + trump)
        if not holds_all(have, cards):
            raise RuleError(
                RuleCode.INVALID_MELD,
                f"the class {cls} melds use cards you do not hold (or one card twice)",
                cards=sorted(cards),
            )
    return sort_claim(fixed)


def _maximal_claims(hand: Sequence[str], trump: str, barred_dix: int) -> list[list[MeldClaim]]:
    count = Counter(hand)
    pairs = min(count["K" + trump], count["Q" + trump])
    flushes = min(pairs, *(count[r + trump] for r in "ATJ"))
    rest: list[MeldClaim] = []
    for plain in SUIT_ORDER:
        if plain != trump:
            rest += [make("marriage", trump, plain)] * min(count["K" + plain], count["Q" + plain])
    for kind, r in AROUNDS.items():
        rest += [make(kind, trump)] * min(count[r + s] for s in SUIT_ORDER)
    rest += [make("pinochle", trump)] * min(count[c] for c in PINOCHLE)
    rest += [make("dix", trump)] * max(0, count["9" + trump] - barred_dix)
    return [
        sort_claim(
            [make("flush", trump)] * f + [make("royal_marriage", trump)] * (pairs - f) + rest
        )
        for f in range(flushes, -1, -1)
    ]


def best_claim(hand: Sequence[str], trump: str, barred_dix: int = 0) -> list[MeldClaim]:
    """The claim worth the most: every meld as often as the cards allow, flushes first."""
    return _maximal_claims(hand, trump, barred_dix)[0]


def claim_choices(hand: Sequence[str], trump: str, barred_dix: int = 0) -> list[list[MeldClaim]]:
    """Maximal claims, best first; the valid claims are exactly their sub-multisets."""
    return [claim for claim in _maximal_claims(hand, trump, barred_dix) if claim]
