"""Text in requests (DESIGN 12): no pattern takes a trailing newline, names refuse
control and format characters, and every published pattern means the same to the server
(Python's ``re``) as to clients validating by the document (ECMA-262)."""

from __future__ import annotations

import json
import re
import secrets
import shutil
import subprocess
import unicodedata
from typing import Any
from urllib.parse import quote

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from litestar import Litestar

from service.http.asyncapi import document as asyncapi_document
from service.http.round_schemas import NewEntry
from service.http.schemas import TEXT, ReplaceSeat, TakeSeat, TournamentTable
from service.http.spec import spec
from tests.support.api import new_table, ok
from tests.support.refusals import JSON, Target, assert_problem, send


@pytest.mark.parametrize(
    ("operation", "body"),
    [
        pytest.param("takeSeat", {"name": "Ann\n"}, id="name"),
        pytest.param("createTournament", {"game": "forty-five", "name": "Fall\n"}, id="tournament"),
        pytest.param(
            "createTournamentTable", {"players": ["Ann\n", "Bob", "Cy", "Di"]}, id="player"
        ),
        pytest.param("postAction", {"type": "play", "card": "5S\n"}, id="card"),
        pytest.param("postAction", {"type": "name_trump", "suit": "S\n"}, id="suit"),
    ],
)
async def test_a_trailing_newline_is_refused_in_a_body(
    client: Any, targets: dict[str, Target], operation: str, body: dict[str, Any], unchanged: None
) -> None:
    """Python's ``$`` also matches before a final newline; the patterns must not."""
    response = await send(client, targets[operation], json.dumps(body).encode(), JSON)
    problem = assert_problem(response, 400, "malformed-request")
    # A name's pattern is said in words; the others are quoted.
    assert "matching regex" in problem["detail"] or "visible text" in problem["detail"], problem


@pytest.mark.parametrize(
    "query",
    [
        "player=Ann%0A",
        "cursor=5%0A",
        "tournament=00000000-0000-0000-0000-000000000000%0A",
    ],
)
async def test_a_trailing_newline_is_refused_in_a_query(client: Any, query: str) -> None:
    response = await client.get(f"/tables?{query}")
    assert_problem(response, 400, "malformed-request")


@pytest.mark.parametrize("player", ["%FF", "Ann%C3", "%C3%28"], ids=["ff", "cut", "overlong"])
async def test_a_query_that_is_not_utf8_is_refused(client: Any, player: str) -> None:
    """Read leniently, each would be a name with U+FFFD in it, which nobody sent."""
    response = await client.get(f"/tables?player={player}")
    problem = assert_problem(response, 400, "malformed-request")
    assert "UTF-8" in problem["detail"]


async def test_a_query_in_utf8_is_read_as_sent(client: Any) -> None:
    response = await client.get("/tables?player=Ren%C3%A9e")
    assert response.status_code == 200, response.text


async def test_a_name_composed_or_decomposed_is_one_name(client: Any) -> None:
    """Typed on two keyboards, one name arrives composed ("é") or decomposed ("e" and a
    combining acute): it was two players in the standings and at the ``player`` filter,
    and two seats the console could not tell apart. Each is taken composed (NFC)."""
    suffix = secrets.token_hex(4)
    composed, decomposed = f"Jos\u00e9 {suffix}", f"Jose\u0301 {suffix}"
    first, second = await new_table(client, "pitch", 2), await new_table(client, "pitch", 2)
    for table, name in ((first, composed), (second, decomposed)):
        ok(await client.post(f"/tables/{table['id']}/seats/0", json={"name": name}), 201)
    for name in (composed, decomposed):
        listed = ok(await client.get(f"/tables?player={quote(name)}"))["tables"]
        assert {t["id"] for t in listed} == {first["id"], second["id"]}, name
    assert ok(await client.get(f"/tables/{second['id']}"))["seats"][0]["name"] == composed


