"""During a rolling upgrade an older process may be asked to act at a table that a newer
release created. Its older rules could record events the table's own rules do not give
(and that ``cardroom verify`` then fails), so it decides nothing there: 503
``upgrade-in-progress`` with ``Retry-After``, and nothing stored; a newer process
answers the retry."""

from __future__ import annotations

from typing import Any

import pytest
from httpx import AsyncClient

from service.write import handler
from tests.support.api import OPERATOR, bearer, ok
from tests.support.refusals import assert_problem, stored


async def seated_pitch(client: AsyncClient) -> tuple[str, list[str]]:
    table = ok(await client.post("/tables", json={"game": "pitch", "seats": 2}), 201)["id"]
    seats = [f"/tables/{table}/seats/{seat}" for seat in range(2)]
    tokens = [
        ok(await client.post(s, json={"name": f"P{i}"}), 201)["token"] for i, s in enumerate(seats)
    ]
    return table, tokens


async def a_move(client: AsyncClient, table: str, tokens: list[str]) -> tuple[dict[str, Any], Any]:
    """The seat to act's first legal action, and its headers."""
    view = ok(await client.get(f"/tables/{table}"))
    headers = bearer(tokens[view["to_act"][0]])
    mine = ok(await client.get(f"/tables/{table}", headers=headers))
    return mine["legal_actions"][0], headers


async def test_an_older_process_decides_nothing_at_a_newer_engines_table(
    client: AsyncClient, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    table, tokens = await seated_pitch(client)
    action, headers = await a_move(client, table, tokens)
    before = await stored(database_url, by_requests=True)
    monkeypatch.setattr(handler, "RULES_ENGINE_VERSION", "1.2.0")  # a process of an older release

    refused = await client.post(f"/tables/{table}/actions", json=action, headers=headers)
    problem = assert_problem(refused, 503, "upgrade-in-progress")
    assert refused.headers["retry-after"] == "1"
    assert "1.2.0" in problem["detail"]
    paused = await client.post(f"/tables/{table}/pause", headers=OPERATOR)
    assert_problem(paused, 503, "upgrade-in-progress")
    assert await stored(database_url, by_requests=True) == before

    monkeypatch.undo()  # the retry reaches a process of the table's release
    ok(await client.post(f"/tables/{table}/actions", json=action, headers=headers))
