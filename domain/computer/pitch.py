"""The computer player of Auction Pitch (RULES 2).

Bidding adds up the chance of each of the four points in the hand's best suit: High and
Low from how many higher (lower) trumps the other hands may have been dealt, Jack from
holding it with guards, Game from trump length and point cards. The play leads master
trumps to pull the others' trumps (and the Jack with them), wins tricks that hold points
as cheaply as it can, keeps its Jack out of tricks it would lose, and throws cards worth
nothing when the trick is lost.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial
from typing import Protocol, cast

from domain.cards import RANKS, standard_pack, suit
from domain.commands import Bid, Hold, Pass, Play, PlayerCommand
from domain.computer.moves import (
    SeatSeen,
    best_index,
    bids,
    cards_of,
    cheapest,
    of_type,
    playable,
    seen_cards,
    unseen,
)
from domain.pitch import rules
from domain.protocol import View

SUITS = "CDHS"
PACK = standard_pack()
HAND = rules.HAND_SIZE
POWER = {r: i for i, r in enumerate(RANKS, start=2)}  # A high (RULES 2.1)
GAME_POINTS = rules.GAME_VALUE  # RULES 2.3
JACK_WORTH = 30  # the Jack is a whole point: worth far more than any card's game points
SMUDGE = rules.SMUDGE
BID_SLACK = 0.5  # bid when the expected points reach the bid less this
TRUMP_FOR = 4  # game points (an ace, say) worth a trump when the trick may yet be lost
SMUDGE_POINTS = 3.5  # a smudge fails unless all four points come: bid it on near-certainty


class PitchSeen(SeatSeen, Protocol):
    """The fields of a Pitch seat view this player reads, besides every player's."""

    hand_sizes: list[int]
    high_bid: int | None
    trump: str | None


def power(card: str) -> int:
    return POWER[card[0]]


def game_points(card: str) -> int:
    return GAME_POINTS.get(card[0], 0)


# --- the auction ---------------------------------------------------------------------


def none_dealt(higher: int, players: int) -> float:
    """The chance that none of ``higher`` given unseen cards is in another player's hand."""
    unknown = len(PACK) - HAND
    others = HAND * (players - 1)
    chance = 1.0
    for i in range(higher):
        chance *= max(0, unknown - others - i) / (unknown - i)
    return chance


def expected_points(hand: Sequence[str], trump: str, players: int) -> float:
    """High, Low, Jack and Game (RULES 2.3), each weighed by its chance, for ``trump``."""
    trumps = sorted((c for c in hand if suit(c) == trump), key=power)
    if not trumps:
        return 0.0
    high = none_dealt(14 - power(trumps[-1]), players)  # ranks above my best
    low = none_dealt(power(trumps[0]) - 2, players)  # ranks below my lowest
    guards = sum(1 for c in trumps if c[0] in "AKQ")
    if "J" + trump in hand:
        jack = min(0.95, 0.5 + 0.15 * guards + 0.05 * len(trumps))
    else:
        jack = 0.2 * guards * (HAND * (players - 1)) / (len(PACK) - HAND)
    count = len(trumps) + sum(1 for c in hand if c[0] in "AT" and suit(c) != trump)
    game = min(0.85, (0.1 + 0.13 * count) * math.sqrt(2 / players))
    return high + low + jack + game


def best_suit(hand: Sequence[str], players: int) -> str:
    return max(SUITS, key=lambda s: expected_points(hand, s, players))


def auction(seen: PitchSeen, hand: list[str]) -> PlayerCommand:
    actions = seen.legal_actions
    players = len(seen.hand_sizes)
    expected = expected_points(hand, best_suit(hand, players), players)
    high = seen.high_bid or 0
    if of_type(actions, Hold) and high <= expected + BID_SLACK:
        return Hold()  # the dealer takes the contract at no extra risk
    amounts = bids(actions)
    affordable = [
        a
        for a in amounts
        if a <= expected + BID_SLACK and (a < SMUDGE or expected >= SMUDGE_POINTS)
    ]
    if affordable:
        # One call each (RULES 2.4): bid the hand's full worth now or never.
        return Bid(amount=affordable[-1])
    if not of_type(actions, Pass):
        return Bid(amount=amounts[0])  # a stuck dealer must bid
    return Pass()


