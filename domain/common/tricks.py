"""What the trick-taking games share: seats clockwise, a card played to a trick, and who
wins and leads a trick."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar, cast

import msgspec
from msgspec.structs import replace

from domain.cards import remove_from
from domain.common.structs import CompletedTrick, P, PlayedCard
from domain.events import Event, TrickWon


def left_of(seat: int, seats: int, steps: int = 1) -> int:
    """The seat ``steps`` places clockwise of ``seat`` (RULES 0.2)."""
    return (seat + steps) % seats


def clockwise_from(seat: int, seats: int) -> list[int]:
    """Every seat once, starting with ``seat`` and going clockwise."""
    return [(seat + i) % seats for i in range(seats)]


def trick_winner(plays: Sequence[tuple[int, str]], power: Callable[[str], int]) -> int:
    """The seat whose card has the greatest ``power``; the first played wins a tie.

    ``power`` ranks a card within this trick (trumps above the suit led, every other
    card at or below zero), so RULES 0.7 and the games' variations are one call.
    """
    best_seat, best_power = plays[0][0], power(plays[0][1])
    for seat, card in plays[1:]:
        p = power(card)
        if p > best_power:
            best_seat, best_power = seat, p
    return best_seat


def trick_won(trick: Sequence[PlayedCard], number: int, power: Callable[[str], int]) -> TrickWon:
    """The ``trick_won`` event for a full ``trick``, the deal's ``number``-th: its winner by
    :func:`trick_winner` and its cards in the order played."""
    plays = [(p.seat, p.card) for p in trick]
    return TrickWon(seat=trick_winner(plays, power), trick=number, cards=[c for _, c in plays])


def trick_leader(trick: Sequence[P], tricks: Sequence[CompletedTrick[P]]) -> int | None:
    """Who led the trick in play, or else won the last trick and so leads the next; None
    before a deal's first lead, which each game gives to a seat of its own choosing."""
    if trick:
        return trick[0].seat
    if tricks:
        return tricks[-1].winner
    return None


class InPlay(Protocol):
    """What :func:`trick_taken` reads of a game's state."""

    @property
    def trick(self) -> tuple[PlayedCard, ...]: ...

    @property
    def tricks(self) -> tuple[CompletedTrick[Any], ...]: ...


class Holding(InPlay, Protocol):
    """What :func:`card_played` reads of a game's state."""

    @property
    def hands(self) -> tuple[tuple[str, ...], ...]: ...


S = TypeVar("S", bound=msgspec.Struct)


def card_played(state: S, played: PlayedCard, turn: int | None) -> S:
    """The fold of ``card_played`` from a hand: the card leaves its seat's hand and joins
    the trick in play, and ``turn`` plays next. ``state`` is any game's state with
    ``hands``, ``trick`` and ``turn`` fields (:class:`Holding`)."""
    held = cast(Holding, state)
    hands = remove_from(held.hands, played.seat, [played.card])
    return replace(state, hands=hands, trick=(*held.trick, played), turn=turn)


def trick_taken(state: S, winner: int) -> S:
    """The fold of ``trick_won``: the trick in play joins the deal's tricks as ``winner``'s,
    and ``winner`` leads the next. ``state`` is any game's state with ``trick``,
    ``tricks`` and ``turn`` fields (:class:`InPlay`)."""
    played = cast(InPlay, state)
    done = CompletedTrick(leader=played.trick[0].seat, winner=winner, cards=played.trick)
    return replace(state, trick=(), tricks=(*played.tricks, done), turn=winner)


T = TypeVar("T", bound=InPlay)


def trick_closed(
    state: T,
    number: int,
    power: Callable[[str], int],
    evolve: Callable[[T, Event], T],
    score_deal: Callable[[T], list[Event]],
    tricks: int,
) -> list[Event]:
    """What follows the card that fills a trick: its ``trick_won`` (the deal's
    ``number``-th, by ``power``), and after the deal's last of ``tricks`` its scoring."""
    won = trick_won(state.trick, number, power)
    state = evolve(state, won)
    if len(state.tricks) == tricks:
        return [won, *score_deal(state)]
    return [won]
