"""Loose input (DESIGN 12): every malformed request is a problem that changes nothing.

The limits hold on every operation that takes a body; each refusal is checked for its
status, its problem ``code`` and for leaving the store as it was.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
import subprocess
import unicodedata
from collections.abc import AsyncIterator
from typing import Any, NamedTuple

import psycopg
import pytest
from httpx import Response
from hypothesis import given
from hypothesis import strategies as st

from domain.cards import standard_pack
from service.http.asyncapi import document as asyncapi_document
from service.http.limits import decode_json
from service.http.problems import ApiProblem
from service.http.schemas import TEXT
from service.http.spec import spec
from tests.support.api import OPERATOR, bearer, new_table, ok, seat_all

MiB = 1024 * 1024
JSON = {"content-type": "application/json"}


class Target(NamedTuple):
    """An operation that takes a body, and a body it accepts as it is."""

    path: str
    body: dict[str, Any]
    headers: dict[str, str]


async def make_targets(client: Any) -> dict[str, Target]:
    waiting = await new_table(client)
    playing = await new_table(client)
    tokens = await seat_all(client, playing["id"], 4)
    first = ok(await client.get(f"/tables/{playing['id']}"))["to_act"][0]
    tournament = ok(
        await client.post(
            "/tournaments", json={"game": "forty-five", "name": "Spring"}, headers=OPERATOR
        ),
        201,
    )
    return {
        "createTable": Target("/tables", {"game": "forty-five", "seats": 4}, {}),
        "takeSeat": Target(f"/tables/{waiting['id']}/seats/0", {"name": "Ann"}, {}),
        "postAction": Target(
            f"/tables/{playing['id']}/actions", {"type": "pass"}, bearer(tokens[first])
        ),
        "createTournament": Target(
            "/tournaments", {"game": "forty-five", "name": "Summer"}, OPERATOR
        ),
        "createTournamentTable": Target(
            f"/tournaments/{tournament['id']}/tables",
            {"players": ["Ann", "Bob", "Cy", "Di"]},
            OPERATOR,
        ),
    }


OPERATIONS = [
    "createTable",
    "takeSeat",
    "postAction",
    "createTournament",
    "createTournamentTable",
]


@pytest.fixture(scope="module")
async def targets(client: Any) -> dict[str, Target]:
    """Shared by the tests that only send refused requests (they change nothing)."""
    return await make_targets(client)


@pytest.fixture
async def fresh_targets(client: Any) -> dict[str, Target]:
    """For tests whose requests are accepted."""
    return await make_targets(client)


async def stored(database_url: str) -> tuple[int, ...]:
    """How many events, tables, seat tokens and tournaments the store holds."""
    async with await psycopg.AsyncConnection.connect(database_url) as conn:
        cur = await conn.execute(
            "SELECT (SELECT count(*) FROM events), (SELECT count(*) FROM tables),"
            " (SELECT count(*) FROM seat_tokens), (SELECT count(*) FROM tournaments)"
        )
        row = await cur.fetchone()
    assert row is not None
    return tuple(int(n) for n in row)


@pytest.fixture
async def unchanged(database_url: str) -> AsyncIterator[None]:
    """The test's requests leave the store as it was."""
    before = await stored(database_url)
    yield
    assert await stored(database_url) == before, "a refused request changed the store"


