"""Card play for the Pinochle computer player (RULES 3.1, 3A.6).

A card wins a trick only by being strictly stronger than the best so far (of two
identical cards the first played wins), so "master" here means no unseen card of its
suit ranks above it. The player cashes master aces, as soloist draws trumps with master
trumps, wins a trick as cheaply as it can when it must, gives points ("smears") to a
co-defender who already holds the trick, and otherwise throws its least-valued card.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.cards import suit
from domain.computer.moves import TrickSeen, best_index, cards_of, cheapest, dearest, unseen
from domain.pinochle import cards as pinochle_cards

PACK = pinochle_cards.PACK
RANK = pinochle_cards.RANK_POWER  # A > T > K > Q > J > 9 (RULES 3.1)
POINTS = pinochle_cards.CARD_POINTS  # RULES 3.2


def points(card: str) -> int:
    return POINTS[card[0]]


class Table:
    """One seat's reading of the trick in play: what it sees and who sides with whom."""

    def __init__(
        self,
        hand: Sequence[str],
        trump: str,
        trick: TrickSeen | None,
        last: TrickSeen | None,
        players: int,
        friends: frozenset[int],
        known: Sequence[str] = (),
    ) -> None:
        self.hand, self.trump, self.players, self.friends = list(hand), trump, players, friends
        self.trick = trick
        self.played = cards_of(trick)
        self.seats = [p.seat for p in trick.cards] if trick is not None else []
        self.out = unseen(PACK, [*hand, *self.played, *cards_of(last), *known])

    def higher_out(self, card: str) -> bool:
        """Some unseen card of the same suit ranks above ``card``."""
        return any(suit(c) == suit(card) and RANK[c[0]] > RANK[card[0]] for c in self.out)

    def master(self, card: str) -> bool:
        return not self.higher_out(card)

    def trumps_out(self) -> int:
        return sum(1 for c in self.out if suit(c) == self.trump)

    def keep_value(self, card: str) -> float:
        """What a card is worth keeping: trumps and masters win tricks later."""
        value = points(card) * 0.5
        if suit(card) == self.trump:
            value += 15 + RANK[card[0]] * 2
        if self.master(card):
            value += 12
        return value


def lead(table: Table, cards: list[str], soloist: bool) -> str:
    trump = table.trump
    trumps = [c for c in cards if suit(c) == trump]
    plain = [c for c in cards if suit(c) != trump]
    master_trumps = [c for c in trumps if table.master(c)]
    if soloist and master_trumps and table.trumps_out() and len(trumps) >= table.trumps_out() / 2:
        return dearest(master_trumps, lambda c: RANK[c[0]])  # draw trumps before the aces
    cashable = [c for c in plain if table.master(c)]  # aces, or tens once both aces are out
    if cashable:
        # The master of the longest plain suit: the others are least likely to be void.
        return max(cashable, key=lambda c: (sum(suit(x) == suit(c) for x in cards), RANK[c[0]]))
    if master_trumps and table.trumps_out():
        return dearest(master_trumps, lambda c: RANK[c[0]])
    if soloist and len(trumps) > table.trumps_out() and plain:
        # Long in trumps: lead a low one to drive out theirs before leading side suits.
        return cheapest(trumps, lambda c: RANK[c[0]])
    return cheapest(plain or cards, table.keep_value)


def follow(table: Table, cards: list[str]) -> str:
    trump = table.trump
    led = suit(table.played[0])

    def strength(card: str) -> int:
        return pinochle_cards.power_in_trick(card, trump, led)

    best_at = best_index(table.played, strength)
    best, holder = table.played[best_at], table.seats[best_at]
    after = table.players - len(table.played) - 1  # seats still to play after me
    winners = [c for c in cards if strength(c) > strength(best)]
    trumped = suit(best) == trump and led != trump
    if holder in table.friends:
        # A co-defender holds the trick: smear points if it will hold, never overtake.
        safe = after == 0 or (table.master(best) and (suit(best) == trump or not trumped))
        if safe:
            smears = [c for c in cards if suit(c) != trump and not table.master(c)]
            return dearest(smears or cards, lambda c: points(c) - table.keep_value(c) * 0.2)
        return cheapest(cards, table.keep_value)
    if winners:
        if after == 0:
            return cheapest(winners, lambda c: (strength(c), -points(c)))
        sure = [c for c in winners if table.master(c) and (suit(c) == trump or not trumped)]
        if sure:
            # A master plain card is trumped only by a seat void in the suit: worth it.
            return dearest(sure, lambda c: (points(c), -strength(c)))
    return cheapest(cards, lambda c: points(c) + table.keep_value(c))
