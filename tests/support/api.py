"""A small client-side helper for API tests: seat players and play from legal_actions."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from httpx import AsyncClient, Response

from tests.conftest import OPERATOR_TOKEN
from tests.support.playout import choose, pick_index

OPERATOR = {"Authorization": f"Bearer {OPERATOR_TOKEN}"}

T = TypeVar("T")


def on_app(client: AsyncClient, call: Callable[[], Awaitable[T]]) -> T:
    """Await ``call()`` on the app's event loop, the test client's portal thread, where
    its requests run: the app's pool and futures belong to that loop, and touching them
    from the test's own loop fails whenever the two contend for a lock."""
    return client.blocking_portal.call(call)  # type: ignore[attr-defined,no-any-return]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def ok(response: Response, status: int = 200) -> Any:
    assert response.status_code == status, f"{response.status_code}: {response.text}"
    return response.json()


async def new_table(
    client: AsyncClient, game: str = "forty-five", seats: int = 4, **extra: Any
) -> dict[str, Any]:
    body = {"game": game, "seats": seats, **extra}
    headers = OPERATOR if {"first_dealer", "deals"} & extra.keys() else {}
    return ok(await client.post("/tables", json=body, headers=headers), 201)  # type: ignore[no-any-return]


async def seat_all(client: AsyncClient, table_id: str, seats: int) -> list[str]:
    tokens = []
    for seat in range(seats):
        granted = ok(
            await client.post(f"/tables/{table_id}/seats/{seat}", json={"name": f"P{seat}"}), 201
        )
        tokens.append(granted["token"])
    return tokens


async def all_events(
    client: AsyncClient, table_id: str, headers: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """Every event the caller may see, following the ``after`` cursor page by page."""
    events: list[dict[str, Any]] = []
    while True:
        after = events[-1]["version"] if events else 0
        path = f"/tables/{table_id}/events?after={after}&limit=1000"
        page = ok(await client.get(path, headers=headers or {}))
        if not page["events"]:
            return events
        events.extend(page["events"])


Picker = Callable[[list[dict[str, Any]], random.Random], int]


async def play_to_end(
    client: AsyncClient,
    table_id: str,
    tokens: list[str],
    rng: random.Random,
    limit: int = 20_000,
    pick: Picker = pick_index,
) -> dict[str, Any]:
    """The seat to act reads its view and sends a legal action, until the game ends.

    ``pick`` chooses among the legal actions (a game may bias it so that games end)."""
    view = ok(await client.get(f"/tables/{table_id}"))
    for _ in range(limit):
        if view["status"] == "finished":
            return view  # type: ignore[no-any-return]
        seat = rng.choice(view["to_act"])
        view = (await random_action(client, table_id, tokens[seat], rng, pick))["table"]
    raise AssertionError("the game did not end")


async def random_action(
    client: AsyncClient,
    table_id: str,
    token: str,
    rng: random.Random,
    pick: Picker = pick_index,
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The seat of ``token`` reads its view and sends one of its legal actions, ``pick``ed
    with ``rng``; the answer."""
    as_seat = {**(headers or {}), **bearer(token)}
    mine = ok(await client.get(f"/tables/{table_id}", headers=as_seat))
    actions = mine["legal_actions"]
    command = choose(actions[pick(actions, rng)], rng)
    answer = ok(await client.post(f"/tables/{table_id}/actions", json=command, headers=as_seat))
    return answer  # type: ignore[no-any-return]
