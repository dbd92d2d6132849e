"""``GET /games``: the catalogue is the registry as it is — every game, its seats and
partnerships, every option of its options type with that type's default — and it is
answered with an ETag and 304s."""

from __future__ import annotations

import enum
import re
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
import pytest

from domain.registry import GAMES
from service.http.games import option
from tests.support.api import ok

ROOT = Path(__file__).resolve().parents[2]


async def test_the_catalogue_lists_every_game_of_the_registry(client: Any) -> None:
    catalogue = ok(await client.get("/games"))
    assert [entry["id"] for entry in catalogue["games"]] == list(GAMES)
    for entry in catalogue["games"]:
        game = GAMES[entry["id"]]
        assert (entry["min_seats"], entry["max_seats"]) == (game.min_seats, game.max_seats)
        assert [s["seats"] for s in entry["seatings"]] == list(
            range(game.min_seats, game.max_seats + 1)
        )
        for seating in entry["seatings"]:
            assert seating["active"] == game.dealt_in(seating["seats"])


async def test_partnerships_and_seats_sitting_out_are_the_games_own(client: Any) -> None:
    games = {entry["id"]: entry for entry in ok(await client.get("/games"))["games"]}
    assert games["forty-five"]["seatings"] == [
        {"seats": 4, "active": 4, "partnerships": [[0, 2], [1, 3]]}
    ]
    # RULES 3A.1: three seats are dealt in, whatever the table's size.
    assert [s["active"] for s in games["pinochle"]["seatings"]] == [3, 3, 3]
    assert all(s["partnerships"] is None for s in games["pitch"]["seatings"])


async def test_every_option_is_listed_with_its_options_type_default(client: Any) -> None:
    for entry in ok(await client.get("/games"))["games"]:
        options_type = GAMES[entry["id"]].options_type
        defaults = msgspec.to_builtins(options_type())
        # An option left out unless given (added after tables were recorded without it)
        # stands for the default its schema states.
        schema = msgspec.json.schema(options_type)
        properties = schema["$defs"][options_type.__name__]["properties"]
        for name in options_type.__struct_fields__:
            if name not in defaults:
                defaults[name] = properties[name]["default"]
        listed = {o["name"]: o for o in entry["options"]}
        assert list(listed) == list(defaults), entry["id"]
        for name, value in defaults.items():
            assert listed[name]["default"] == value, (entry["id"], name)
            assert not listed[name].get("required", False)


def _accepted(options_type: type[msgspec.Struct], name: str, value: Any) -> bool:
    try:
        msgspec.convert({name: value}, type=options_type, strict=True)
    except msgspec.ValidationError:
        return False
    return True


@pytest.mark.parametrize("game_id", list(GAMES))
async def test_the_listed_values_and_bounds_are_what_the_game_accepts(
    client: Any, game_id: str
) -> None:
    options_type = GAMES[game_id].options_type
    for entry in ok(await client.get(f"/games/{game_id}"))["options"]:
        name = entry["name"]
        for value in entry.get("values") or ():
            assert _accepted(options_type, name, value), (name, value)
        if "minimum" in entry:
            assert _accepted(options_type, name, entry["minimum"])
            assert not _accepted(options_type, name, entry["minimum"] - 1)
        if "maximum" in entry:
            assert _accepted(options_type, name, entry["maximum"])
            assert not _accepted(options_type, name, entry["maximum"] + 1)
        assert _accepted(options_type, name, None) == entry["nullable"], name


async def test_one_game_is_its_entry_of_the_catalogue(client: Any) -> None:
    catalogue = ok(await client.get("/games"))
    for entry in catalogue["games"]:
        assert ok(await client.get(f"/games/{entry['id']}")) == entry


async def test_an_unknown_game_is_a_404_problem(client: Any) -> None:
    answer = await client.get("/games/euchre")
    assert answer.status_code == 404
    assert answer.headers["content-type"] == "application/problem+json"
    problem = answer.json()
    assert problem["code"] == "game-not-found"
    assert problem["type"].endswith("/game-not-found")
    assert problem["instance"] == "/games/euchre"


