"""The computer player of Auction Forty-Five (RULES 1).

Bidding counts the tricks a hand should take in its best trump suit, plus what a partner
and the exchange are worth; the exchange keeps trumps and plain kings; the play wins a
trick as cheaply as it can, never overtakes a partner who holds it, throws its least
card when the trick is lost, and leads its master trumps to draw the others' trumps.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, cast

from domain.cards import standard_pack, suit
from domain.commands import (
    Bid,
    CardChoice,
    Hold,
    NameTrump,
    Pass,
    Play,
    PlayerCommand,
)
from domain.computer.moves import (
    SeatSeen,
    best_index,
    bids,
    cheapest,
    of_type,
    playable,
    ready,
    seen_cards,
    unseen,
)
from domain.fortyfive import rules
from domain.protocol import View

SUITS = "CDHS"
PACK = standard_pack()

# RULES 1.3, as the game ranks the cards (highest scores most).
is_trump = rules.is_trump
TRUMP_RANK = rules.TRUMP_RANKING
PLAIN_RANK = rules.PLAIN_RANKING
TRUMPS = {t: sorted(ranks, key=ranks.__getitem__, reverse=True) for t, ranks in TRUMP_RANK.items()}
# Tricks a trump is worth by its place in the order (5, J, AH, A, K, Q, then the rest).
TRUMP_TRICKS = (1.0, 0.95, 0.85, 0.75, 0.6, 0.5)
LOW_TRUMP_TRICKS = 0.3
PLAIN_KING_TRICKS = 0.25
PARTNER_TRICKS = 1.2  # what a partner adds, on average, after his own exchange
DRAW_TRICKS = 0.12  # what each card thrown away brings back from the stock
BID_MARGIN = 0.0  # points of a hand's estimate kept in hand against bad luck
OPENING_TRICKS = 1.0  # a hand that takes no trick by itself leaves the bidding to others
SLAM_TRICKS = 4.0  # a hand this strong (with partner) should take every trick: bid 30


class FortyFiveSeen(SeatSeen, Protocol):
    """The fields of a Forty-Five seat view this player reads, besides every player's."""

    high_bid: int | None
    high_bidder: int | None
    trump: str | None


def cost(card: str, trump: str) -> int:
    """What parting with a card gives up: trumps above every plain card, by rank."""
    if is_trump(card, trump):
        return 100 + TRUMP_RANK[trump][card]
    return PLAIN_RANK[suit(card)][card]


# --- the auction ---------------------------------------------------------------------


def hand_tricks(hand: Sequence[str], trump: str) -> float:
    """The tricks ``hand`` should take with ``trump``, the exchange included."""
    tricks = 0.0
    thrown = 0
    for card in hand:
        if is_trump(card, trump):
            place = TRUMPS[trump].index(card)
            tricks += TRUMP_TRICKS[place] if place < len(TRUMP_TRICKS) else LOW_TRUMP_TRICKS
        elif card[0] == "K":
            tricks += PLAIN_KING_TRICKS
        else:
            thrown += 1
    return tricks + thrown * DRAW_TRICKS


def best_trump(hand: Sequence[str]) -> str:
    return max(SUITS, key=lambda t: hand_tricks(hand, t))


def worth(hand: Sequence[str]) -> float:
    """The points a partnership led by this hand should take (of 30): 0 for a hand too
    weak to lead the partnership's play, 60 for one that should bid 30 at once."""
    trump = best_trump(hand)
    own = hand_tricks(hand, trump)
    if own < OPENING_TRICKS:
        return 0.0
    tricks = own + PARTNER_TRICKS
    if tricks >= SLAM_TRICKS and "5" + trump in hand:
        return 60  # 30 bid and made scores 60, where 30 taken on a lower bid scores 30
    bonus = 5 if "5" + trump in hand or ("J" + trump in hand and "AH" in hand) else 2.5
    return 5 * min(5.0, tricks) + bonus