async def test_a_name_stored_as_sent_before_is_found_by_either_form(
    client: Any, app: Litestar
) -> None:
    """Names were stored as sent before they were taken composed: the filter, which took
    the query composed only, no longer found a name stored decomposed by the spelling
    that found it before. A table holding both forms is listed once."""
    decomposed = f"Jose\u0301 {secrets.token_hex(4)}"
    composed = unicodedata.normalize("NFC", decomposed)
    table = await new_table(client, "pitch", 2)
    await app.state.service.take_seat(table["id"], 0, decomposed)  # as an older release did

    async def listed(name: str) -> list[str]:
        return [t["id"] for t in ok(await client.get(f"/tables?player={quote(name)}"))["tables"]]

    assert await listed(decomposed) == [table["id"]]
    ok(await client.post(f"/tables/{table['id']}/seats/1", json={"name": composed}), 201)
    assert await listed(decomposed) == await listed(composed) == [table["id"]]


async def test_a_name_that_would_grow_past_its_length_composed_is_kept_as_sent(
    client: Any,
) -> None:
    """U+1D160 is three code points composed (NFC): forty of them made a stored name of
    120, which the filter, like every body, refuses."""
    name = "\U0001d160" * 40
    table = await new_table(client, "pitch", 2)
    ok(await client.post(f"/tables/{table['id']}/seats/0", json={"name": name}), 201)
    assert ok(await client.get(f"/tables/{table['id']}"))["seats"][0]["name"] == name
    listed = ok(await client.get(f"/tables?player={quote(name)}"))["tables"]
    assert [t["id"] for t in listed] == [table["id"]]


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        (TakeSeat, {"name": "Jose\u0301"}),
        (ReplaceSeat, {"name": "Jose\u0301"}),
        (NewEntry, {"name": "Jose\u0301"}),
        (NewEntry, {"names": ["Jose\u0301", "Zoe\u0308"]}),
        (TournamentTable, {"players": ["Jose\u0301", "Zoe\u0308"]}),
    ],
)
def test_every_body_that_names_players_takes_the_names_composed(
    body: type[msgspec.Struct], fields: dict[str, Any]
) -> None:
    decoded = msgspec.json.decode(json.dumps(fields), type=body)
    for field, value in fields.items():
        expected = (
            unicodedata.normalize("NFC", value)
            if isinstance(value, str)
            else [unicodedata.normalize("NFC", v) for v in value]
        )
        assert getattr(decoded, field) == expected != value


