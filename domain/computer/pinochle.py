"""The computer player of the Pinochle games (RULES 3).

Bidding values a hand as its melds plus the card points it should take, in its best
trump, plus what the widow is likely to add; it bids the least it may while that value
covers the bid. The soloist names the trump of most value over his 18 cards, claims the
best melds, buries off-suit points (never a trump while it can help it, never an ace)
preferring burials that empty a short suit, and concedes a contract he cannot make
(where the game allows). The play is :mod:`domain.computer.pinochle_play`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import Protocol, cast

from domain.cards import pinochle_pack, suit
from domain.commands import (
    Bid,
    BuryChoice,
    CardChoice,
    Concede,
    ExchangeDix,
    Meld,
    MeldClaim,
    MeldOffer,
    NameTrump,
    Pass,
    Play,
    PlayerCommand,
    TakeWidow,
)
from domain.computer import pinochle_play
from domain.computer.moves import SeatSeen, bids, of_type, playable, ready, unseen
from domain.pinochle import melds as pinochle_melds
from domain.protocol import View

SUITS = "SHCD"
PACK = pinochle_pack()
POINTS = pinochle_play.POINTS
BURY = 3
# RULES 3.3: melds and their points, as the game scores them.
RANK_NAMES = {"A": "aces", "K": "kings", "Q": "queens", "J": "jacks"}
MELD_POINTS = pinochle_melds.POINTS
AROUNDS = {rank: MELD_POINTS[f"{name}_around"] for rank, name in RANK_NAMES.items()}

# Card points a card should bring in, by rank, as trump and as the first / second of a
# plain suit's rank (a second ace only wins once the first is gone).
TRUMP_TAKES = {"A": 20, "T": 16, "K": 12, "Q": 10, "J": 9, "9": 8}
LONG_TRUMP = 8  # each trump beyond five: it wins once the others are out of trumps
ACE_TAKES = (18, 10)
TEN_BEHIND_ACE = 8
BASE_TAKES = 20  # scraps and the odd last trick a weak hand still takes
MARGIN = {"pinochle": 30, "pinochle-widow": 0}  # the value kept back from the bid
CONCEDE_BELOW = 40  # concede when the count falls this far short of the bid


class PinochleSeen(SeatSeen, Protocol):
    """The fields of a Pinochle seat view this player reads, besides every player's."""

    active: list[int]
    high_bid: int | None
    soloist: int | None
    trump: str | None
    melds: list[list[MeldClaim] | None]
    buried: list[str] | None


# --- valuing a hand --------------------------------------------------------------------


def meld_points(hand: Iterable[str], trump: str) -> int:
    """The best claim's worth (RULES 3.3): flushes first, every other meld as often as
    the cards allow."""
    count = Counter(hand)
    pairs = min(count["K" + trump], count["Q" + trump])
    flushes = min(pairs, *(count[r + trump] for r in "ATJ"))
    total = 150 * flushes + 40 * (pairs - flushes) + 10 * count["9" + trump]
    total += sum(20 * min(count["K" + s], count["Q" + s]) for s in SUITS if s != trump)
    total += sum(v * min(count[r + s] for s in SUITS) for r, v in AROUNDS.items())
    return total + 40 * min(count["QS"], count["JD"])


def takes(hand: Iterable[str], trump: str) -> int:
    """The card points ``hand`` should take in play with ``trump``."""
    count = Counter(hand)
    total = BASE_TAKES
    trumps = sum(n for c, n in count.items() if suit(c) == trump)
    total += sum(TRUMP_TAKES[c[0]] * n for c, n in count.items() if suit(c) == trump)
    total += LONG_TRUMP * max(0, trumps - 5)
    for s in SUITS:
        if s != trump:
            aces = count["A" + s]
            total += sum(ACE_TAKES[:aces])
            total += TEN_BEHIND_ACE * min(aces, count["T" + s])
    return total


def value(hand: Sequence[str], trump: str) -> int:
    return meld_points(hand, trump) + takes(hand, trump)


def best_trump(hand: Sequence[str]) -> str:
    return max(SUITS, key=lambda t: value(hand, t))


def widow_gain(hand: Sequence[str]) -> float:
    """What three widow cards should add: three times the average gain of one unseen card
    (each distinct card once, weighted by the copies unseen)."""
    base = max(value(hand, t) for t in SUITS)
    out = Counter(unseen(PACK, hand))
    gained = sum(n * (max(value([*hand, c], t) for t in SUITS) - base) for c, n in out.items())
    return BURY * gained / sum(out.values())


# --- the auction, the widow and the soloist's preparation ------------------------------


def auction(seen: PinochleSeen, hand: list[str], game: str) -> PlayerCommand:
    amounts = bids(seen.legal_actions)
    if not of_type(seen.legal_actions, Pass):
        return Bid(amount=amounts[0])  # a compulsory opening
    worth = max(value(hand, t) for t in SUITS) + widow_gain(hand) - MARGIN[game]
    if amounts and amounts[0] <= worth:
        return Bid(amount=amounts[0])
    return Pass()


