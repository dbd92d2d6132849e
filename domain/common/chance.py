"""The chance steps as every game decides them: the first-dealer draw, or a deal in packets.

The service answers a game's :class:`~domain.protocol.Chance` with a
:class:`~domain.commands.SupplyDeck`; :func:`decide_chance` is the part of each game's
``decide`` that takes it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from domain.commands import SupplyDeck
from domain.common.draw import dealer_drawn
from domain.common.tricks import clockwise_from, left_of
from domain.common.turns import require_system
from domain.errors import RuleCode, RuleError
from domain.events import CardsDealt, Event
from domain.protocol import Actor


class Drawing(Protocol):
    """What :func:`decide_chance` reads of a game's state."""

    @property
    def phase(self) -> str: ...

    @property
    def drawing(self) -> tuple[int, ...]: ...


S = TypeVar("S", bound=Drawing)


class Dealing(Protocol):
    """What :func:`deal_packets` reads of a game's state."""

    @property
    def deal(self) -> int: ...

    @property
    def dealer(self) -> int | None: ...


def decide_chance(
    state: S,
    command: SupplyDeck,
    actor: Actor,
    seats: int,
    order: str,
    deal: Callable[[S, SupplyDeck], list[Event]],
) -> list[Event]:
    """The dealer draw (the best card in ``order`` deals) or the game's ``deal``."""
    require_system(actor)
    if state.phase == "draw":
        return [dealer_drawn(state.drawing, command, seats, order)]
    if state.phase == "deal":
        return deal(state, command)
    raise RuleError(RuleCode.NOT_ALLOWED_NOW, f"no deck is needed in the {state.phase} phase")


def deal_packets(
    command: SupplyDeck,
    state: Dealing,
    *,
    seats: int,
    packets: Sequence[int],
    order: Sequence[int] | None = None,
    widow: int = 0,
) -> CardsDealt:
    """The table's next deal, by its dealer, from the top of the deck (RULES 0.3): in round
    ``i``, ``packets[i]`` cards to each seat from the dealer's left (or to each of ``order``,
    the seats dealt in), and after the first round ``widow`` cards aside (RULES 3A.2).

    ``rest`` is every card left out of the hands, the widow first; None when there is none.
    """
    dealer = state.dealer
    assert dealer is not None
    if order is None:
        order = clockwise_from(left_of(dealer, seats), seats)
    hands: list[list[str]] = [[] for _ in range(seats)]
    deck = iter(command.deck)
    aside: list[str] = []
    for round_no, size in enumerate(packets):
        for seat in order:
            hands[seat].extend(next(deck) for _ in range(size))
        if round_no == 0:
            aside = [next(deck) for _ in range(widow)]
    rest = [*aside, *deck]
    return CardsDealt(
        deal=state.deal + 1,
        dealer=dealer,
        shuffle=command.shuffle,
        commitment=command.commitment,
        hands=list(hands),
        rest=rest or None,
    )
