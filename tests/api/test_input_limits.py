"""Loose bodies (DESIGN 12): each limit is a problem with its own code, on every operation
that takes a body, and changes nothing (the ``unchanged`` fixture checks the store).
"""

from __future__ import annotations

import gzip
import json
import logging
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.cards import standard_pack
from service.http.limits import decode_json
from service.http.problems import ApiProblem
from service.http.spec import spec
from tests.support.api import OPERATOR
from tests.support.refusals import JSON, OPERATIONS, Target, assert_problem, send

MiB = 1024 * 1024


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


@pytest.mark.parametrize("operation", OPERATIONS)
async def test_a_compressed_body_is_refused_with_415_naming_what_is_taken(
    client: Any, targets: dict[str, Target], operation: str, unchanged: None
) -> None:
    target = targets[operation]
    body = gzip.compress(padded(target.body))
    headers = {"content-type": "application/json", "content-encoding": "gzip"}
    response = await send(client, target, body, headers)
    problem = assert_problem(response, 415, "unsupported-media-type")
    assert "Content-Encoding: gzip" in problem["detail"]
    assert response.headers["accept-encoding"] == "identity"
    assert response.headers["accept-post"] == "application/json"  # as every 415 documents


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
    wide = [[{"a": [1]}] for _ in range(1_300)]  # 3,901 arrays and objects
    assert decode_json(json.dumps(wide).encode()) == wide


# --- arrays and objects ------------------------------------------------------------------


def holding(containers: int) -> bytes:
    """An object whose ``name`` is an array of empty arrays: ``containers`` in all."""
    return b'{"name": [' + b",".join([b"[]"] * (containers - 2)) + b"]}"


@pytest.mark.parametrize("operation", OPERATIONS)
async def test_a_body_of_more_than_4096_arrays_and_objects_is_refused_before_decoding(
    client: Any, targets: dict[str, Target], operation: str, unchanged: None
) -> None:
    """A megabyte of small arrays took a third of a second to decode before any limit
    refused it; counted in the text, it costs next to nothing."""
    response = await send(client, targets[operation], holding(4097), JSON)
    problem = assert_problem(response, 400, "malformed-request")
    assert problem["detail"] == "the body holds more than 4096 arrays and objects"


async def test_a_body_of_4096_arrays_and_objects_is_read(
    client: Any, targets: dict[str, Target], unchanged: None
) -> None:
    """4,096 pass the limit (and the schema refuses the arrays)."""
    response = await send(client, targets["takeSeat"], holding(4096), JSON)
    problem = assert_problem(response, 400, "malformed-request")
    assert "arrays and objects" not in problem["detail"]
    assert problem["errors"][0]["key"] == "name"


def test_brackets_in_strings_are_not_counted_as_arrays() -> None:
    document = {"name": "[]" * 5000, "more": [["[{"] * 3] * 4000}
    assert decode_json(json.dumps(document).encode()) == document


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


@pytest.mark.parametrize("path", ["/docs/no-such-page", "/docs/x%00", "/docs/a/b/c"])
async def test_an_unknown_docs_page_is_a_not_found_problem(client: Any, path: str) -> None:
    """Like every other unknown path (Litestar answers these with an HTML page)."""
    assert_problem(await client.get(path), 404, "not-found")
