"""Invariants every game's seeded playouts check, whatever the game."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

import msgspec

from domain import table as tables
from domain.commands import LegalAction, PlayerCommand
from domain.errors import RuleError
from domain.events import Event, SeedRevealed, TableCreated
from domain.protocol import Audience
from domain.table import Table

if TYPE_CHECKING:
    from tests.support.playout import Playout

CARD_TEXT = re.compile(rb'"([2-9TJQKA][CDHS])"')
_encode = msgspec.json.encode


def cards_in(obj: Any) -> Counter[str]:
    """Every card code anywhere in ``obj`` (a struct, list or dict), with multiplicity."""
    return Counter(m.decode() for m in CARD_TEXT.findall(_encode(obj)))


def offered(command: PlayerCommand, actions: list[LegalAction]) -> bool:
    """True when ``command`` is one of ``actions`` or a valid pick of a card choice."""
    return _offered(msgspec.to_builtins(command), msgspec.to_builtins(actions))


def _offered(wanted: dict[str, Any], actions: list[dict[str, Any]]) -> bool:
    for action in actions:
        if action.keys() != wanted.keys():
            continue
        if all(_matches(wanted[k], v) for k, v in action.items()):
            return True
    return False


def _matches(value: Any, template: Any) -> bool:
    if isinstance(template, dict) and {"from", "min", "max"} <= template.keys():
        if not isinstance(value, list):
            return False
        picked = Counter(map(_item_key, value))
        return template["min"] <= len(value) <= template["max"] and not (
            picked - Counter(map(_item_key, template["from"]))
        )
    return bool(value == template)


def _item_key(item: Any) -> Any:
    """A hashable key for one pick of a choice. Picks may be structured (a meld is
    ``{"kind", "cards"}``); the order of the cards inside a pick does not matter, as the
    order of the picks themselves does not."""
    if isinstance(item, dict):
        return tuple(sorted((k, _item_key(v)) for k, v in item.items()))
    if isinstance(item, list):
        return tuple(sorted(map(_item_key, item)))
    return item


def check_decide_matches_legal_actions(
    table: Table[Any],
    candidates: list[PlayerCommand],
    rng: random.Random,
    seats: Iterable[int] | None = None,
) -> None:
    """Every offered action is accepted; every candidate not offered is refused.

    ``seats`` limits the check to some seats (by default every seat): long playouts may
    check the seats to act on every step and sample the idle ones.
    """
    for seat in range(len(table.names)) if seats is None else seats:
        actions = tables.legal_actions(table, seat)
        for action in actions:
            command = _sample_pick(action, rng)
            tables.decide(table, command, seat)  # raises if an offered action is refused
        templates = msgspec.to_builtins(actions)
        for command in candidates:
            accepted = _accepts(table, command, seat)
            assert accepted == _offered(msgspec.to_builtins(command), templates), (
                f"seat {seat}: decide {'accepts' if accepted else 'refuses'} {command!r}, "
                f"legal_actions {'omit' if accepted else 'offer'} it"
            )


def _accepts(table: Table[Any], command: PlayerCommand, seat: int) -> bool:
    try:
        tables.decide(table, command, seat)
    except RuleError:
        return False
    return True


def _sample_pick(action: LegalAction, rng: random.Random) -> PlayerCommand:
    from tests.support.playout import to_command

    return to_command(action, rng)


def check_replay(events: list[Event], table: Table[Any]) -> None:
    """Folding the stored events from scratch gives exactly the live state."""
    assert tables.fold(events) == table


def check_public_parts(event: Event, audience: Audience, game: Any) -> Event:
    """Table-level secrets never leave to a seat or spectator; the redacted event."""
    seen = tables.redact(game, event, audience)
    if audience != "operator":
        if isinstance(seen, SeedRevealed):
            assert seen.seed is None
        if isinstance(seen, TableCreated):
            assert seen.decks is None
    return seen


def audiences(table: Table[Any]) -> list[Audience]:
    return [*range(len(table.names)), "spectator"]


# The cards an event or view shows, as a game's knowledge counts them: with their copies,
# or as a set of card codes (text, or the JSON bytes a client receives).
Codes = TypeVar("Codes", Counter[str], set[str], set[bytes])


def unknown(shown: Codes, known: Codes) -> set[Any]:
    """The cards in ``shown`` that ``known`` lacks (a view may repeat a known card)."""
    if isinstance(known, Counter):
        return set(shown) - {card for card, count in known.items() if count > 0}
    return set(shown - known)


def assert_only_known(shown: Counter[str], known: Counter[str], what: str) -> None:
    """No card code in ``shown`` that ``known`` lacks (a view may repeat a known card)."""
    extra = unknown(shown, known)
    assert not extra, f"{what} shows cards its audience may not see: {sorted(extra)}"


class Learns(Protocol[Codes]):
    """What each audience has legitimately seen: ``tests.support.knowledge.Knowledge``, or a
    game's own (Pitch, Pinochle)."""

    known: dict[Audience, Codes]

    def learn(self, event: Event) -> Codes:
        """Update with ``event``; the cards public for this event alone (the dealer draw)."""
        ...


class LeakChecks(Generic[Codes]):
    """No audience of a playout sees a card it may not: not in any event, as redacted for
    it, nor in its view of the table.

    ``knowledge`` follows what each audience has seen; ``codes_in`` reads the cards an event
    or a view shows, in the form the knowledge keeps. Each event is checked once: call
    :meth:`check_new_events` after every change to the playout.
    """

    def __init__(
        self, playout: Playout, knowledge: Learns[Codes], codes_in: Callable[[Any], Codes]
    ) -> None:
        self.playout = playout
        self.knowledge: Learns[Codes] = knowledge
        self.codes_in: Callable[[Any], Codes] = codes_in
        self.checked = 0

    def check_new_events(
        self, also: Callable[[Event, Audience, Event, Codes], None] | None = None
    ) -> list[Event]:
        """Check the events added since the last call, and return them.

        For every audience the event's table-level secrets stay hidden and it shows only
        cards the audience knows, counting those the event itself makes public; ``also``,
        given the event, the audience, the event as redacted for it and the cards that
        shows, runs a game's own checks.
        """
        new = self.playout.events[self.checked :]
        game = self.playout.table.rules
        for event in new:
            public_now = self.knowledge.learn(event)
            whole: Codes | None = None  # the cards of the unredacted event, read once
            for audience, known in self.knowledge.known.items():
                seen = check_public_parts(event, audience, game)
                if seen is not event:
                    shown = self.codes_in(seen)
                elif whole is None:
                    shown = whole = self.codes_in(event)
                else:
                    shown = whole
                extra = unknown(shown, known | public_now if public_now else known)
                assert not extra, (
                    f"{event!r} to {audience} shows cards its audience may not see: {sorted(extra)}"
                )
                if also is not None:
                    also(event, audience, seen, shown)
        self.checked += len(new)
        return new

    def check_views(self, also: Callable[[Audience, Codes], None] | None = None) -> None:
        """Each audience's view of the table shows only cards it knows; ``also``, given the
        audience and the cards its view shows, runs a game's own checks."""
        table = self.playout.table
        for audience, known in self.knowledge.known.items():
            shown = self.codes_in(tables.view(table, audience))
            extra = unknown(shown, known)
            assert not extra, (
                f"the view of {audience} shows cards its audience may not see: {sorted(extra)}"
            )
            if also is not None:
                also(audience, shown)
