"""``/games``: the catalogue of the games the service hosts, read from the registry.

Each game's options are read from its options type (``msgspec.inspect``), so an option
added to a game appears here as it is: its type, default, values or bounds, and the
``description`` of its ``msgspec.Meta``. The answer changes only with a deployment, so it
is encoded once and sent with a strong ETag.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal

import msgspec
from litestar import Controller, Response, get
from litestar.datastructures import ResponseHeader
from litestar.params import PathParameter
from msgspec import inspect as mi

from domain.protocol import Game
from domain.registry import GAMES
from service.http.conditional import IfNoneMatch, content_tag, matches
from service.http.docs import NO_TOKEN, errors
from service.http.problems import ApiProblem
from service.http.schemas import GameCatalogue, GameInfo, GameOption, Seating

RULEBOOK = "docs/rules/"
# Each game's section of the rulebook (docs/rules/index.md lists them).
RULES_PAGES = {
    "forty-five": "forty-five.md#1-auction-forty-five",
    "pitch": "pitch.md#2-auction-pitch",
    "pinochle": "pinochle.md#3a-auction-pinochle-with-a-widow",
    "pinochle-three": "pinochle.md#3b-three-hand-pinochle",
    "pinochle-widow": "pinochle.md#3c-widow-pinochle",
    "pinochle-four": "pinochle.md#3d-four-hand-pinochle",
    "reserve-bridge": "reserve-bridge.md#4-reserve-bridge",
}
# The table of every game's seats and options, for a game without a section of its own.
TABLE_SETTINGS = "index.md#08-table-settings"

JsonType = Literal["boolean", "integer", "number", "string", "array", "object", "any"]
_SCALARS: dict[type, JsonType] = {bool: "boolean", int: "integer", float: "number", str: "string"}
_BOUNDS = ("minimum", "exclusive_minimum", "maximum", "exclusive_maximum", "multiple_of")


def _described(kind: mi.Type) -> tuple[mi.Type, str | None]:
    """``kind`` without its ``Meta`` wrappers, and the outermost description."""
    description = None
    while isinstance(kind, mi.Metadata):
        found = (kind.extra_json_schema or {}).get("description")
        description = description or (str(found) if found is not None else None)
        kind = kind.type
    return kind, description


def _schema_default(kind: mi.Type) -> Any:
    while isinstance(kind, mi.Metadata):
        if "default" in (kind.extra_json_schema or {}):
            return (kind.extra_json_schema or {})["default"]
        kind = kind.type
    return None


def _of_values(values: list[Any]) -> JsonType:
    kinds = {_SCALARS.get(type(value), "any") for value in values}
    return kinds.pop() if len(kinds) == 1 else "any"


def _shape(kind: mi.Type) -> dict[str, Any]:
    """The ``GameOption`` fields that say what values ``kind`` (not a union) takes."""
    if isinstance(kind, mi.BoolType):
        return {"type": "boolean", "values": [False, True]}
    if isinstance(kind, mi.LiteralType):
        return {"type": _of_values(list(kind.values)), "values": list(kind.values)}
    if isinstance(kind, mi.EnumType):
        values = [member.value for member in kind.cls]
        return {"type": _of_values(values), "values": values}
    if isinstance(kind, mi.IntType | mi.FloatType):
        bounds = (kind.ge, kind.gt, kind.le, kind.lt, kind.multiple_of)
        number: JsonType = "integer" if isinstance(kind, mi.IntType) else "number"
        return {"type": number, **dict(zip(_BOUNDS, bounds, strict=True))}
    if isinstance(kind, mi.StrType):
        lengths = {"min_length": kind.min_length, "max_length": kind.max_length}
        return {"type": "string", **lengths, "pattern": kind.pattern}
    if isinstance(kind, mi.ListType | mi.SetType | mi.FrozenSetType | mi.VarTupleType):
        return {"type": "array", "min_length": kind.min_length, "max_length": kind.max_length}
    if isinstance(kind, mi.TupleType):
        return {"type": "array"}
    if isinstance(kind, mi.StructType | mi.DictType | mi.TypedDictType | mi.DataclassType):
        return {"type": "object"}
    return {"type": "any"}


def option(field: mi.Field) -> GameOption:
    """What a client needs to know of one field of an options type."""
    kind, description = _described(field.type)
    nullable = False
    if isinstance(kind, mi.UnionType):
        others = [t for t in kind.types if not isinstance(t, mi.NoneType)]
        nullable = len(others) < len(kind.types)
        kind, inner = _described(others[0]) if len(others) == 1 else (kind, None)
        description = description or inner
    shape: dict[str, Any] = {"type": "any"} if isinstance(kind, mi.UnionType) else _shape(kind)
    if field.default is not msgspec.NODEFAULT:
        default = field.default
    elif field.default_factory is not msgspec.NODEFAULT:
        default = field.default_factory()
    else:
        # Left out when not given (an option added later, so that older tables record
        # what they always did): its schema says which value stands in for it.
        default = _schema_default(field.type)
    return GameOption(
        name=field.encode_name,
        nullable=nullable,
        default=msgspec.to_builtins(default),
        required=field.required,
        description=description,
        **{k: v for k, v in shape.items() if v is not None},
    )


def game_info(game: Game[Any]) -> GameInfo:
    info = mi.type_info(game.options_type)
    assert isinstance(info, mi.StructType)
    seatings = []
    for seats in range(game.min_seats, game.max_seats + 1):
        units = game.units(seats)
        sides = [list(unit) for unit in units] if any(len(u) > 1 for u in units) else None
        seatings.append(Seating(seats=seats, active=game.dealt_in(seats), partnerships=sides))
    return GameInfo(
        id=game.id,
        min_seats=game.min_seats,
        max_seats=game.max_seats,
        seatings=seatings,
        options=[option(field) for field in info.fields],
        rules=RULEBOOK + RULES_PAGES.get(game.id, TABLE_SETTINGS),
    )


def catalogue() -> GameCatalogue:
    return GameCatalogue(games=[game_info(game) for game in GAMES.values()])


class Encoded(msgspec.Struct, frozen=True):
    body: bytes
    etag: str


@cache
def _encoded(game_id: str | None) -> Encoded:
    """One game's entry, or the whole catalogue (``None``), encoded once."""
    found: Any = catalogue() if game_id is None else game_info(GAMES[game_id])
    body = msgspec.json.encode(found)
    return Encoded(body, content_tag(body))


