"""The records every game keeps of its auction and its tricks, in its state and its views.

They are stored: the ``table_state`` snapshot encodes the state field by field, so the
fields here and their order are as fixed as an event's. They are also published: the API
names each game's records after the game (``FortyFiveCall``, ``PitchPlayedCard``, … in
api_spec/openapi.json) and lists only that game's calls, so each game derives a named
subclass and the fields are defined here once.
"""

from __future__ import annotations

from typing import Generic, TypeVar

import msgspec


class Call(msgspec.Struct, frozen=True):
    """One auction call; ``amount`` is None for a pass. A game narrows ``call`` to its own."""

    seat: int
    call: str
    amount: int | None = None


class PlayedCard(msgspec.Struct, frozen=True):
    seat: int
    card: str


P = TypeVar("P", bound=PlayedCard)


class CompletedTrick(msgspec.Struct, Generic[P], frozen=True):
    """A trick once won, its cards in the order played; generic so that a game's tricks
    hold that game's named ``PlayedCard`` (state only: views show a game's trick view)."""

    leader: int
    winner: int
    cards: tuple[P, ...]
