"""Encoders and decoders per game, built once: snapshots, events and the API unions."""

from __future__ import annotations

from functools import cache
from typing import Any, Union

import msgspec

from domain.events import Event
from domain.registry import GAMES
from domain.table import TABLE_EVENTS, Table


@cache
def snapshot_decoder(game_id: str) -> msgspec.msgpack.Decoder[Table[Any]]:
    state_type: Any = GAMES[game_id].state_type
    return msgspec.msgpack.Decoder(Table[state_type])


def event_classes(game_id: str | None = None) -> tuple[type[Event], ...]:
    """The table's events plus one game's (or every game's), each class once."""
    games = [GAMES[game_id]] if game_id else list(GAMES.values())
    seen: dict[type[Event], None] = dict.fromkeys(TABLE_EVENTS)
    for game in games:
        seen.update(dict.fromkeys(game.event_types))
    return tuple(seen)


@cache
def event_decoder(game_id: str | None = None) -> msgspec.json.Decoder[Event]:
    """Events of one game's tables; with no game, of any table (tags are unique)."""
    union: Any = Union[event_classes(game_id)]  # noqa: UP007
    return msgspec.json.Decoder(union)


def event_data(event: msgspec.Struct) -> dict[str, Any]:
    data: dict[str, Any] = msgspec.to_builtins(event)
    return data