@pytest.mark.parametrize("path", ["/games", "/games/pitch"])
async def test_a_matching_if_none_match_is_answered_304(client: Any, path: str) -> None:
    first = await client.get(path)
    tag = first.headers["etag"]
    assert first.headers["cache-control"] == "public, max-age=300"
    again = await client.get(path, headers={"If-None-Match": tag})
    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["etag"] == tag
    weak = await client.get(path, headers={"If-None-Match": f'"other", W/{tag}'})
    assert weak.status_code == 304
    stale = await client.get(path, headers={"If-None-Match": '"other"'})
    assert stale.status_code == 200
    for garbled in ("W/*", "W/", tag.strip('"')):  # not `*`, not the tag: no 304
        assert (await client.get(path, headers={"If-None-Match": garbled})).status_code == 200
    assert stale.json() == first.json()


async def test_each_answer_has_its_own_etag(client: Any) -> None:
    tags = {(await client.get(path)).headers["etag"] for path in ("/games", "/games/pitch")}
    tags.add((await client.get("/games/pinochle")).headers["etag"])
    assert len(tags) == 3


def _anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings."""
    headings = re.findall(r"^#+ (.+)$", page.read_text(), flags=re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}


async def test_every_game_links_its_own_section_of_the_rulebook(client: Any) -> None:
    for entry in ok(await client.get("/games"))["games"]:
        page, _, anchor = entry["rules"].partition("#")
        assert page.startswith("docs/rules/") and page != "docs/rules/index.md", entry["id"]
        assert anchor in _anchors(ROOT / page), entry["rules"]


class Colour(enum.Enum):
    RED = "red"
    BLACK = "black"


class LaterOptions(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Options a game might add one day: each is read without changing the catalogue."""

    colour: Colour = Colour.RED
    game_end: Literal[7, 11, 21] = 11
    double_melds: bool = False
    rounds: Annotated[int, msgspec.Meta(ge=1, lt=10, description="How many rounds.")] = 3
    label: Annotated[str, msgspec.Meta(max_length=8)] | None = None
    ratio: Annotated[float, msgspec.Meta(gt=0, le=1)] = 0.5


def test_options_added_later_are_read_from_their_type() -> None:
    info = msgspec.inspect.type_info(LaterOptions)
    assert isinstance(info, msgspec.inspect.StructType)
    read = {field.name: msgspec.to_builtins(option(field)) for field in info.fields}
    assert read == {
        "colour": {"name": "colour", "type": "string", "nullable": False, "default": "red"}
        | {"values": ["red", "black"]},
        "game_end": {"name": "game_end", "type": "integer", "nullable": False, "default": 11}
        | {"values": [7, 11, 21]},
        "double_melds": {"name": "double_melds", "type": "boolean", "nullable": False}
        | {"default": False, "values": [False, True]},
        "rounds": {"name": "rounds", "type": "integer", "nullable": False, "default": 3}
        | {"minimum": 1, "exclusive_maximum": 10, "description": "How many rounds."},
        "label": {"name": "label", "type": "string", "nullable": True, "default": None}
        | {"max_length": 8},
        "ratio": {"name": "ratio", "type": "number", "nullable": False, "default": 0.5}
        | {"exclusive_minimum": 0, "maximum": 1},
    }


async def test_a_tables_view_names_every_option_in_force(client: Any) -> None:
    """A table created without options plays by the catalogue's defaults, and its view
    says so, for every game: Pitch's ``game_end`` and Pinochle's ``double_melds``, left
    out of what such a table records, are named as in force, so a client need not know a
    default to show the table's settings (Forty-Five and Bridge have none: ``{}``)."""
    for entry in ok(await client.get("/games"))["games"]:
        body = {"game": entry["id"], "seats": entry["min_seats"]}
        table = ok(await client.post("/tables", json=body), 201)
        defaults = {option["name"]: option["default"] for option in entry["options"]}
        assert table["options"] == defaults, entry["id"]