def assert_problem(response: Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    problem: dict[str, Any] = response.json()
    assert problem["status"] == status and problem["code"] == code, problem
    assert problem["type"].endswith("/" + code)
    return problem


async def send(
    client: Any, target: Target, content: bytes | Any, headers: dict[str, str | None]
) -> Response:
    sent = {**target.headers, **{k: v for k, v in headers.items() if v is not None}}
    return await client.post(target.path, content=content, headers=sent)  # type: ignore[no-any-return]


def padded(body: dict[str, Any], size: int = 0) -> bytes:
    """``body`` as JSON, padded with trailing spaces to ``size`` bytes (if it is shorter)."""
    text = json.dumps(body).encode()
    return text + b" " * (size - len(text))


# --- size --------------------------------------------------------------------------------


@pytest.mark.parametrize("operation", OPERATIONS)
async def test_a_body_over_1_mib_is_refused_with_413(
    client: Any, targets: dict[str, Target], operation: str, unchanged: None
) -> None:
    target = targets[operation]
    response = await send(client, target, padded(target.body, MiB + 1), JSON)
    problem = assert_problem(response, 413, "payload-too-large")
    assert "1 MiB" in problem["detail"]


async def test_a_body_of_exactly_1_mib_is_read(
    client: Any, fresh_targets: dict[str, Target]
) -> None:
    target = fresh_targets["createTable"]
    response = await send(client, target, padded(target.body, MiB), JSON)
    assert response.status_code == 201, response.text


# --- media type --------------------------------------------------------------------------


@pytest.mark.parametrize("operation", OPERATIONS)
@pytest.mark.parametrize(
    "content_type",
    [
        None,
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/problem+json",
        "application/merge-patch+json",
        "application/json; charset=latin-1",
    ],
)
async def test_a_body_that_is_not_application_json_is_refused_with_415(
    client: Any,
    targets: dict[str, Target],
    operation: str,
    content_type: str | None,
    unchanged: None,
) -> None:
    target = targets[operation]
    response = await send(client, target, padded(target.body), {"content-type": content_type})
    problem = assert_problem(response, 415, "unsupported-media-type")
    assert "application/json" in problem["detail"]


@pytest.mark.parametrize(
    "content_type",
    ["application/json; charset=utf-8", "Application/JSON", 'application/json;charset="UTF-8"'],
)
async def test_application_json_with_parameters_is_accepted(
    client: Any, fresh_targets: dict[str, Target], content_type: str
) -> None:
    for operation in OPERATIONS:
        target = fresh_targets[operation]
        response = await send(client, target, padded(target.body), {"content-type": content_type})
        assert response.status_code in (200, 201), (operation, response.text)


async def test_a_missing_body_without_a_content_type_is_malformed(
    client: Any, targets: dict[str, Target], unchanged: None
) -> None:
    response = await send(client, targets["createTable"], b"", {})
    assert_problem(response, 400, "malformed-request")


def test_every_operation_with_a_body_documents_its_limits() -> None:
    for path, item in spec()["paths"].items():
        for method, operation in item.items():
            if "requestBody" not in operation:
                continue
            assert list(operation["requestBody"]["content"]) == ["application/json"], path
            assert {"413", "415"} <= operation["responses"].keys(), f"{method} {path}"
            assert operation["operationId"] in OPERATIONS, "a new body operation: test it here"


# --- nesting -----------------------------------------------------------------------------


def nested(levels: int) -> bytes:
    """An object holding arrays nested so that the document is ``levels`` deep."""
    inner = levels - 1
    return b'{"name": ' + b"[" * inner + b"]" * inner + b"}"


@pytest.mark.parametrize("operation", OPERATIONS)
@pytest.mark.parametrize("levels", [65, 500, 100_000])
async def test_json_nested_deeper_than_64_levels_is_refused(
    client: Any,
    targets: dict[str, Target],
    operation: str,
    levels: int,
    unchanged: None,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO):
        response = await send(client, targets[operation], nested(levels), JSON)
    problem = assert_problem(response, 400, "malformed-request")
    assert "deeper than 64" in problem["detail"]
    logged = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not logged, "a refused body logged an error"


async def test_json_nested_64_levels_deep_is_read(
    client: Any, targets: dict[str, Target], unchanged: None
) -> None:
    """64 levels pass the limit (and the schema refuses the arrays)."""
    response = await send(client, targets["takeSeat"], nested(64), JSON)
    problem = assert_problem(response, 400, "malformed-request")
    assert "deeper" not in problem["detail"] and problem["errors"][0]["key"] == "name"


async def test_brackets_inside_strings_are_not_nesting(
    client: Any, fresh_targets: dict[str, Target]
) -> None:
    body = {"game": "forty-five", "name": "[" * 70 + "{" * 29}
    target = fresh_targets["createTournament"]
    response = await send(client, target, json.dumps(body).encode(), JSON)
    assert response.status_code == 201, response.text


def alternating(levels: int) -> Any:
    """Objects and arrays in turn, ``levels`` deep."""
    document: Any = 1
    for level in range(levels):
        document = {"a": document} if level % 2 else [document]
    return document


def test_objects_and_arrays_count_alike_towards_the_depth() -> None:
    assert decode_json(json.dumps(alternating(64)).encode()) == alternating(64)
    with pytest.raises(ApiProblem, match="deeper than 64"):
        decode_json(json.dumps(alternating(65)).encode())


def test_a_wide_shallow_document_is_not_deep() -> None:
    wide = [[{"a": [1]}] for _ in range(10_000)]
    assert decode_json(json.dumps(wide).encode()) == wide


# --- duplicate keys ----------------------------------------------------------------------


def with_first_key_twice(body: dict[str, Any]) -> bytes:
    """``body`` as JSON with its first member written twice, with the same value."""
    key, value = next(iter(body.items()))
    return f"{{{json.dumps(key)}: {json.dumps(value)}, ".encode() + json.dumps(body)[1:].encode()


@pytest.mark.parametrize("operation", OPERATIONS)
async def test_a_key_written_twice_is_refused(
    client: Any, targets: dict[str, Target], operation: str, unchanged: None
) -> None:
    target = targets[operation]
    response = await send(client, target, with_first_key_twice(target.body), JSON)
    problem = assert_problem(response, 400, "malformed-request")
    assert f'"{next(iter(target.body))}"' in problem["detail"]


@pytest.mark.parametrize(
    ("operation", "body"),
    [
        pytest.param(
            "createTable", b'{"game": "pitch", "game": "forty-five", "seats": 4}', id="last wins"
        ),
        pytest.param(
            "createTable",
            b'{"game": "pitch", "seats": 4, "options": {"low_point": "dealt", "low_point": "won"}}',
            id="nested object",
        ),
        pytest.param(
            "createTable", b'{"game": "pitch", "g\\u0061me": "pitch", "seats": 4}', id="escaped"
        ),
        pytest.param("postAction", b'{"type": "bid", "amount": 5, "amount": 20}', id="command"),
        pytest.param("takeSeat", b'{"name": "Ann", "name": "Bob"}', id="name"),
    ],
)
async def test_duplicate_keys_are_refused_wherever_they_are(
    client: Any, targets: dict[str, Target], operation: str, body: bytes, unchanged: None
) -> None:
    response = await send(client, targets[operation], body, JSON)
    problem = assert_problem(response, 400, "malformed-request")
    assert "twice" in problem["detail"]


async def test_the_same_key_in_sibling_objects_is_no_duplicate(
    client: Any, fresh_targets: dict[str, Target]
) -> None:
    deck = {"deck": list(standard_pack())}
    body = {"game": "forty-five", "seats": 4, "deals": [deck, deck]}
    response = await client.post("/tables", json=body, headers=OPERATOR)
    assert response.status_code == 201, response.text


async def test_keys_inside_strings_are_no_duplicates(
    client: Any, fresh_targets: dict[str, Target]
) -> None:
    target = fresh_targets["takeSeat"]
    response = await send(client, target, json.dumps({"name": 'A "name": B'}).encode(), JSON)
    assert response.status_code == 201, response.text


STRINGS = st.text(st.characters(exclude_categories=["Cs"]), max_size=8) | st.sampled_from(
    ['"', "\\", '\\"', "\\\\", '":', "[{", "}]"]
)
DOCUMENTS = st.recursive(
    st.none() | st.booleans() | st.integers() | STRINGS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(STRINGS, inner, max_size=4),
    max_leaves=30,
)


@given(DOCUMENTS, st.booleans())
def test_any_document_within_the_limits_decodes_as_it_is(document: Any, ascii: bool) -> None:
    assert decode_json(json.dumps(document, ensure_ascii=ascii).encode()) == document


@given(st.dictionaries(STRINGS, DOCUMENTS, min_size=1, max_size=4), DOCUMENTS)
def test_any_object_with_a_key_written_twice_is_refused(
    members: dict[str, Any], outer: Any
) -> None:
    text = with_first_key_twice(members)
    wrapped = b"[" + json.dumps(outer).encode() + b', {"x": ' + text + b"}]"
    for body in (text, wrapped):
        with pytest.raises(ApiProblem, match="written twice"):
            decode_json(body)


async def test_an_integral_float_is_an_integer_as_json_schema_says(
    client: Any, fresh_targets: dict[str, Target]
) -> None:
    target = fresh_targets["postAction"]
    half = await send(client, target, b'{"type": "bid", "amount": 20.5}', JSON)
    assert_problem(half, 400, "malformed-request")
    whole = await send(client, target, b'{"type": "bid", "amount": 20.0}', JSON)
    assert whole.status_code == 200, whole.text


# --- paths -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        pytest.param("/docs/assets/x%00", id="NUL"),
        pytest.param("/docs/assets/swagger-ui.css%00.js", id="NUL before a suffix"),
        pytest.param("/docs/assets/" + "a" * 300, id="name too long"),
        pytest.param("/docs/assets/favicon-32x32.png/x", id="a file as a directory"),
    ],
)
async def test_an_asset_path_no_file_can_have_is_not_found(
    client: Any, path: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO):
        response = await client.get(path)
    assert_problem(response, 404, "not-found")
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


# --- patterns ----------------------------------------------------------------------------


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
    assert "matching regex" in problem["detail"], problem


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
        assert_problem(response, 400, "malformed-request")


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
