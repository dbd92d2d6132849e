"""Seat tokens new to a process are looked up in Postgres; a burst of them shares
statements (service.http.auth, service.read.loads)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from service.http.auth import Authenticator
from service.http.problems import ApiProblem
from service.read.loads import Batched
from service.write.store import EventStore
from tests.support.api import new_table, on_app, seat_all


async def test_a_burst_of_new_seat_tokens_is_looked_up_in_shared_statements(client: Any) -> None:
    seated = []
    for _ in range(4):
        table = await new_table(client)
        seated += [
            (table["id"], seat, t) for seat, t in enumerate(await seat_all(client, table["id"], 4))
        ]
    store: EventStore = client.app.state.store
    asked: list[int] = []

    async def counted(digests: Sequence[bytes]) -> dict[bytes, tuple[str, int, int]]:
        asked.append(len(digests))
        return await store.seats_for_tokens(digests)

    # A process that has never seen these tokens (its cache is empty).
    auth = Authenticator(store, "not-the-operator")
    auth.lookups = Batched(counted, "test-tokens", in_flight=1)

    def identify_all() -> Any:
        return asyncio.gather(*(auth.identify(f"Bearer {t}") for _, _, t in seated))

    callers = on_app(client, identify_all)

    assert [(c.kind, c.table, c.seat, c.epoch) for c in callers] == [
        ("seat", table, seat, 0) for table, seat, _ in seated
    ]
    assert sum(asked) == len(seated) and len(asked) <= 2, asked
    # Known now: asked again, they cost no statement.
    on_app(client, identify_all)
    assert sum(asked) == len(seated)


async def test_an_unknown_token_in_a_burst_is_refused_alone(client: Any) -> None:
    table = await new_table(client)
    tokens = await seat_all(client, table["id"], 4)
    auth = Authenticator(client.app.state.store, "not-the-operator")
    answers = on_app(
        client,
        lambda: asyncio.gather(
            *(auth.identify(f"Bearer {t}") for t in [*tokens, "no-such-token"]),
            return_exceptions=True,
        ),
    )
    assert [a.seat for a in answers[:4]] == [0, 1, 2, 3]  # type: ignore[union-attr]
    refused = answers[4]
    assert isinstance(refused, ApiProblem) and refused.code == "unauthorized"
    with pytest.raises(ApiProblem):
        on_app(client, lambda: auth.identify("Bearer no-such-token"))
