"""Liveness across two server processes (DESIGN 10): a token one process has cached is
refused by it as soon as the other revokes it, and a pause set on one holds commands on
the other."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support.api import bearer, ok
from tests.support.refusals import assert_problem, assert_token_replaced


@pytest.fixture
async def started(clients: list[httpx.AsyncClient]) -> tuple[str, list[str]]:
    """A Forty-Five table seated through the first server: its id and the four tokens."""
    client = clients[0]
    table = ok(await client.post("/tables", json={"game": "forty-five", "seats": 4}), 201)
    tokens = []
    for seat in range(4):
        path = f"/tables/{table['id']}/seats/{seat}"
        tokens.append(ok(await client.post(path, json={"name": f"P{seat}"}), 201)["token"])
    return table["id"], tokens


@pytest.fixture
def operator(servers: tuple[list[str], str]) -> dict[str, str]:
    """The operator's headers, good on either server."""
    return bearer(servers[1])


async def test_a_replacement_on_one_server_revokes_the_token_the_other_had_cached(
    clients: list[httpx.AsyncClient], started: tuple[str, list[str]], operator: dict[str, str]
) -> None:
    a, b = clients
    table_id, tokens = started
    ok(await b.get(f"/tables/{table_id}", headers=bearer(tokens[1])))  # b caches the token
    handed = ok(
        await a.post(f"/tables/{table_id}/seats/1/replace", json={"name": "Eve"}, headers=operator)
    )
    view = await assert_token_replaced(b, table_id, tokens[1], handed["token"], {"type": "leave"})
    assert view["you"] == 1 and view["seats"][1]["name"] == "Eve"


async def test_leave_on_one_server_and_take_over_on_the_other(
    clients: list[httpx.AsyncClient], started: tuple[str, list[str]]
) -> None:
    a, b = clients
    table_id, tokens = started
    ok(await a.get(f"/tables/{table_id}", headers=bearer(tokens[3])))  # a caches the token
    ok(
        await b.post(
            f"/tables/{table_id}/actions", json={"type": "leave"}, headers=bearer(tokens[3])
        )
    )
    assert_problem(
        await a.get(f"/tables/{table_id}", headers=bearer(tokens[3])), 401, "unauthorized"
    )
    granted = ok(await a.post(f"/tables/{table_id}/seats/3", json={"name": "Zoe"}), 201)
    view = ok(await b.get(f"/tables/{table_id}", headers=bearer(granted["token"])))
    assert view["seats"][3] == {
        "seat": 3,
        "name": "Zoe",
        "computer": False,
        "absent": False,
        "vacant": False,
    }


async def test_a_pause_on_one_server_holds_commands_on_the_other(
    clients: list[httpx.AsyncClient], started: tuple[str, list[str]], operator: dict[str, str]
) -> None:
    a, b = clients
    table_id, tokens = started
    seat = ok(await b.get(f"/tables/{table_id}"))["to_act"][0]
    ok(await a.post(f"/tables/{table_id}/pause", headers=operator))
    held = await b.post(
        f"/tables/{table_id}/actions", json={"type": "pass"}, headers=bearer(tokens[seat])
    )
    assert_problem(held, 409, "table-paused")
    ok(await b.post(f"/tables/{table_id}/resume", headers=operator))
    mine: Any = ok(await a.get(f"/tables/{table_id}", headers=bearer(tokens[seat])))
    command = mine["legal_actions"][0]  # the first turn is a bid or a pass
    ok(await a.post(f"/tables/{table_id}/actions", json=command, headers=bearer(tokens[seat])))
