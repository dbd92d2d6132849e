"""The computer player of Reserve Bridge (RULES 4).

The whole pack is dealt, 16 cards each, so a hand's worth in a denomination is measured
against the other player's: each card has a trick value (trumps most, then aces, kings);
the cards not yet dealt are shared out in proportion, and the expected tricks are five
plus the difference in value, scaled so that holding every card would take all ten.
The auction bids the most it expects to make, with a margin that narrows as more cards
arrive; the declarer names the denomination of widest margin; the defender contras a
contract it expects to break by two tricks. The reserve keeps the three strongest cards
(three sure late tricks in a suit contract), or the three lowest in nullo. The play is
:mod:`domain.computer.bridge_play`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, cast

from domain.bridge import rules
from domain.cards import piquet_pack, suit
from domain.commands import (
    Accept,
    Bid,
    CardChoice,
    Contra,
    Declare,
    Pass,
    Play,
    PlayerCommand,
    Recontra,
    Stand,
)
from domain.computer import bridge_play
from domain.computer.moves import SeatSeen, TrickSeen, bids, of_type, playable, ready, unseen
from domain.protocol import View

PACK = piquet_pack()
SUITS = "CDHS"
DENOMINATIONS: tuple[str, ...] = rules.DENOMINATIONS
SLAM_BIDS = rules.SLAM_BIDS

# Trick values of single cards by rank, highest first: A K Q J T 9 8 7.
TRUMP_VALUE = dict(zip("AKQJT987", (1.0, 0.9, 0.75, 0.6, 0.5, 0.45, 0.4, 0.4), strict=True))
SIDE_VALUE = dict(zip("AKQJT987", (0.9, 0.55, 0.3, 0.15, 0.05, 0.05, 0.05, 0.05), strict=True))
NT_VALUE = dict(zip("AKQJT987", (1.0, 0.65, 0.4, 0.2, 0.1, 0.0, 0.0, 0.0), strict=True))
# In nullo a card's "value" is its danger of taking a trick.
NULLO_DANGER = dict(zip("AKQJT987", (1.0, 0.8, 0.6, 0.4, 0.25, 0.12, 0.05, 0.0), strict=True))
# Tricks per share of the pack's value above half. Measured over seeded deals: a linear
# share (5) underrates a long trump suit, whose low cards win once trumps are drawn.
SPREAD = {"C": 8.5, "D": 8.5, "H": 8.5, "S": 8.5, "NT": 8.0, "NULLO": 8.0}
NULLO_MARGIN = 1.0  # one bad card sinks a nullo: it needs more room than a trick contract
# The estimate runs some 0.65 trick below what a declarer takes (he names the denomination
# that suits his hand best), so a bid 0.3 trick above it still keeps a third in hand. The
# cards still to come are already in the estimate, as their expected share.
MARGIN = -0.3
CONTRA_MARGIN = 2.0
RECONTRA_MARGIN = 2.0
CHANGE_MARGIN = 1.0


class ContractSeen(Protocol):
    amount: int
    denomination: str | None
    odd_tricks: int | None


class BridgeTrickSeen(TrickSeen, Protocol):
    """A Reserve Bridge trick: four cards or two, from the hands or the reserves."""

    @property
    def size(self) -> int: ...

    @property
    def source(self) -> str: ...


class BridgeSeen(SeatSeen, Protocol):
    """The fields of a Reserve Bridge seat view this player reads, besides every player's."""

    reserve: list[str] | None
    contract: ContractSeen | None
    trick: BridgeTrickSeen | None


# --- valuing a hand --------------------------------------------------------------------


def card_value(card: str, denomination: str) -> float:
    if denomination == "NULLO":
        return NULLO_DANGER[card[0]]
    if denomination == "NT":
        return NT_VALUE[card[0]]
    return (TRUMP_VALUE if suit(card) == denomination else SIDE_VALUE)[card[0]]


WHOLE = {d: sum(card_value(c, d) for c in PACK) for d in DENOMINATIONS}


def tricks(hand: Sequence[str], denomination: str) -> float:
    """The tricks ``hand`` should take in ``denomination`` (in nullo: the tricks it cannot
    help taking)."""
    out = unseen(PACK, hand)
    mine = sum(card_value(c, denomination) for c in hand)
    # The unseen cards: 16 - n are still to come to me, 16 to the other player.
    theirs_share = sum(card_value(c, denomination) for c in out) * len(hand) / len(out)
    whole = WHOLE[denomination]
    return min(10.0, max(0.0, 5 + SPREAD[denomination] * (mine - theirs_share) / whole))


def odd_tricks(hand: Sequence[str], denomination: str) -> float:
    """Expected odd tricks of a contract in ``denomination`` (nullo: tricks under five)."""
    taken = tricks(hand, denomination)
    return 5 - taken if denomination == "NULLO" else taken - 5


