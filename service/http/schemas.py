"""Request and response bodies of the HTTP API. Field names are part of the contract."""

from __future__ import annotations

import unicodedata
import uuid
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

import msgspec

from domain.cards import Card
from domain.commands import PlayerCommand
from domain.errors import RuleCode, RuleError
from domain.events import ClockSettings
from domain.protocol import Game
from domain.registry import GAMES
from domain.tournament.standings import Placing
from projections.scoresheet import ScoreSheet
from projections.standings import Standings
from service.read.models import TableSummary
from service.read.records import EventRecord, TableView

Command = PlayerCommand

# Printable text that neither starts nor ends with a space. Refused anywhere: the
# controls (C0, DEL, C1: Postgres cannot store NUL, and nobody wants a tab in a name), the
# line and paragraph separators, and the format characters of the Basic Multilingual
# Plane — among them the bidi embeddings, overrides and isolates that reorder what is
# shown around a name, and the zero-width characters that hide inside one (DESIGN 12).
# Format characters beyond the BMP (e.g. the tags U+E0000-E007F) stay allowed: no
# pattern names them the same in Python (``\U000e0000``) and ECMA-262 (``\u{e0000}``).
#
# The server and a client validating by the document must agree on every name, so the
# pattern means the same in both: where their ``\s`` differ (Python counts U+001C-001F
# and U+0085, ECMA-262 U+FEFF) the characters are refused outright. Every pattern ends
# with ``$(?!\n)``: the same as ``$`` in ECMA-262, where ``$`` matches only at the end;
# Python's ``re`` (the server's and Python clients') lets ``$`` match before a final
# newline too, and the lookahead takes that back.
#
# Also refused: what shows as nothing though it is no format character — the combining
# grapheme joiner (U+034F), the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), Khmer's
# invisible vowels (U+17B4, U+17B5), the blank Braille pattern (U+2800) and the reserved
# U+FFF0-FFF8, all "default ignorable" in Unicode. The variation selectors, ignorable too,
# stay allowed: phones add U+FE0F to emoji ("Ann ❤️") and Mongolian is written with its
# own (U+180B-180D, U+180F) — but never first, where a selector has nothing to select and
# a name of selectors alone would show as nothing. (A name of format characters beyond
# the BMP alone, tags say, still passes: see above.)
_SELECTORS = r"\u180b-\u180d\u180f\ufe00-\ufe0f"
_NOT_IN_TEXT = (
    r"\x00-\x1f\x7f-\x9f\xad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2"
    r"\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\u2800\u3164"
    r"\ufeff\uffa0\ufff0-\ufffb"
)
TEXT = rf"^[^\s{_NOT_IN_TEXT}{_SELECTORS}]([^{_NOT_IN_TEXT}]*[^\s{_NOT_IN_TEXT}])?$(?!\n)"
NAME_LENGTH = 40
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=NAME_LENGTH, pattern=TEXT)]


def same_text(name: str) -> str:
    """A name as stored and compared: the same name typed on two keyboards, composed
    ("é") or decomposed ("e" and a combining acute), is one name, one player in the
    standings and at the ``player`` filter (Unicode NFC). A few characters grow under
    NFC (Devanagari's letters with nukta, some musical symbols): a name they would take
    past its length is kept as sent, so that every stored name is one the API takes."""
    composed = unicodedata.normalize("NFC", name)
    return composed if len(composed) <= NAME_LENGTH else name


class NamingBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A body that names players (``name``, ``names`` or ``players``): each name is
    taken in its composed form (:func:`same_text`) as the body is decoded."""

    def __post_init__(self) -> None:
        for field in ("name", "names", "players"):
            value = getattr(self, field, None)
            if isinstance(value, str):
                msgspec.structs.force_setattr(self, field, same_text(value))
            elif isinstance(value, list):
                msgspec.structs.force_setattr(self, field, [same_text(v) for v in value])


SeatNumber = Annotated[int, msgspec.Meta(ge=0, le=6)]


class ClockRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Each turn a seat gets ``action_seconds``; past them its bank of ``bank_seconds``
    for the whole game runs; when both are spent the turn expires (``on_timeout``)."""

    action_seconds: Annotated[int, msgspec.Meta(ge=1, le=3600, description="Seconds per turn.")]
    bank_seconds: Annotated[
        int,
        msgspec.Meta(ge=0, le=86400, description="Seconds per seat for the game, never refilled."),
    ] = 0