def etag(game_id: str | None) -> str:
    """The ETag of one game's entry, or of the whole catalogue (``None``)."""
    return _encoded(game_id).etag


# Fresh for five minutes, then revalidated: the answer changes only with a deployment.
CACHE_CONTROL = "public, max-age=300"
_HEADERS = [
    ResponseHeader(
        name="ETag",
        description="Strong tag of the answer; it changes only with a deployment.",
        value='"5d41402abc4b2a76b9719d911017c592"',
        documentation_only=True,
    ),
    ResponseHeader(
        name="Cache-Control",
        description="Fresh for five minutes, then revalidate.",
        value=CACHE_CONTROL,
        documentation_only=True,
    ),
]


def _answer(encoded: Encoded, if_none_match: str | None) -> Response[Any]:
    headers = {"ETag": encoded.etag, "Cache-Control": CACHE_CONTROL}
    if matches(if_none_match, encoded.etag):
        return Response(None, status_code=304, headers=headers)
    return Response(encoded.body, media_type="application/json", headers=headers)


GamePath = Annotated[str, PathParameter(description="A game id, e.g. `forty-five`.")]


class GameController(Controller):
    path = "/games"
    tags = ("games",)
    security = NO_TOKEN  # the catalogue is the same for everyone

    @get(
        "/",
        operation_id="listGames",
        summary="Every game: its seats, options and rules",
        description=(
            "For each game id: the seats it is played at (with the seats dealt in each"
            " deal and the partnerships), every table option with its default and the"
            " values it takes, and its page of the rulebook. Send `If-None-Match` with the"
            " last ETag to get a 304 while it is unchanged."
        ),
        response_headers=_HEADERS,
        responses=errors(304),
    )
    async def list_games(self, if_none_match: IfNoneMatch = None) -> Response[GameCatalogue]:
        return _answer(_encoded(None), if_none_match)

    @get(
        "/{game:str}",
        operation_id="getGame",
        summary="One game: its seats, options and rules",
        description="The entry of `listGames` for one game id.",
        response_headers=_HEADERS,
        responses=errors(304, 404),
    )
    async def get_game(
        self, game: GamePath, if_none_match: IfNoneMatch = None
    ) -> Response[GameInfo]:
        if game not in GAMES:
            raise ApiProblem("game-not-found", f"no game {game!r}; GET /games lists them")
        return _answer(_encoded(game), if_none_match)
