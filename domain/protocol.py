"""The one protocol every game implements (DESIGN 3).

A game is a decider: ``decide`` validates a command against the state and returns events
(or raises :class:`~domain.errors.RuleError`); ``evolve`` folds one event into the state
and never validates; ``legal_actions`` lists exactly what ``decide`` accepts; ``view`` is
the only way state leaves the domain. Chance steps (the dealer draw, each deal) are
explicit: ``chance`` says which pack the game is waiting for and the service answers with
a :class:`~domain.commands.SupplyDeck`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar, Literal, Protocol, TypeVar

import msgspec

from domain.cards import Card
from domain.commands import LegalAction, PlayerCommand, SupplyDeck
from domain.events import Event

Audience = int | Literal["spectator", "operator"]
"""Who looks: a seat number, any spectator, or the operator (who sees everything)."""

Actor = int | Literal["system"]
"""Who acts: a seat, or the service supplying a chance step."""

SYSTEM: Literal["system"] = "system"


class Chance(msgspec.Struct, frozen=True):
    """The game waits for a shuffled ``pack``: a dealer ``draw`` or the next ``deal``."""

    kind: Literal["draw", "deal"]
    pack: tuple[str, ...]


def chance_in(phase: str, pack: tuple[str, ...]) -> Chance | None:
    """What every game waits for: a deck in its ``draw`` and ``deal`` phases, and only there."""
    if phase == "draw":
        return Chance(kind="draw", pack=pack)
    if phase == "deal":
        return Chance(kind="deal", pack=pack)
    return None


class SeatInfo(msgspec.Struct, frozen=True):
    seat: int
    name: str | None
    computer: bool = False  # the computer plays this seat (DESIGN 10)
    absent: bool = False  # its player is away: the computer plays it meanwhile
    vacant: bool = False  # its player left: anybody may take the seat over


class ClockView(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A clocked table's settings and each seat's bank left, in seconds; while the table
    is paused, ``paused_left``: for each seat whose turn the pause stopped, the seconds
    it has left (its turn's time and its bank together, as it gets them back on resume),
    else ``null``; absent unless paused."""

    action_seconds: int
    bank_seconds: int
    on_timeout: Literal["autoplay", "forfeit"]
    bank: list[float]
    paused_left: list[float | None] | None = None


class Result(msgspec.Struct, frozen=True, kw_only=True):
    """How the table ended: ``played`` to the end, ``resigned``, ``forfeit`` (a clock
    expired), ``aborted`` by the operator, or on ``time`` (a timed tournament round: a
    draw when nobody is ahead); the seats that won and lost."""

    reason: Literal["played", "resigned", "forfeit", "aborted", "time"]
    winners: list[int]
    losers: list[int]


class View(msgspec.Struct, frozen=True, kw_only=True, tag_field="game"):
    """What one audience may see of a table. Each game adds its own fields and names its
    own ``options`` type."""

    id: str
    version: int
    status: Literal["waiting", "playing", "finished", "aborted", "expired"]
    phase: str
    seats: list[SeatInfo]
    you: int | None
    deadline: datetime | None
    clock: ClockView | None
    paused: bool
    result: Result | None
    dealer: int | None
    to_act: list[int]
    hand: list[Card] | None
    hands: list[list[Card]] | None
    legal_actions: list[LegalAction]
    deal: int
    scores: list[int]
    options: msgspec.Struct


class ViewHeader(msgspec.Struct, frozen=True, kw_only=True):
    """The table-level part of every view, filled in by :mod:`domain.table`."""

    id: str
    version: int
    status: Literal["waiting", "playing", "finished", "aborted", "expired"]
    seats: list[SeatInfo]
    you: int | None
    deadline: datetime | None = None
    clock: ClockView | None = None
    paused: bool = False
    result: Result | None = None
    options: msgspec.Struct  # every option in force, as :func:`domain.table.in_force`

    def fields(self) -> dict[str, Any]:
        return {f: getattr(self, f) for f in self.__struct_fields__}


S = TypeVar("S")


class Game(Protocol[S]):
    """A game's rules. Implementations are stateless; all state lives in ``S``."""

    id: ClassVar[str]
    min_seats: ClassVar[int]
    max_seats: ClassVar[int]
    pack: ClassVar[tuple[str, ...]]
    options_type: ClassVar[type[msgspec.Struct]]
    state_type: ClassVar[type[Any]]
    event_types: ClassVar[tuple[type[Event], ...]]
    view_type: ClassVar[type[View]]

    def initial_state(self, seats: int, options: Any, first_dealer: int | None) -> S: ...

    def under_engine(self, state: S, engine: str) -> S:
        """``state`` with the rules of rules engine ``engine`` (the table's) where a rule
        of the game changed with an engine. Applied to every state decoded from a snapshot
        too: a process of an older release, which knows nothing of a newer rule, may have
        written the snapshot and dropped it."""
        ...

    def chance(self, state: S) -> Chance | None: ...

    def decide(self, state: S, command: PlayerCommand | SupplyDeck, actor: Actor) -> list[Event]:
        """Validate ``command`` from ``actor``; the events it causes, or a RuleError."""
        ...

    def evolve(self, state: S, event: Event) -> S:
        """Fold one event. Total: events are facts and are never refused."""
        ...

    def to_act(self, state: S) -> list[int]: ...

    def legal_actions(self, state: S, seat: int) -> list[LegalAction]:
        """Exactly the commands ``decide`` accepts from ``seat`` now."""
        ...

    def finished(self, state: S) -> bool: ...

    def units(self, seats: int) -> list[tuple[int, ...]]:
        """The seats behind each entry of ``scores`` (views, ``hand_scored``, ``game_won``):
        one partnership each, or one seat each."""
        ...

    def dealt_in(self, seats: int) -> int:
        """How many of ``seats`` are dealt cards each deal; the others sit that deal out."""
        ...

    def view(self, state: S, audience: Audience, header: ViewHeader) -> View: ...

    def redact(self, event: Event, audience: Audience) -> Event:
        """``event`` as a seat or a spectator may see it: hidden cards become ``None``.

        The operator sees everything; ``domain.table.redact`` answers for the operator
        and never asks the game."""
        ...