OnTimeout = Annotated[
    Literal["autoplay", "forfeit"],
    msgspec.Meta(
        description=(
            "When a clock expires: `autoplay`, the computer plays the turn (twice in a row"
            " marks the seat absent), or `forfeit`, the seat's side loses the game."
        )
    ),
]


UUID_PATTERN = (
    r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$(?!\n)"
)
TournamentId = Annotated[
    uuid.UUID, msgspec.Meta(description="An existing tournament of the same game.")
]


def _title(game: Game[Any]) -> str:
    return "".join(part.capitalize() for part in game.id.split("-"))


@cache
def _deck_type(game_id: str) -> type[msgspec.Struct]:
    """A full pack of the game, top card first; any order of exactly its cards (one type
    per game, shared by every body that takes decks)."""
    game = GAMES[game_id]
    pack = game.pack
    unique = len(set(pack)) == len(pack)
    card = Annotated[str, msgspec.Meta(extra_json_schema={"enum": sorted(set(pack))})]
    deck = Annotated[
        list[card],
        msgspec.Meta(
            min_length=len(pack),
            max_length=len(pack),
            extra_json_schema={"uniqueItems": True} if unique else None,
            description=f"The {len(pack)} cards of the {game.id} pack, top card first.",
        ),
    ]
    return msgspec.defstruct(
        f"{_title(game)}Deck",
        [("deck", deck)],
        frozen=True,
        forbid_unknown_fields=True,
        module=__name__,
    )


def _game_body(name: str, game: Game[Any], fields: list[Any]) -> type[msgspec.Struct]:
    """A request body for one game: tagged by ``game`` (the union's discriminator),
    unknown fields refused."""
    return msgspec.defstruct(
        name,
        fields,
        tag_field="game",
        tag=game.id,
        frozen=True,
        forbid_unknown_fields=True,
        module=__name__,
    )


def _create_type(game: Game[Any]) -> type[msgspec.Struct]:
    """The body that creates a ``game`` table: its seat range and its own options."""
    seats = Annotated[int, msgspec.Meta(ge=game.min_seats, le=game.max_seats)]
    dealer = Annotated[int, msgspec.Meta(ge=0, le=game.max_seats - 1)]
    deck_type: Any = _deck_type(game.id)
    deals = Annotated[list[deck_type], msgspec.Meta(max_length=500)]
    return _game_body(
        f"Create{_title(game)}",
        game,
        [
            ("seats", seats),
            ("options", game.options_type, msgspec.field(default_factory=game.options_type)),
            ("tournament", TournamentId | None, None),
            ("first_dealer", dealer | None, None),
            ("deals", deals | None, None),
            ("clock", ClockRequest | None, None),
            ("on_timeout", OnTimeout, "autoplay"),
        ],
    )


CREATE_TYPES = {game_id: _create_type(game) for game_id, game in GAMES.items()}