def auction(seen: FortyFiveSeen, hand: list[str]) -> PlayerCommand:
    actions = seen.legal_actions
    ceiling = worth(hand) - BID_MARGIN
    high = seen.high_bid or 0
    assert seen.you is not None
    partner_high = seen.high_bidder is not None and seen.high_bidder % 2 == seen.you % 2
    if of_type(actions, Hold) and not partner_high and high <= ceiling:
        return Hold()  # the dealer takes an opponent's bid he can make, at no extra cost
    amounts = [a for a in bids(actions) if a <= ceiling]
    if amounts and ceiling >= 60:
        return Bid(amount=amounts[-1])  # straight to 30
    # Outbidding a partner only when this hand is clearly the stronger one.
    if amounts and (not partner_high or amounts[0] + 5 <= ceiling):
        return Bid(amount=amounts[0])
    return Pass()


# --- the exchange --------------------------------------------------------------------


def discard(hand: Sequence[str], trump: str) -> list[str]:
    """Throw every plain card but the kings: a fresh card is a trump one time in four."""
    return [c for c in hand if not is_trump(c, trump) and c[0] != "K"]


# --- the play ------------------------------------------------------------------------


def masters(hand: Sequence[str], trump: str, seen: Sequence[str]) -> list[str]:
    """The trumps of ``hand`` that no unseen trump beats."""
    out = [c for c in unseen(PACK, seen) if is_trump(c, trump)]
    top = max((TRUMP_RANK[trump][c] for c in out), default=0)
    return [c for c in hand if is_trump(c, trump) and TRUMP_RANK[trump][c] > top]


def lead(seen: FortyFiveSeen, hand: list[str], cards: list[str], trump: str) -> str:
    visible = seen_cards(hand, seen.trick, seen.last_trick)
    trumps = [c for c in cards if is_trump(c, trump)]
    outstanding = any(is_trump(c, trump) for c in unseen(PACK, visible))
    top = masters(cards, trump, visible)
    if top and outstanding:
        return max(top, key=lambda c: TRUMP_RANK[trump][c])  # draw the others' trumps
    if len(trumps) >= 2 and trumps != cards:
        # Two trumps or more: lead the best, so the others' trumps fall while my plain
        # cards wait (on a trump lead everyone with an unprotected trump must trump).
        return max(trumps, key=lambda c: TRUMP_RANK[trump][c])
    kings = [c for c in cards if c[0] == "K" and not is_trump(c, trump)]
    if kings:
        return kings[0]
    plain = [c for c in cards if not is_trump(c, trump)]
    return cheapest(plain or cards, lambda c: cost(c, trump))


def follow(seen: FortyFiveSeen, hand: list[str], cards: list[str], trump: str) -> str:
    assert seen.trick is not None and seen.you is not None
    played = list(seen.trick.cards)
    led = rules.led_suit(played[0].card, trump)

    def strength(card: str) -> int:
        return rules.power_in_trick(card, trump, led)

    best = played[best_index([p.card for p in played], strength)]
    last = len(played) == 3
    partner = (seen.you + 2) % 4
    if best.seat == partner:
        return cheapest(cards, lambda c: cost(c, trump))  # never overtake a partner
    winners = [c for c in cards if strength(c) > strength(best.card)]
    if not winners:
        return cheapest(cards, lambda c: cost(c, trump))
    if last:
        return cheapest(winners, lambda c: cost(c, trump))
    # Players follow: a master trump is sure; a plain winner is cheap and worth a try.
    visible = seen_cards(hand, seen.trick, seen.last_trick)
    sure = masters(winners, trump, visible)
    plain = [c for c in winners if not is_trump(c, trump)]
    return cheapest(sure or plain or winners, lambda c: cost(c, trump))


def choose(view: View) -> PlayerCommand:
    seen = cast(FortyFiveSeen, view)
    hand = list(seen.hand or ())
    actions = seen.legal_actions
    match view.phase:
        case "auction":
            return auction(seen, hand)
        case "trump":
            return NameTrump(suit=best_trump(hand))
        case "exchange":
            named = seen.trump
            assert named is not None

            def pick(choice: CardChoice) -> list[str]:
                return discard(choice.from_, named)[: choice.max]

            return ready(actions[0], pick)
    trump = seen.trump
    assert trump is not None
    cards = playable(actions)
    if seen.trick is None or not seen.trick.cards:
        return Play(card=lead(seen, hand, cards, trump))
    return Play(card=follow(seen, hand, cards, trump))
