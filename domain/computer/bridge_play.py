"""Card play for the Reserve Bridge computer player (RULES 4.5).

Tricks 1-6 hold four cards, two from each player (leader, other, leader, other), so the
player's first card of a four-card trick is a probe and the second is the answer: as the
second player it plays low first and decides with its last card, when it sees all three;
as leader it leads a master card (drawing trumps first in a suit contract) and then
either throws its least card under a trick it already holds or wins as cheaply as it
can. In nullo both players want to lose tricks (the declarer to make his contract, the
defender to break it), so the same positions duck under the best card instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from domain.bridge import rules
from domain.cards import piquet_pack, suit
from domain.computer.moves import TrickSeen, best_index, cards_of, cheapest, dearest, unseen

PACK = piquet_pack()
RANK = {r: i for i, r in enumerate("789TJQKA")}  # A high (RULES 4.1)


class Seat:
    """One seat's reading of the table: its cards in play, the trick and the unseen cards.

    Every card is dealt (16 each of 32), so an unseen card is in the other player's hand
    or reserve — or was played before the last trick, which the view no longer shows.
    """

    def __init__(
        self,
        cards: Sequence[str],
        trump: str | None,
        nullo: bool,
        trick: TrickSeen | None,
        last: TrickSeen | None,
        size: int,
    ) -> None:
        self.trump, self.nullo, self.size = trump, nullo, size
        self.played = cards_of(trick)
        self.seats = [p.seat for p in trick.cards] if trick is not None else []
        self.out = unseen(PACK, [*cards, *self.played, *cards_of(last)])

    def master(self, card: str) -> bool:
        """No unseen card beats it: none higher in its suit, nor a trump over a plain card."""
        higher = any(suit(c) == suit(card) and RANK[c[0]] > RANK[card[0]] for c in self.out)
        ruff = self.trump is not None and suit(card) != self.trump
        return not higher and not (ruff and any(suit(c) == self.trump for c in self.out))

    def cost(self, card: str) -> int:
        """What throwing a card gives up: trumps and masters win later tricks."""
        value = RANK[card[0]]
        if suit(card) == self.trump:
            value += 40
        if self.master(card):
            value += 20
        return value


def choose(seat: Seat, me: int, cards: list[str], hand: Sequence[str]) -> str:
    if seat.nullo:
        return _duck(seat, me, cards)
    if not seat.played:
        return _lead(seat, cards, hand)
    return _follow(seat, me, cards)


def _lead(seat: Seat, cards: list[str], hand: Sequence[str]) -> str:
    trump = seat.trump
    trumps = [c for c in cards if suit(c) == trump]
    trumps_out = any(suit(c) == trump for c in seat.out)
    masters = [c for c in trumps if seat.master(c)]
    if masters and trumps_out:
        return dearest(masters, lambda c: RANK[c[0]])  # draw the other's trumps first
    sure = [c for c in cards if seat.master(c)]
    if sure:
        return dearest(sure, lambda c: RANK[c[0]])
    plain = [c for c in cards if suit(c) != trump] or cards
    # Low from the longest plain suit: it costs least and sets up the suit's high cards.
    longest = max({suit(c) for c in plain}, key=lambda s: (sum(suit(c) == s for c in hand), s))
    return cheapest([c for c in plain if suit(c) == longest], seat.cost)


def _follow(seat: Seat, me: int, cards: list[str]) -> str:
    led = suit(seat.played[0])

    def strength(card: str) -> int:
        return rules.power_in_trick(card, seat.trump, led)

    at = best_index(seat.played, strength)
    best, holder = seat.played[at], seat.seats[at]
    last = len(seat.played) == seat.size - 1
    winners = [c for c in cards if strength(c) > strength(best)]
    if last:
        return cheapest(winners, strength) if winners else cheapest(cards, seat.cost)
    if len(seat.played) == 1 and seat.size == 4:
        return cheapest(cards, seat.cost)  # the second player: low now, decide last
    # The leader's second card (four-card trick), or a follower with players after him.
    if holder == me:
        if not _beatable(seat, best, led):
            return cheapest(cards, seat.cost)
        backers = [c for c in cards if seat.master(c) and strength(c) > strength(best)]
        return cheapest(backers, strength) if backers else cheapest(cards, seat.cost)
    sure = [c for c in winners if seat.master(c)]
    if sure:
        return cheapest(sure, strength)
    return cheapest(winners, strength) if winners else cheapest(cards, seat.cost)


def _beatable(seat: Seat, best: str, led: str) -> bool:
    """Some unseen card would beat ``best`` in this trick."""
    power = partial(rules.power_in_trick, trump=seat.trump, led=led)
    return any(power(c) > power(best) for c in seat.out)


def _duck(seat: Seat, me: int, cards: list[str]) -> str:
    """Nullo: stay under the best card with the highest card that does; when the trick is
    mine whatever happens, throw the highest card (it is a danger later)."""
    if not seat.played:
        return cheapest(cards, lambda c: RANK[c[0]])
    led = suit(seat.played[0])

    def strength(card: str) -> int:
        return rules.power_in_trick(card, None, led)

    at = best_index(seat.played, strength)
    best, holder = seat.played[at], seat.seats[at]
    under = [c for c in cards if strength(c) < strength(best)]
    if holder == me or not under:
        # The trick is (or will be) mine anyway: get rid of the highest card I can.
        return dearest(cards, lambda c: RANK[c[0]])
    return dearest(under, lambda c: (strength(c), RANK[c[0]]))
