"""The game protocol as every game implements it (DESIGN 3).

A game's rules are plain functions in its package (``decide``, ``evolve``, ``to_act``,
``actions_to_act``). Its ``game.py`` gives them once, as :class:`Rules`, to its
:class:`PlainGame` subclass, which answers the protocol's methods with them; mypy checks
them against the protocol's signatures there. Pinochle's rules take the game object itself
(its hooks), so there the methods are the game's own and pass ``self`` on.
:class:`GameRules` answers what every game answers alike.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from domain.commands import LegalAction, PlayerCommand, SupplyDeck
from domain.events import Event
from domain.protocol import Actor, Chance, Game, chance_in


class Phased(Protocol):
    @property
    def phase(self) -> str: ...


S = TypeVar("S", bound=Phased)


class GameRules(Game[S]):
    """Chance steps in the ``draw`` and ``deal`` phases, the end in ``finished``, scores
    per seat unless a game scores partnerships, and every seat dealt in."""

    def chance(self, state: S) -> Chance | None:
        return chance_in(state.phase, self.pack)

    def finished(self, state: S) -> bool:
        return state.phase == "finished"

    def units(self, seats: int) -> list[tuple[int, ...]]:
        return [(seat,) for seat in range(seats)]

    def dealt_in(self, seats: int) -> int:
        return seats

    def under_engine(self, state: S, engine: str) -> S:
        return state  # no rule of the game has changed with an engine


T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Rules(Generic[T]):
    """A game's rules as the functions of its package, each of the state alone."""

    decide: Callable[[T, PlayerCommand | SupplyDeck, Actor], list[Event]]
    evolve: Callable[[T, Event], T]
    to_act: Callable[[T], list[int]]
    actions_to_act: Callable[[T, int], list[LegalAction]]
    """Exactly what ``decide`` accepts now from a seat to act."""


class PlainGame(GameRules[S]):
    """A game whose :class:`Rules` are functions of the state alone: Forty-Five, Pitch and
    Reserve Bridge. No seat but those to act has a legal action."""

    def __init__(self, rules: Rules[S]) -> None:
        self.rules = rules

    def decide(self, state: S, command: PlayerCommand | SupplyDeck, actor: Actor) -> list[Event]:
        return self.rules.decide(state, command, actor)

    def evolve(self, state: S, event: Event) -> S:
        return self.rules.evolve(state, event)

    def to_act(self, state: S) -> list[int]:
        return self.rules.to_act(state)

    def legal_actions(self, state: S, seat: int) -> list[LegalAction]:
        if seat not in self.rules.to_act(state):
            return []
        return self.rules.actions_to_act(state, seat)