def _tournament_type(game: Game[Any]) -> type[msgspec.Struct]:
    """The body that opens a ``game`` tournament: a name and the game's own options; for
    duplicate play, the decks (and first dealer) every table opened in it shares."""
    dealer = Annotated[
        int,
        msgspec.Meta(
            ge=0,
            le=game.max_seats - 1,
            description="The first dealer of every table opened in the tournament.",
        ),
    ]
    deck_type: Any = _deck_type(game.id)
    deals = Annotated[
        list[deck_type],
        msgspec.Meta(
            max_length=500,
            description=(
                "Duplicate deals: decks for the successive deals of every table the operator"
                " opens in the tournament (a table's own `deals` replace them)."
            ),
        ),
    ]
    return _game_body(
        f"CreateTournament{_title(game)}",
        game,
        [
            ("name", Annotated[str, msgspec.Meta(min_length=1, max_length=100, pattern=TEXT)]),
            ("options", game.options_type, msgspec.field(default_factory=game.options_type)),
            ("first_dealer", dealer | None, None),
            ("deals", deals | None, None),
            ("clock", ClockRequest | None, None),
            ("on_timeout", OnTimeout, "autoplay"),
            ("format", FormatName, "open"),
            ("rounds", Rounds | None, None),
            ("entry", EntryKind, "single"),
            (
                "seats",
                Annotated[int, msgspec.Meta(ge=game.min_seats, le=game.max_seats)] | None,
                None,
            ),
            ("round_minutes", RoundMinutes | None, None),
            ("auto_rounds", bool, False),
        ],
    )


FormatName = Annotated[
    Literal["open", "swiss", "round-robin", "progressive", "duplicate"],
    msgspec.Meta(
        description=(
            "How the tournament is run: `open` (the operator opens tables by hand; with"
            " `deals`, those tables are closed to spectators until it is over), or in"
            " rounds paired by the service: `swiss`, `round-robin`, `progressive`,"
            " `duplicate` (whose tables are closed to spectators until it is over). See"
            " docs/rules/tournaments.md."
        )
    ),
]
Rounds = Annotated[
    int,
    msgspec.Meta(
        ge=1,
        le=100,
        description="How many rounds. A round-robin may leave it out, and plays no more"
        " rounds than its schedule has, where every pair has met once.",
    ),
]
EntryKind = Annotated[
    Literal["single", "pair"],
    msgspec.Meta(description="An entry is one player, or a fixed partnership (`pair`)."),
]
RoundMinutes = Annotated[
    int,
    msgspec.Meta(
        ge=1,
        le=1440,
        description="Timed rounds: the round's tables end after the deal in progress then.",
    ),
]


TOURNAMENT_TYPES = {game_id: _tournament_type(game) for game_id, game in GAMES.items()}


class CreateTournamentBase(msgspec.Struct, frozen=True):
    name: str
    options: msgspec.Struct
    first_dealer: int | None
    deals: list[Any] | None
    clock: ClockRequest | None
    on_timeout: Literal["autoplay", "forfeit"]
    format: Literal["open", "swiss", "round-robin", "progressive", "duplicate"]
    rounds: int | None
    entry: Literal["single", "pair"]
    seats: int | None
    round_minutes: int | None
    auto_rounds: bool