# --- the play ------------------------------------------------------------------------


def keep_value(card: str, trump: str) -> int:
    """What a card is worth keeping: the Jack most, then trumps by rank, then points."""
    value = game_points(card)
    if suit(card) == trump:
        value += 20 + power(card) + (JACK_WORTH if card[0] == "J" else 0)
    return value


def win_cost(card: str, trump: str) -> int:
    """What winning with a card costs: its strength, less the points it banks for me."""
    banked = game_points(card) + (JACK_WORTH if card == "J" + trump else 0)
    return (20 + power(card) if suit(card) == trump else power(card)) - banked


def is_master(card: str, trump: str, visible: Sequence[str]) -> bool:
    """A trump no unseen trump beats (a plain card can always be trumped at will)."""
    if suit(card) != trump:
        return False
    return all(power(c) < power(card) for c in unseen(PACK, visible) if suit(c) == trump)


def first_lead(hand: list[str], players: int) -> str:
    """The pitch: the best suit's top trump, unless that is an unguarded Jack."""
    trump = best_suit(hand, players)
    trumps = sorted((c for c in hand if suit(c) == trump), key=power)
    if trumps[-1][0] == "J" and len(trumps) > 1:
        return trumps[0]
    return trumps[-1]


def lead(hand: list[str], cards: list[str], trump: str, visible: list[str]) -> str:
    trumps = [c for c in cards if suit(c) == trump]
    out = [c for c in unseen(PACK, visible) if suit(c) == trump]
    masters = [c for c in trumps if is_master(c, trump, visible)]
    if masters and out:
        return max(masters, key=power)  # draw the trumps, and maybe the Jack
    aces = [c for c in cards if c[0] == "A" and suit(c) != trump]
    if aces:
        return aces[0]
    plain = [c for c in cards if suit(c) != trump]
    return cheapest(plain or cards, lambda c: keep_value(c, trump))


def follow(seen: PitchSeen, hand: list[str], cards: list[str], trump: str) -> str:
    assert seen.trick is not None
    played = cards_of(seen.trick)
    led = suit(played[0])
    in_trick = partial(rules.power_in_trick, trump=trump, led=led)
    best = played[best_index(played, in_trick)]
    value = sum(map(game_points, played)) + (JACK_WORTH if "J" + trump in played else 0)
    last = len(played) == len(seen.hand_sizes) - 1
    visible = seen_cards(hand, seen.trick, seen.last_trick)
    winners = [c for c in cards if in_trick(c) > in_trick(best)]
    sure = winners if last else [c for c in winners if is_master(c, trump, visible)]
    # A sure win is taken when it brings points, costs no trump, or is the last word
    # (winning also means leading next); a master trump is not spent on an empty trick.
    if sure and (value > 0 or any(suit(c) != trump for c in sure) or last):
        return cheapest(sure, lambda c: win_cost(c, trump))
    if winners and value >= TRUMP_FOR:  # worth a gamble with a trump other than the Jack
        trumping = [c for c in winners if suit(c) == trump and c[0] != "J"]
        if trumping:
            return cheapest(trumping, lambda c: win_cost(c, trump))
    return cheapest(cards, lambda c: keep_value(c, trump))


def choose(view: View) -> PlayerCommand:
    seen = cast(PitchSeen, view)
    hand = list(seen.hand or ())
    if view.phase == "auction":
        return auction(seen, hand)
    cards = playable(seen.legal_actions)
    trump = seen.trump
    if trump is None:
        return Play(card=first_lead(hand, len(seen.hand_sizes)))
    if seen.trick is None or not seen.trick.cards:
        visible = seen_cards(hand, seen.last_trick)
        return Play(card=lead(hand, cards, trump, visible))
    return Play(card=follow(seen, hand, cards, trump))
