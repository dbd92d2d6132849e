"""What every computer player shares: the view fields it reads, and legal actions as ready
commands.

A computer player sees a table exactly as its seat does (``domain.table.view``): its own
cards, the public auction, the trick in progress and the last trick. The protocols here
name the few view fields the players rely on, so that they depend on the views' wire
contract (DESIGN 6) rather than on where each game keeps its view class.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, TypeVar

from domain.commands import (
    Bid,
    Bury,
    BuryChoice,
    CardChoice,
    Command,
    Exchange,
    ExchangeChoice,
    LegalAction,
    Play,
    PlayerCommand,
    Reserve,
    ReserveChoice,
)

A = TypeVar("A")


class Comparable(Protocol):
    def __lt__(self, other: Any, /) -> bool: ...


K = TypeVar("K", bound=Comparable)


class Played(Protocol):
    """One card of a trick, as every game's view shows it."""

    @property
    def seat(self) -> int: ...

    @property
    def card(self) -> str: ...


class TrickSeen(Protocol):
    """A trick in a view: who led and the cards so far, in play order."""

    @property
    def leader(self) -> int: ...

    @property
    def cards(self) -> Sequence[Played]: ...


class SeatSeen(Protocol):
    """What every player reads of its seat's view: its cards, the trick in progress and
    the last one, and its legal actions; each game's player names the fields it adds."""

    you: int | None
    hand: list[str] | None
    trick: TrickSeen | None
    last_trick: TrickSeen | None
    legal_actions: list[LegalAction]


def ready(action: LegalAction, pick: Callable[[CardChoice], list[str]]) -> PlayerCommand:
    """``action`` as a command ``decide`` accepts: card-set choices get ``pick``'s cards.

    ``pick`` must return between ``min`` and ``max`` cards of the choice's ``from`` list;
    :func:`check_pick` says whether it did. Meld offers are not card sets: the Pinochle
    player builds its ``meld`` command itself.
    """
    match action:
        case ExchangeChoice(discard=choice):
            return Exchange(discard=check_pick(choice, pick(choice)))
        case ReserveChoice(cards=choice):
            return Reserve(cards=check_pick(choice, pick(choice)))
        case BuryChoice(cards=choice):
            return Bury(cards=check_pick(choice, pick(choice)))
    # Every other legal action is a command as it stands (a choice is not a Command).
    assert isinstance(action, Command), f"{action!r} needs a choice made by its player"
    return action


def check_pick(choice: CardChoice, cards: list[str]) -> list[str]:
    """``cards`` unchanged when they are a legal pick of ``choice``; else AssertionError,
    since a refused command from the computer is a bug in the computer."""
    rest = list(choice.from_)
    for card in cards:
        assert card in rest, f"{card} is not on offer in {choice.from_}"
        rest.remove(card)
    assert choice.min <= len(cards) <= choice.max, (
        f"{len(cards)} cards, not {choice.min}..{choice.max}"
    )
    return cards


def of_type(actions: Iterable[LegalAction], kind: type[A]) -> list[A]:
    return [a for a in actions if isinstance(a, kind)]


def playable(actions: Iterable[LegalAction]) -> list[str]:
    """The cards the seat may play now, in the order the game offers them."""
    return [a.card for a in actions if isinstance(a, Play)]


def bids(actions: Iterable[LegalAction]) -> list[int]:
    return sorted(a.amount for a in actions if isinstance(a, Bid))


def cards_of(trick: TrickSeen | None) -> list[str]:
    return [] if trick is None else [p.card for p in trick.cards]


def seen_cards(hand: Sequence[str], *tricks: TrickSeen | None) -> list[str]:
    """Every card the seat can account for: its own and those face up on the table."""
    seen = list(hand)
    for trick in tricks:
        seen += cards_of(trick)
    return seen


def unseen(pack: Sequence[str], seen: Iterable[str]) -> list[str]:
    """The pack less ``seen`` (as multisets): the cards that may be in another hand.

    The views show only the trick in progress and the last one, so cards played earlier
    count as unseen; every judgement built on this errs on the side of caution.
    """
    rest = list(pack)
    for card in seen:
        if card in rest:
            rest.remove(card)
    return rest


def best_index(cards: Sequence[str], power: Callable[[str], int]) -> int:
    """The position of the card winning so far: the greatest power, the first on a tie."""
    best = 0
    for i, card in enumerate(cards[1:], start=1):
        if power(card) > power(cards[best]):
            best = i
    return best


def cheapest(cards: Iterable[str], cost: Callable[[str], K]) -> str:
    """The card of least ``cost``; ties go to the first offered, so choices are stable."""
    return min(cards, key=cost)


def dearest(cards: Iterable[str], cost: Callable[[str], K]) -> str:
    """The card of greatest ``cost``; ties go to the first offered."""
    return max(cards, key=cost)