def claim_leaving(claim: list[MeldClaim], cards: int, free: int) -> list[MeldClaim]:
    """``claim`` less its cheapest melds until ``free`` of ``cards`` are left to bury
    (a sub-claim of a legal claim is legal); the order of the claim is kept."""
    kept = list(claim)
    while kept and cards - sum(pinochle_melds.exposure(kept).values()) < free:
        cheapest = min(range(len(kept)), key=lambda i: (MELD_POINTS[kept[i].kind], -i))
        del kept[cheapest]
    return kept


def bury_score(cards: Sequence[str], rest: Sequence[str], trump: str) -> float:
    """Points buried count for the soloist; an emptied suit lets him trump it."""
    score = 0.0
    for card in cards:
        score += POINTS[card[0]]
        if suit(card) == trump:
            score -= 40
        if card[0] == "A":
            score -= 25
    emptied = {suit(c) for c in cards} - {suit(c) for c in rest}
    return score + 12 * len(emptied - {trump})


def burial(choice: CardChoice, hand: Sequence[str], trump: str) -> list[str]:
    offered = list(choice.from_)
    best: tuple[float, list[str]] | None = None
    # dict, not set: a set's order follows string hashes, which differ between processes,
    # and the first of equal burials must be the same one every time.
    for picked in dict.fromkeys(combinations(sorted(offered), BURY)):
        rest = list(hand)
        for card in picked:
            rest.remove(card)
        score = bury_score(picked, rest, trump)
        if best is None or score > best[0]:
            best = (score, list(picked))
    assert best is not None
    return best[1]


def prepare(seen: PinochleSeen, hand: list[str], seat: int, game: str) -> PlayerCommand:
    """The soloist: trump, then melds, then the burial; then concede or lead."""
    actions = seen.legal_actions
    trump = seen.trump
    if trump is None:
        return NameTrump(suit=best_trump(hand))
    if seen.melds[seat] is None:
        offers = [o.melds for o in of_type(actions, MeldOffer) if isinstance(o.melds, list)]
        best = offers[0] if offers else []
        return Meld(melds=claim_leaving(list(best), len(hand), BURY))
    buried = seen.buried or []
    if len(buried) < BURY:
        choice = of_type(actions, BuryChoice)
        if not choice:  # the claim leaves too few cards to bury: claim less
            claim = list(seen.melds[seat] or [])
            return Meld(melds=claim_leaving(claim, len(hand), BURY))
        return ready(choice[0], lambda c: burial(c, hand, trump))
    count = sum(MELD_POINTS[m.kind] for m in seen.melds[seat] or [])
    count += sum(POINTS[c[0]] for c in buried) + takes(hand, trump)
    if of_type(actions, Concede) and count < (seen.high_bid or 0) - CONCEDE_BELOW:
        return Concede()  # a single bete costs half of a played and lost one
    return Play(card=play_card(seen, hand, playable(actions), trump, seat, game))


# --- the play --------------------------------------------------------------------------


def play_card(
    seen: PinochleSeen, hand: list[str], cards: list[str], trump: str, seat: int, game: str
) -> str:
    soloist = seen.soloist
    # In 3A the two opponents win or lose together against the soloist; in every other
    # game each scores for himself, so nobody is anybody's friend.
    friends: frozenset[int] = frozenset()
    if game == "pinochle" and soloist is not None and seat != soloist:
        friends = frozenset(s for s in seen.active if s not in (seat, soloist))
    known = list(seen.buried or []) if seat == soloist else []
    table = pinochle_play.Table(
        hand, trump, seen.trick, seen.last_trick, len(seen.active), friends, known
    )
    if not table.played:
        return pinochle_play.lead(table, cards, seat == soloist)
    return pinochle_play.follow(table, cards)


def choose(view: View, game: str) -> PlayerCommand:
    seen = cast(PinochleSeen, view)
    hand = list(seen.hand or ())
    seat = seen.you
    assert seat is not None
    actions = seen.legal_actions
    match view.phase:
        case "auction":
            return auction(seen, hand, game)
        case "widow":
            # A compulsory opener left at the minimum: conceding unseen costs one chip to
            # the kitty, a contract played and lost twice the schedule from every seat.
            worth = max(value(hand, t) for t in SUITS) + widow_gain(hand)
            taking = worth >= (seen.high_bid or 0) - CONCEDE_BELOW or not of_type(actions, Concede)
            return TakeWidow() if taking else Concede()
        case "prepare":
            return prepare(seen, hand, seat, game)
        case "dix":
            # The nine for the turned-up card: ten points and a better trump.
            return ExchangeDix() if of_type(actions, ExchangeDix) else Pass()
        case "meld":
            offers = [o.melds for o in of_type(actions, MeldOffer) if isinstance(o.melds, list)]
            return Meld(melds=offers[0] if offers else [])
    trump = seen.trump
    assert trump is not None
    return Play(card=play_card(seen, hand, playable(actions), trump, seat, game))
