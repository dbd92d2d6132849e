"""Encoders and decoders per game, built once: snapshots, events and the API unions."""

from __future__ import annotations

import re
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


@cache
def _holder(kind: Any) -> Any:
    return msgspec.defstruct("Held", [("value", kind)], frozen=True)


# Where msgspec says a conversion went wrong, past the holder's field: ``$.value.card``
# reads ``$.card``, and ``$.value`` itself (the top) no path, as msgspec.convert's would.
_HELD_AT = re.compile(r" - at `\$\.value(?P<rest>[^`]*)`$")


def _unheld(found: re.Match[str]) -> str:
    return f" - at `${found['rest']}`" if found["rest"] else ""


def convert(value: Any, kind: Any, *, strict: bool = True) -> Any:
    """``msgspec.convert(value, kind)``, with what msgspec works out about ``kind`` kept.

    msgspec keeps that on Struct classes only, so converting straight to a union (the
    commands', a per-game request's) worked the union's validator out again on every
    call: 80-150 µs for the commands' union on these machines, against 8 µs through a
    one-field struct made once per type. Its errors read as msgspec.convert's would.
    """
    try:
        return msgspec.convert({"value": value}, _holder(kind), strict=strict).value
    except msgspec.ValidationError as exc:
        raise msgspec.ValidationError(_HELD_AT.sub(_unheld, str(exc))) from None


def event_data(event: msgspec.Struct) -> dict[str, Any]:
    data: dict[str, Any] = msgspec.to_builtins(event)
    return data
