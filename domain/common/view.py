"""What every game's view and redaction share: each audience sees its own cards (RULES 0.6)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypedDict, TypeVar

from msgspec.structs import replace

from domain.cards import Card
from domain.commands import LegalAction
from domain.common.structs import CompletedTrick
from domain.events import CardsDealt
from domain.protocol import Audience, Game, ViewHeader


class SeatFields(TypedDict):
    """The fields of :class:`~domain.protocol.View` that every game fills alike."""

    phase: str
    dealer: int | None
    to_act: list[int]
    hand: list[Card] | None
    hands: list[list[Card]] | None
    legal_actions: list[LegalAction]
    deal: int


class Dealt(Protocol):
    """What :func:`seat_fields` reads of a game's state."""

    @property
    def phase(self) -> str: ...

    @property
    def dealer(self) -> int | None: ...

    @property
    def deal(self) -> int: ...

    @property
    def hands(self) -> tuple[tuple[str, ...], ...]: ...


S = TypeVar("S", bound=Dealt)


def seat_fields(game: Game[S], state: S, audience: Audience, header: ViewHeader) -> SeatFields:
    """Until every seat is taken the phase shows as ``waiting`` and nobody acts; then it is
    the game's, also once the table has ended (a table resigned, forfeited or aborted in
    play stops in the phase it was in). A seat sees its own hand and legal actions, the
    operator every hand."""
    seat = audience if isinstance(audience, int) else None
    playing = header.status == "playing"
    seated = all(info.name is not None for info in header.seats)
    return SeatFields(
        phase=str(state.phase) if seated else "waiting",
        dealer=state.dealer,
        to_act=game.to_act(state) if playing else [],
        hand=list(state.hands[seat]) if seat is not None else None,
        hands=[list(h) for h in state.hands] if audience == "operator" else None,
        legal_actions=(
            game.legal_actions(state, seat)
            if seat is not None and playing and not header.paused
            else []
        ),
        deal=state.deal,
    )


def own_hand_only(
    hands: Sequence[list[Card] | None], audience: Audience
) -> list[list[Card] | None]:
    """Dealt hands as ``audience`` may see them: every hand but its own hidden."""
    return [hand if seat == audience else None for seat, hand in enumerate(hands)]


def redact_deal(event: CardsDealt, audience: Audience) -> CardsDealt:
    """A deal as a seat or a spectator sees it: its own hand, and nothing of the rest."""
    return replace(event, hands=own_hand_only(event.hands, audience), rest=None)


T = TypeVar("T")


def last_trick(view: Callable[..., T], tricks: Sequence[CompletedTrick[Any]]) -> T | None:
    """The deal's last trick won, in the game's trick ``view`` (``leader``, ``winner``,
    ``cards``); None before the first."""
    if not tricks:
        return None
    last = tricks[-1]
    return view(leader=last.leader, winner=last.winner, cards=list(last.cards))


def tricks_won(
    tricks: Sequence[CompletedTrick[Any]], units: int, unit_of: Callable[[int], int] | None = None
) -> list[int]:
    """How many of the deal's tricks each of ``units`` has won: seats, or the side
    ``unit_of`` a winning seat."""
    won = [0] * units
    for trick in tricks:
        won[trick.winner if unit_of is None else unit_of(trick.winner)] += 1
    return won