def published_patterns(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {node["pattern"]} if isinstance(node.get("pattern"), str) else set()
        return found.union(*(published_patterns(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(published_patterns(v) for v in node))
    return set()


PUBLISHED = sorted(published_patterns(spec()) | published_patterns(asyncapi_document()))


@pytest.mark.parametrize("pattern", PUBLISHED)
@given(data=st.data())
def test_no_published_pattern_takes_a_trailing_newline(pattern: str, data: st.DataObject) -> None:
    """A value that matches, with a newline added, does not — in Python's ``re`` as in
    ECMA-262, where ``$`` only ever matches at the end."""
    value = data.draw(st.from_regex(pattern, fullmatch=True))
    assert re.search(pattern, value)
    assert not re.search(pattern, value + "\n")


# --- names -------------------------------------------------------------------------------

BIDI_AND_ZERO_WIDTH = [
    *range(0x202A, 0x202F),  # embeddings and overrides
    *range(0x2066, 0x206A),  # isolates
    *range(0x200B, 0x2010),  # zero-width space, (non-)joiner, direction marks
    0x2060,  # word joiner
    0xFEFF,  # zero-width no-break space (byte order mark)
]


@pytest.mark.parametrize("code", BIDI_AND_ZERO_WIDTH, ids=lambda c: f"U+{c:04X}")
async def test_bidi_and_zero_width_characters_are_refused_in_names(
    client: Any, targets: dict[str, Target], code: int, unchanged: None
) -> None:
    for name in (f"Ann{chr(code)}Bob", f"{chr(code)}Ann", f"Ann{chr(code)}"):
        response = await send(
            client, targets["takeSeat"], json.dumps({"name": name}).encode(), JSON
        )
        problem = assert_problem(response, 400, "malformed-request")
        assert problem["detail"].startswith("name: Expected visible text: no control, bidi")
        assert "regex" not in json.dumps(problem)


# Unicode's default-ignorable code points of the BMP (DerivedCoreProperties.txt) that are
# no format character, and the blank Braille pattern: each shows as nothing.
BLANK = [0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x2800, 0x3164, 0xFFA0, *range(0xFFF0, 0xFFF9)]


def test_characters_that_show_as_nothing_are_refused_in_names() -> None:
    for code in BLANK:
        for name in (f"A{chr(code)}B", f"{chr(code)}AB", f"AB{chr(code)}", chr(code)):
            assert not re.search(TEXT, name), f"U+{code:04X} in {name!r}"


@pytest.mark.parametrize(
    "name", ["Ann \u2764\ufe0f", "\u1828\u180b\u1822", "\u845b\U000e0100"], ids=repr
)
def test_variation_selectors_are_accepted_in_names(name: str) -> None:
    """An emoji as phones send it, Mongolian with its own selector, an ideograph variant."""
    assert re.search(TEXT, name)


SELECTORS = [*range(0x180B, 0x180E), 0x180F, *range(0xFE00, 0xFE10)]


@pytest.mark.parametrize("code", SELECTORS, ids=lambda c: f"U+{c:04X}")
def test_a_name_never_begins_with_a_variation_selector(code: int) -> None:
    """Alone, or first, a selector selects nothing: such a name shows as nothing."""
    for name in (chr(code), chr(code) * 40, f"{chr(code)}Ann"):
        assert not re.search(TEXT, name), f"U+{code:04X} in {name!r}"
    assert re.search(TEXT, f"A{chr(code)}")


REFUSED_CATEGORIES = {"Cc", "Cf", "Zl", "Zp"}  # controls, format characters, separators
REFUSED = [chr(c) for c in range(0x10000) if unicodedata.category(chr(c)) in REFUSED_CATEGORIES]


def test_every_control_and_format_character_of_the_bmp_is_refused_in_names() -> None:
    """Anywhere in a name, by the published pattern, in Python as in ECMA-262."""
    for char in REFUSED:
        for name in (f"A{char}B", f"{char}AB", f"AB{char}", char):
            assert not re.search(TEXT, name), f"U+{ord(char):04X} in {name!r}"


@pytest.mark.parametrize(
    "name",
    ["José", "Zoë Ann", "李小龍", "أحمد", "דוד", "O'Neil-Smith", "Ann 🂡", "a b  c", "[x]"],
)
def test_names_in_any_script_are_accepted(name: str) -> None:
    assert re.search(TEXT, name)


@pytest.mark.parametrize("name", [" Ann", "Ann ", "\u00a0Ann", "Ann\u3000", ""])
def test_a_name_neither_starts_nor_ends_with_a_space(name: str) -> None:
    assert not re.search(TEXT, name)


_ECMA_CHECK = """
const {patterns, samples} = JSON.parse(require("fs").readFileSync(0, "utf8"));
const verdicts = {};
for (const p of patterns) for (const flags of ["", "u"])
  verdicts[flags + "/" + p] = samples.map((s) => new RegExp(p, flags).test(s));
process.stdout.write(JSON.stringify(verdicts));
"""


def test_the_published_patterns_mean_the_same_in_ecma_262() -> None:
    """What clients validating by the document accept (Node, with and without the ``u``
    flag) is what the server accepts."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    spaces = {"Cc", "Cf", "Zl", "Zp", "Zs"}
    odd = [chr(c) for c in range(0x10000) if unicodedata.category(chr(c)) in spaces]
    samples = [
        *[text for c in odd for text in (f"A{c}B", f"{c}B", f"A{c}")],
        *["Ann", "José", "Ann 🂡", "A\U000e0041B", "5S", "5S\n", "S", "12", "12\n", "0" * 64],
        *["\ufe0f", "\ufe0fAnn", "Ann \u2764\ufe0f", "\u180b"],
        "00000000-0000-0000-0000-000000000000",
    ]
    found = subprocess.run(
        [node, "-e", _ECMA_CHECK],
        input=json.dumps({"patterns": PUBLISHED, "samples": samples}),
        capture_output=True,
        text=True,
        check=True,
    )
    verdicts = json.loads(found.stdout)
    for pattern in PUBLISHED:
        python = [bool(re.search(pattern, s)) for s in samples]
        for flags in ("", "u"):
            ecma = verdicts[f"{flags}/{pattern}"]
            differ = [s for s, a, b in zip(samples, python, ecma, strict=True) if a != b]
            assert not differ, (pattern, flags, differ[:5])
