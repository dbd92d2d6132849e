"""The game protocol as every game implements it (DESIGN 3).

A game's rules are plain functions in its package (``decide``, ``evolve``, ``to_act``,
``actions_to_act``, …). Its ``game.py`` binds them as the protocol's methods on a subclass
of :class:`GameRules` — ``decide = staticmethod(decide)`` — rather than writing a method
that only forwards; Pinochle's rules take the game object itself (its hooks), so there the
methods pass ``self`` on. :class:`GameRules` answers what every game answers alike, and
lists legal actions only for the seats to act, from the game's ``actions_to_act``.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

from domain.commands import LegalAction
from domain.protocol import Chance, Game, chance_in


class Phased(Protocol):
    @property
    def phase(self) -> str: ...


S = TypeVar("S", bound=Phased)


class GameRules(Game[S]):
    """Chance steps in the ``draw`` and ``deal`` phases, the end in ``finished``, scores
    per seat unless a game scores partnerships, and every seat dealt in."""

    def legal_actions(self, state: S, seat: int) -> list[LegalAction]:
        """Nothing for a seat that is not to act; for one that is, :meth:`actions_to_act`."""
        if seat not in self.to_act(state):
            return []
        return self.actions_to_act(state, seat)

    def actions_to_act(self, state: S, seat: int) -> list[LegalAction]:
        """Exactly what ``decide`` accepts now from ``seat``, one of the seats to act."""
        # Pinochle lists its own legal actions: there the opponents may concede out of turn.
        raise NotImplementedError

    def chance(self, state: S) -> Chance | None:
        return chance_in(state.phase, self.pack)

    def finished(self, state: S) -> bool:
        return state.phase == "finished"

    def units(self, seats: int) -> list[tuple[int, ...]]:
        return [(seat,) for seat in range(seats)]

    def dealt_in(self, seats: int) -> int:
        return seats