def safe_odd(hand: Sequence[str], denomination: str) -> int:
    margin = MARGIN + (NULLO_MARGIN if denomination == "NULLO" else 0)
    return max(0, min(5, int(odd_tricks(hand, denomination) - margin)))


def affordable(amount: int, safe: dict[str, int]) -> bool:
    """Some denomination makes ``amount`` with room to spare (``safe``: odd tricks per
    denomination); a slam-sized amount only where it is that slam, since a slam bid over
    a cap must be played as one."""
    for d in DENOMINATIONS:
        needed = rules.odd_tricks_needed(amount, d)
        if needed <= safe[d] and (amount not in SLAM_BIDS or rules.slam_kind(amount, d)):
            return True
    return False


# --- the auction and the contract --------------------------------------------------------


def auction(seen: BridgeSeen, hand: list[str]) -> PlayerCommand:
    actions = seen.legal_actions
    safe = {d: safe_odd(hand, d) for d in DENOMINATIONS}
    amounts = [a for a in bids(actions) if affordable(a, safe)]
    if of_type(actions, Stand):
        # The other player has passed: the contract is mine; raise only to what I make.
        return Bid(amount=amounts[-1]) if amounts else Stand()
    if amounts:
        return Bid(amount=amounts[-1])
    return Pass()


def margin(hand: Sequence[str], denomination: str, amount: int) -> float:
    needed = rules.odd_tricks_needed(amount, denomination)
    risk = NULLO_MARGIN if denomination == "NULLO" else 0.0
    return odd_tricks(hand, denomination) - needed - risk


def declare(seen: BridgeSeen, hand: list[str]) -> PlayerCommand:
    contract = seen.contract
    assert contract is not None
    options = [a.denomination for a in of_type(seen.legal_actions, Declare)]
    best = max(options, key=lambda d: margin(hand, d, contract.amount))
    return Declare(denomination=best)


def contra(seen: BridgeSeen, hand: list[str]) -> PlayerCommand:
    """Contra when the declarer should fall short by ``CONTRA_MARGIN`` tricks: my tricks
    in his denomination are the ones he does not take."""
    contract = seen.contract
    assert contract is not None and contract.denomination is not None
    d, needed = contract.denomination, contract.odd_tricks or 0
    mine = tricks(hand, d)
    # How far he should fall short: in nullo, the tricks he takes beyond what he may.
    short = (10 - mine) - (5 - needed) if d == "NULLO" else (5 + needed) - (10 - mine)
    return Contra() if short >= CONTRA_MARGIN and of_type(seen.legal_actions, Contra) else Accept()


def recontra(seen: BridgeSeen, hand: list[str]) -> PlayerCommand:
    contract = seen.contract
    assert contract is not None and contract.denomination is not None
    now = margin(hand, contract.denomination, contract.amount)
    if now >= RECONTRA_MARGIN:
        return Recontra()
    changes = [a.denomination for a in of_type(seen.legal_actions, Declare)]
    if changes:
        best = max(changes, key=lambda d: margin(hand, d, contract.amount))
        if margin(hand, best, contract.amount) >= now + CHANGE_MARGIN:
            return Declare(denomination=best)
    return Accept()


def reserve(choice: CardChoice, denomination: str) -> list[str]:
    """The three strongest cards (trumps first), or in nullo the three lowest."""
    cards = list(choice.from_)
    trump = denomination if denomination in SUITS else None

    def strength(card: str) -> tuple[bool, int]:
        return suit(card) == trump, bridge_play.RANK[card[0]]

    ordered = sorted(cards, key=strength, reverse=denomination != "NULLO")
    return ordered[: choice.min]


# --- the dispatch ----------------------------------------------------------------------


def choose(view: View) -> PlayerCommand:
    seen = cast(BridgeSeen, view)
    hand = list(seen.hand or ())
    match view.phase:
        case "auction":
            return auction(seen, hand)
        case "declare":
            return declare(seen, hand)
        case "contra":
            return contra(seen, hand)
        case "recontra":
            return recontra(seen, hand)
    contract = seen.contract
    assert contract is not None and contract.denomination is not None and seen.you is not None
    denomination = contract.denomination
    if view.phase == "reserve":
        return ready(seen.legal_actions[0], lambda c: reserve(c, denomination))
    trick = seen.trick
    assert trick is not None
    mine = [*hand, *(seen.reserve or [])]
    trump = denomination if denomination in SUITS else None
    nullo = denomination == "NULLO"
    table = bridge_play.Seat(mine, trump, nullo, trick, seen.last_trick, trick.size)
    cards = playable(seen.legal_actions)
    in_play = seen.reserve if trick.source == "reserve" else hand
    return Play(card=bridge_play.choose(table, seen.you, cards, in_play or cards))
