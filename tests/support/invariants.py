"""Invariants every game's seeded playouts check, whatever the game."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

import msgspec

from domain import table as tables
from domain.commands import LegalAction, PlayerCommand
from domain.errors import RuleError
from domain.events import Event, SeedRevealed, TableCreated
from domain.protocol import Audience
from domain.table import Table

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


def assert_only_known(shown: Counter[str], known: Counter[str], what: str) -> None:
    """No card code in ``shown`` that ``known`` lacks (a view may repeat a known card)."""
    extra = shown.keys() - {card for card, count in known.items() if count > 0}
    assert not extra, f"{what} shows cards its audience may not see: {sorted(extra)}"
