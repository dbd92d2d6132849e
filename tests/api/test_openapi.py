"""The committed OpenAPI document is what the app serves; it is complete and generator-friendly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from service.http.spec import render_spec, spec

COMMITTED = Path(__file__).resolve().parents[2] / "api_spec" / "openapi.json"


def test_committed_spec_matches_the_app() -> None:
    assert COMMITTED.read_text() == render_spec(), (
        "api_spec/openapi.json is stale: run `cardroom openapi` and commit the result"
    )


async def test_served_spec_is_the_committed_one(client: Any) -> None:
    response = await client.get("/docs/openapi.json")
    assert response.status_code == 200
    assert response.json() == json.loads(COMMITTED.read_text())


def test_every_operation_has_an_id_summary_and_documented_errors() -> None:
    for path, item in spec()["paths"].items():
        for method, operation in item.items():
            assert operation.get("operationId"), f"{method} {path}"
            assert operation.get("summary"), f"{method} {path}"
            for status, response in operation["responses"].items():
                if operation["operationId"] == "readiness":
                    continue  # a 503 readiness answer is a health report, not a problem
                if status.startswith(("4", "5")) and "content" in response:
                    assert "application/problem+json" in response["content"], (
                        f"{method} {path} {status}"
                    )


def closed_objects(node: Any, path: str = "#") -> list[str]:
    """Where ``node`` has an object schema that declares no property and says nothing of
    others: generators read it as always empty (openapi-typescript's
    ``Record<string, never>``)."""
    found = []
    if isinstance(node, dict):
        shaped = {"properties", "additionalProperties", "patternProperties"} & set(node)
        if node.get("type") == "object" and not shaped:
            found.append(path)
        for key, value in node.items():
            found += closed_objects(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, item in enumerate(node):
            found += closed_objects(item, f"{path}/{index}")
    return found


def test_free_form_objects_take_any_property() -> None:
    """A problem's ``context``, a table's ``options`` in its events and an export's
    ``command`` always hold something: typed as always empty, no real answer
    type-checked in TypeScript."""
    asyncapi = json.loads((COMMITTED.parent / "asyncapi.json").read_text())
    assert closed_objects(spec()) == []
    assert closed_objects(asyncapi) == []


def test_the_command_union_carries_a_discriminator() -> None:
    body = spec()["paths"]["/tables/{table_id}/actions"]["post"]["requestBody"]
    schema = body["content"]["application/json"]["schema"]
    assert schema["discriminator"]["propertyName"] == "type"
    mapping = schema["discriminator"]["mapping"]
    assert {"pass", "bid", "hold", "name_trump", "exchange", "play"} <= mapping.keys()
    assert sorted(mapping.values()) == sorted(ref["$ref"] for ref in schema["oneOf"])


def test_strict_request_bodies_forbid_unknown_fields() -> None:
    schemas = spec()["components"]["schemas"]
    for name in ("CreateFortyFive", "FortyFiveDeck", "TakeSeat", "Bid", "Play"):
        assert schemas[name]["additionalProperties"] is False, name


def test_component_names_are_the_types_own() -> None:
    """Two games' types with one name would be renamed ``module_Name`` for clients."""
    clashes = [name for name in spec()["components"]["schemas"] if "_" in name]
    assert not clashes, f"rename these types so each name is unique: {clashes}"


# Operations that answer without the database (readiness reports it down in its own body;
# the game catalogue is the registry's).
WITHOUT_DATABASE = {"health", "readiness", "metrics", "listGames", "getGame"}


# Every operation that decides at an existing table (TableService.settle).
COMMANDS_AT_TABLES = {
    "postAction",
    "takeSeat",
    "replaceSeat",
    "abortTable",
    "pauseTable",
    "resumeTable",
}


def test_every_operation_on_the_database_documents_503_with_retry_after() -> None:
    for path, item in spec()["paths"].items():
        for method, operation in item.items():
            if operation["operationId"] in WITHOUT_DATABASE:
                continue
            where = f"{method} {path}"
            response = operation["responses"].get("503")
            assert response, f"{where}: no 503"
            assert response["headers"]["Retry-After"]["schema"]["type"] == "integer", where
            content = response["content"]["application/problem+json"]
            codes = {example["value"]["code"] for example in content["examples"].values()}
            # A move past its deadline may also wait for an outage's time to come back,
            # and a resume for a timekeeper to keep the clocks.
            recovering = (
                {"clocks-recovering"}
                if operation["operationId"] in {"postAction", "resumeTable"}
                else set()
            )
            # A command at an existing table, or a round's pairing, may reach a process of
            # an older release.
            upgrading = (
                {"upgrade-in-progress"}
                if operation["operationId"] in {*COMMANDS_AT_TABLES, "pairRound"}
                else set()
            )
            assert codes == {"database-unavailable", *recovering, *upgrading}, where
