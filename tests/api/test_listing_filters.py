"""The listings' filters take the values the OpenAPI document lists, and nothing else: no
parameter of the document is nullable (a query string cannot carry JSON ``null``), and
the text ``null``, which the framework read as no filter at all, is refused as any value
outside the list is."""

from __future__ import annotations

from typing import Any

import pytest

from service.http.spec import spec

SPEC = spec()
FILTERS = [
    ("/tables", "game", "pitch"),
    ("/tables", "status", "playing"),
    ("/tournaments", "game", "pitch"),
    ("/tournaments", "status", "open"),
    ("/tournaments", "format", "swiss"),
]


def test_no_parameter_of_the_document_may_be_null() -> None:
    for path, operations in SPEC["paths"].items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                schema = parameter.get("schema", {})
                kinds = schema.get("type")
                where = f"{method} {path} {parameter['name']}"
                assert "null" not in (kinds if isinstance(kinds, list) else [kinds]), where
                assert None not in schema.get("enum", []), where


@pytest.mark.parametrize(("path", "name", "valid"), FILTERS)
async def test_a_filter_takes_its_listed_values_only(
    client: Any, path: str, name: str, valid: str
) -> None:
    assert (await client.get(f"{path}?{name}={valid}")).status_code == 200
    for value in ("null", "", "Pitch", "none"):
        answer = await client.get(f"{path}?{name}={value}")
        assert answer.status_code == 400, (name, value, answer.text)
        assert answer.json()["code"] == "malformed-request"
