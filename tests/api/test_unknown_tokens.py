"""A token the service does not know is refused (401) by every operation that says so in
the OpenAPI document, the listings too, whatever else the request asks for: a client
with a stale or garbled token learns it at once, wherever it sends it."""

from __future__ import annotations

from typing import Any

import pytest

from service.http.spec import spec
from tests.support.api import OPERATOR, new_table, ok, seat_all

SPEC = spec()
READS = sorted(
    (path, operation["operationId"])
    for path, operations in SPEC["paths"].items()
    for method, operation in operations.items()
    if method == "get" and "401" in operation["responses"]
)


@pytest.fixture(scope="module")
async def ids(client: Any) -> dict[str, str]:
    """A real table and tournament, so that nothing but the token is wrong."""
    table = await new_table(client, "pitch", 2)
    await seat_all(client, table["id"], 2)
    body = {"game": "pitch", "name": "Tokens", "format": "swiss", "rounds": 1}
    tournament = ok(await client.post("/tournaments", json=body, headers=OPERATOR), 201)
    return {"table_id": table["id"], "tournament_id": tournament["id"], "number": "1"}


@pytest.mark.parametrize(("path", "operation"), READS, ids=[op for _, op in READS])
@pytest.mark.parametrize("authorization", ["Bearer not-a-token", "Basic dXNlcjpwYXNz"])
async def test_an_unknown_token_is_refused_by_every_read_that_declares_401(
    client: Any, ids: dict[str, str], path: str, operation: str, authorization: str
) -> None:
    query = "?version=1" if operation == "replayTable" else ""
    answer = await client.get(path.format(**ids) + query, headers={"Authorization": authorization})
    assert answer.status_code == 401, f"{operation}: {answer.status_code} {answer.text[:200]}"
    assert answer.json()["code"] == "unauthorized"
