"""Schemathesis over every operation: no 5xx, and every response matches the spec.

Generated requests hit random ids (404s) and random bodies; each operation that takes a
table is also run against real tables — with a real seat token for ``postAction`` — so
the success and refusal paths are checked against the document too.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from litestar import Litestar
from litestar.testing import TestClient
from schemathesis.generation.modes import GenerationMode

from domain.registry import GAMES
from service.http.app import create_app
from service.settings import Settings
from tests.conftest import OPERATOR_TOKEN, make_settings
from tests.support import services
from tests.support.audit import nonconforming_lines

SPEC_PATH = "/docs/openapi.json"
# The schema is read when the module is collected, from an app that is never started:
# serving the OpenAPI document needs no database, so collecting touches no server. The
# requests go to ``served_app``, which the fixtures below give a database of its own.
DOCUMENT_APP = create_app(
    Settings(database_url="postgresql:///unused", redis_url=None, operator_token=OPERATOR_TOKEN)
)


def _served_document(app: Litestar) -> dict[str, Any]:
    """What ``app`` serves at SPEC_PATH (outside ``with``, TestClient runs no lifespan)."""
    response = TestClient(app).get(SPEC_PATH)
    assert response.status_code == 200, response.text
    document: dict[str, Any] = response.json()
    return document


@pytest.fixture(scope="module")
def database() -> str:
    return services.fresh_database("st_")


@pytest.fixture(scope="module")
def served_app(database: str) -> Litestar:
    return create_app(make_settings(database))


@pytest.fixture(scope="module")
def real_tables(database: str) -> list[tuple[str, list[str]]]:
    """One seated table per game (another app instance: one lifespan per app object)."""
    found = []
    with TestClient(create_app(make_settings(database))) as client:
        for game_id, game in GAMES.items():
            table = client.post("/tables", json={"game": game_id, "seats": game.min_seats})
            table_id = table.json()["id"]
            tokens = [
                client.post(f"/tables/{table_id}/seats/{s}", json={"name": f"P{s}"}).json()["token"]
                for s in range(game.min_seats)
            ]
            found.append((table_id, tokens))
    return found


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
include-operation-id = ["streamTable", "streamTournament"]
parameters = { timeout = 1 }

# Likewise a long-poll whose If-None-Match happens to be current holds for `wait` seconds.
[[operations]]
include-operation-id = "getTable"
parameters = { wait = 1 }

# Their Idempotency-Key, reused with another body, is the documented 422.
[[operations]]
include-operation-id = ["createTable", "createTournament", "createTournamentTable"]
checks.positive_data_acceptance.expected-statuses = ["2XX", 400, 401, 403, 404, 422]
"""
)
# As `schemathesis.openapi.from_asgi(SPEC_PATH, app)` loads it, without starting the app.
schema = schemathesis.openapi.from_dict(_served_document(DOCUMENT_APP), config=config)
schema.app = DOCUMENT_APP
schema.location = SPEC_PATH


@schema.parametrize()
@settings(deadline=None, suppress_health_check=list(HealthCheck), max_examples=30)
def test_every_operation_conforms_to_the_spec(
    case: schemathesis.Case, served_app: Litestar, real_tables: list[tuple[str, list[str]]]
) -> None:
    case.call_and_validate(headers={"Authorization": f"Bearer {OPERATOR_TOKEN}"}, app=served_app)
    case.call_and_validate(app=served_app)
    positive = case.meta is not None and case.meta.generation.mode == GenerationMode.POSITIVE
    if "table_id" not in (case.path_parameters or {}) or not positive:
        return
    rng = random.Random(repr(case.body))
    table_id, tokens = rng.choice(real_tables)
    case.path_parameters["table_id"] = table_id
    case.call_and_validate(
        headers={"Authorization": f"Bearer {rng.choice(tokens)}"}, app=served_app
    )
    if case.operation.path in OPERATOR_READS:
        case.call_and_validate(
            headers={"Authorization": f"Bearer {OPERATOR_TOKEN}"},
            additional_checks=[export_lines_conform],
            app=served_app,
        )
