"""Schemathesis over every operation: no 5xx, and every response matches the spec.

Generated requests hit random ids (404s) and random bodies; each operation that takes a
table is also run against real tables — with a real seat token for ``postAction`` — so
the success and refusal paths are checked against the document too.
"""

from __future__ import annotations

import random

import schemathesis
from hypothesis import HealthCheck, settings
from litestar.testing import TestClient
from schemathesis.generation.modes import GenerationMode

from domain.registry import GAMES
from service.http.app import create_app
from tests.conftest import OPERATOR_TOKEN, make_settings
from tests.support import services
from tests.support.audit import nonconforming_lines

DATABASE = services.fresh_database("st_")
APP = create_app(make_settings(DATABASE))


def _real_tables() -> list[tuple[str, list[str]]]:
    """One seated table per game (another app instance: one lifespan per app object)."""
    found = []
    with TestClient(create_app(make_settings(DATABASE))) as client:
        for game_id, game in GAMES.items():
            table = client.post("/tables", json={"game": game_id, "seats": game.min_seats})
            table_id = table.json()["id"]
            tokens = [
                client.post(f"/tables/{table_id}/seats/{s}", json={"name": f"P{s}"}).json()["token"]
                for s in range(game.min_seats)
            ]
            found.append((table_id, tokens))
    return found


REAL_TABLES = _real_tables()
# Operator-only reads of a table: also run with the operator token on a real table.
OPERATOR_READS = ("/tables/{table_id}/export", "/tables/{table_id}/replay")


def export_lines_conform(
    ctx: object, response: schemathesis.Response, case: schemathesis.Case
) -> None:
    """An NDJSON export is one document per line: each must match the line schema."""
    if response.status_code != 200 or "ndjson" not in response.headers.get("content-type", [""])[0]:
        return
    problems = nonconforming_lines(response.content)
    assert not problems, problems[:3]


# 412 and 422 answer schema-valid requests whose precondition (If-Match) or idempotency
# key does not hold: refusals the spec documents, not validation failures.
config = schemathesis.Config.from_str(
    """
[generation]
max-examples = 30

[checks.positive_data_acceptance]
expected-statuses = ["2XX", "3XX", 401, 403, 404, 409, 412, 422]

# Creating a table ties fields together (a first dealer below the seat count, as many
# players as the game seats, a deck that is a permutation of a pack with duplicates)
# and options with each other (a chip schedule that prices the minimum bid) in ways
# JSON Schema cannot state: a schema-valid body may still be refused with 400.
# The stream stays open until its `timeout`: keep it short here.
[[operations]]
include-operation-id = "streamTable"
parameters = { timeout = 1 }

# Likewise a long-poll whose If-None-Match happens to be current holds for `wait` seconds.
[[operations]]
include-operation-id = "getTable"
parameters = { wait = 1 }

[[operations]]
include-operation-id = ["createTable", "createTournament", "createTournamentTable"]
checks.positive_data_acceptance.expected-statuses = ["2XX", 400, 401, 403, 404]
"""
)
schema = schemathesis.openapi.from_asgi("/docs/openapi.json", APP, config=config)


@schema.parametrize()
@settings(deadline=None, suppress_health_check=list(HealthCheck), max_examples=30)
def test_every_operation_conforms_to_the_spec(case: schemathesis.Case) -> None:
    case.call_and_validate(headers={"Authorization": f"Bearer {OPERATOR_TOKEN}"})
    case.call_and_validate()
    positive = case.meta is not None and case.meta.generation.mode == GenerationMode.POSITIVE
    if "table_id" not in (case.path_parameters or {}) or not positive:
        return
    rng = random.Random(repr(case.body))
    table_id, tokens = rng.choice(REAL_TABLES)
    case.path_parameters["table_id"] = table_id
    case.call_and_validate(headers={"Authorization": f"Bearer {rng.choice(tokens)}"})
    if case.operation.path in OPERATOR_READS:
        case.call_and_validate(
            headers={"Authorization": f"Bearer {OPERATOR_TOKEN}"},
            additional_checks=[export_lines_conform],
        )