class TournamentTableDeck(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A deck for one of the table's deals: the full pack of the tournament's game, top card
    first (any order of exactly its cards; the game checks it when the table opens)."""

    deck: Annotated[
        list[Card], msgspec.Meta(min_length=1, max_length=max(len(g.pack) for g in GAMES.values()))
    ]


class TournamentTable(NamingBody, frozen=True, forbid_unknown_fields=True):
    """A tournament table with its players named, seat 0 first (operator only)."""

    players: Annotated[list[Name], msgspec.Meta(min_length=2, max_length=7)]
    first_dealer: Annotated[int, msgspec.Meta(ge=0, le=6)] | None = None
    deals: Annotated[list[TournamentTableDeck], msgspec.Meta(max_length=500)] | None = None


class SeatToken(msgspec.Struct, frozen=True):
    seat: int
    name: str
    token: str


class TournamentTableCreated(msgspec.Struct, frozen=True):
    """The new table (as the operator sees it) and each player's seat token."""

    table: TableView
    seats: list[SeatToken]


class TablePage(msgspec.Struct, frozen=True):
    """Tables, newest first; pass ``next`` as ``cursor`` for the following page."""

    tables: list[TableSummary]
    next: str | None


class ScoreSheetPage(msgspec.Struct, frozen=True):
    """The table's score sheet as of ``position`` in the store's global order.

    ``sheet.version`` is the last table version folded in; ``table_version`` the table's
    current version: when they differ the sheet is catching up.
    """

    position: int
    table_version: int
    sheet: ScoreSheet


class RoundLine(msgspec.Struct, frozen=True):
    """One round of an entry: its table (``null`` for a bye), whom it played, the result."""

    round: int
    table: str | None
    opponents: list[str]
    result: Literal["win", "loss", "draw", "bye"]


class EntryStanding(Placing, frozen=True):
    """An entry of a tournament in rounds, ranked: points (win 1, draw ½, a bye as the
    format scores it), then the format's tie-breaks, then game points (``score``). A
    withdrawn entry keeps its place by its results (``withdrawn``)."""

    name: str  # the API always names an entry (its field keeps its place, second)
    rounds: list[RoundLine]
    withdrawn: bool  # the entry is paired no more; its results stand


class StandingsPage(msgspec.Struct, frozen=True):
    """Standings as of ``position`` in the store's global order. A tournament in rounds
    ranks its ``entries`` too, from its own stream (``version``): every result recorded."""

    position: int
    standings: Standings
    format: str
    version: int
    entries: list[EntryStanding]


class CreateTableBase(msgspec.Struct, frozen=True):
    """What every create body has; the per-game types add their seats and options."""

    seats: int
    options: msgspec.Struct
    tournament: uuid.UUID | None
    first_dealer: int | None
    deals: list[Any] | None
    clock: ClockRequest | None
    on_timeout: Literal["autoplay", "forfeit"]


def clock_settings(
    clock: ClockRequest | None, on_timeout: Literal["autoplay", "forfeit"]
) -> ClockSettings | None:
    """The table's clock, or ``None``; ``forfeit`` makes no sense without one."""
    if clock is None:
        if on_timeout == "forfeit":
            raise RuleError(RuleCode.INVALID_OPTIONS, "on_timeout forfeit needs a clock")
        return None
    return ClockSettings(clock.action_seconds, clock.bank_seconds, on_timeout)


# The unions grow with the registry; type checkers see their common base instead.
if TYPE_CHECKING:
    CreateTable = CreateTableBase
    CreateTournament = CreateTournamentBase
else:
    CreateTable = Union[tuple(CREATE_TYPES.values())]  # noqa: UP007
    CreateTournament = Union[tuple(TOURNAMENT_TYPES.values())]  # noqa: UP007


class TakeSeat(NamingBody, frozen=True, forbid_unknown_fields=True):
    """The player's name (``Player <seat + 1>`` when left out), or ``computer: true`` to
    seat the computer (named "Computer" unless named; on a tournament table only the
    operator may seat it)."""

    name: Name | None = None
    computer: bool = False


class ReplaceSeat(NamingBody, frozen=True, forbid_unknown_fields=True):
    """The new player's name, or ``computer: true`` to give the seat to the computer."""

    name: Name | None = None
    computer: bool = False


class SeatHandedOver(msgspec.Struct, frozen=True):
    """The seat's new token (``null`` when the computer took it); the old one is revoked."""

    table: str
    seat: int
    token: str | None
    version: int


class AbortTable(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    reason: Annotated[str, msgspec.Meta(min_length=1, max_length=200, pattern=TEXT)]


class SeatGranted(msgspec.Struct, frozen=True):
    """The seat's bearer token: send it as ``Authorization: Bearer <token>``; ``null``
    when the computer took the seat (nobody plays for it, or sees its hand)."""

    table: str
    seat: int
    token: str | None
    version: int


class TokenHolder(msgspec.Struct, frozen=True):
    """Who a bearer token speaks for. ``operator``: the service's operator. ``director``:
    the director of ``tournament``, its operator for that tournament and its tables
    only. ``seat``: a player's seat, ``seat`` (from 0) at ``table``. ``entry``: an entry
    of ``tournament`` (``entry``), whose ``GET /tournaments/{id}/me`` finds its seat each
    round. The fields that do not apply to a kind are ``null``."""

    kind: Literal["operator", "director", "seat", "entry"]
    table: str | None
    seat: int | None
    tournament: str | None
    entry: str | None


def _json_text(component: str) -> msgspec.Meta:
    """A string holding JSON text of a component (a stream message's ``data``)."""
    return msgspec.Meta(
        extra_json_schema={
            "contentMediaType": "application/json",
            "contentSchema": {"$ref": f"#/components/schemas/{component}"},
        }
    )


class StreamMessage(msgspec.Struct, frozen=True):
    """One Server-Sent Events message: ``data`` is an ``EventRecord`` as JSON text."""

    data: Annotated[str, _json_text("EventRecord")]
    event: Annotated[str, msgspec.Meta(description="The event type, e.g. `card_played`.")]
    id: Annotated[str, msgspec.Meta(pattern=r"^[1-9][0-9]*$(?!\n)", description="The version.")]


class TournamentStreamMessage(StreamMessage, frozen=True):
    """One Server-Sent Events message of a tournament: ``data`` is a
    ``TournamentEventRecord`` as JSON text."""

    data: Annotated[str, _json_text("TournamentEventRecord")]


class EventPage(msgspec.Struct, frozen=True):
    """Events after the cursor; pass the last ``version`` as ``after`` to continue."""

    table: str
    version: int
    events: list[EventRecord]


class Health(msgspec.Struct, frozen=True):
    status: Literal["ok", "unavailable"]
    checks: dict[str, str] = msgspec.field(default_factory=dict)


class GameOption(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One table option of a game, read from the game's options type: the JSON ``type``
    of its value, whether ``null`` is a value too, its ``default``, and either the
    ``values`` it takes or its bounds (JSON Schema's names and meanings)."""

    name: str
    type: Annotated[
        Literal["boolean", "integer", "number", "string", "array", "object", "any"],
        msgspec.Meta(description="The JSON type of a value other than `null`."),
    ]
    nullable: Annotated[
        bool, msgspec.Meta(description="`null` is a value too (its meaning is described).")
    ]
    default: Annotated[
        Any, msgspec.Meta(description="The value when the option is left out (always sent).")
    ]
    required: Annotated[
        bool, msgspec.Meta(description="The option has no default and must be given.")
    ] = False
    values: Annotated[
        list[bool | int | str] | None,
        msgspec.Meta(description="Every value it takes, when they are few."),
    ] = None
    minimum: float | None = None
    exclusive_minimum: float | None = None
    maximum: float | None = None
    exclusive_maximum: float | None = None
    multiple_of: float | None = None
    min_length: Annotated[int | None, msgspec.Meta(description="Of a string or an array.")] = None
    max_length: Annotated[int | None, msgspec.Meta(description="Of a string or an array.")] = None
    pattern: str | None = None
    description: str | None = None


class Seating(msgspec.Struct, frozen=True):
    """A table of ``seats`` seats of the game."""

    seats: int
    active: Annotated[
        int,
        msgspec.Meta(description="The seats dealt in each deal; the others sit that deal out."),
    ]
    partnerships: Annotated[
        list[list[int]] | None,
        msgspec.Meta(description="The seats of each partnership; `null`: each for himself."),
    ]


class GameInfo(msgspec.Struct, frozen=True):
    """A game the service hosts: its seats, its table options and its rules."""

    id: Annotated[str, msgspec.Meta(description="The `game` of createTable.")]
    min_seats: int
    max_seats: int
    seatings: Annotated[
        list[Seating], msgspec.Meta(description="Each number of seats the game is played at.")
    ]
    options: Annotated[list[GameOption], msgspec.Meta(description="The `options` of createTable.")]
    rules: Annotated[
        str,
        msgspec.Meta(
            description="The game's page of the rulebook: a path in the Cardroom repository,"
            " e.g. `docs/rules/pitch.md#2-auction-pitch`."
        ),
    ]


class GameCatalogue(msgspec.Struct, frozen=True):
    """Every game the service hosts."""

    games: list[GameInfo]
