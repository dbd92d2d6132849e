"""The first-dealer draw (RULES 0.4): one card face up to each seat still drawing, decided
and folded alike in every game; a tie draws again."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import TypeVar

import msgspec
from msgspec.structs import replace

from domain.cards import rank
from domain.commands import SupplyDeck
from domain.events import DealerDrawn

DRAW_ORDER = "AKQJT98765432"
"""Ranks best first when the highest card deals, aces high (Forty-Five, Pitch); Reserve
Bridge passes its short pack's order and the Pinochle games theirs, lowest first."""

S = TypeVar("S", bound=msgspec.Struct)


def draw_cards(drawing: Sequence[int], deck: Sequence[str], seats: int) -> list[str | None]:
    """One card from the top of ``deck`` to each drawing seat, in seat order."""
    cards: list[str | None] = [None] * seats
    for seat, card in zip(drawing, deck, strict=False):
        cards[seat] = card
    return cards


def best_drawers(cards: Sequence[str | None], order: str) -> tuple[int, ...]:
    """Seats whose card comes first in ``order`` (ranks, best first); more than one is a tie.

    Forty-Five, Pitch and Reserve Bridge pass ranks highest first (A high); the Pinochle
    games lowest first (``9JQKTA``), since there the lowest card deals.
    """
    ranked = {seat: order.index(rank(c)) for seat, c in enumerate(cards) if c is not None}
    best = min(ranked.values())
    return tuple(seat for seat, r in ranked.items() if r == best)


def dealer_drawn(
    drawing: Sequence[int], command: SupplyDeck, seats: int, order: str
) -> DealerDrawn:
    """The draw from the supplied deck: the single best card in ``order`` deals; a tie
    leaves ``dealer`` empty and the tied seats draw again."""
    cards = draw_cards(drawing, command.deck, seats)
    best = best_drawers(cards, order)
    return DealerDrawn(
        shuffle=command.shuffle,
        commitment=command.commitment,
        cards=cards,
        dealer=best[0] if len(best) == 1 else None,
    )


def after_draw(state: S, event: DealerDrawn, order: str, deal_phase: StrEnum) -> S:
    """The tied seats draw again; otherwise the table waits for its first deal.

    ``state`` is any game's state with ``drawing``, ``dealer`` and ``phase`` fields."""
    if event.dealer is None:
        return replace(state, drawing=best_drawers(event.cards, order))
    return replace(state, phase=deal_phase, dealer=event.dealer, drawing=())


def before_first_deal(state: S, seats: int, first_dealer: int | None, phases: type[StrEnum]) -> S:
    """A new table: the operator's ``first_dealer`` deals first, or else every seat draws
    for dealer (RULES 0.4). ``phases`` is the game's phase enum, whose ``draw`` and
    ``deal`` phases every game has (``GameRules.chance`` answers in them)."""
    if first_dealer is None:
        return replace(state, phase=phases("draw"), drawing=tuple(range(seats)))
    return replace(state, phase=phases("deal"), dealer=first_dealer)
