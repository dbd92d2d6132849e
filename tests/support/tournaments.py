"""Helpers of the tournament API tests (DESIGN 14): open an event, enter players, wait
for the computers and the rounds worker to play it out, and read its export."""

from __future__ import annotations

import asyncio
from typing import Any

from service.audit.render import render_tournament
from service.audit.tournament_verify import verify_tournament_lines
from tests.support.api import OPERATOR, bearer, ok

PATIENCE = 240  # seconds an all-computer event may take on a busy two-core machine


async def open_event(client: Any, game: str = "reserve-bridge", **extra: Any) -> dict[str, Any]:
    body = {"game": game, "name": "Club night", **extra}
    return ok(await client.post("/tournaments", json=body, headers=OPERATOR), 201)  # type: ignore[no-any-return]


async def enter(client: Any, event: dict[str, Any], **entry: Any) -> dict[str, Any]:
    path = f"/tournaments/{event['id']}/entries"
    return ok(await client.post(path, json=entry, headers=bearer(event["director_token"])), 201)  # type: ignore[no-any-return]


async def finished(client: Any, tournament_id: str) -> dict[str, Any]:
    """The tournament once it has finished (the computers and the worker play it out)."""
    return await _once(client, f"/tournaments/{tournament_id}", "finished")


async def round_over(client: Any, tournament_id: str, number: int) -> dict[str, Any]:
    """Round ``number`` once its every table has ended and been recorded."""
    return await _once(client, f"/tournaments/{tournament_id}/rounds/{number}", "finished")


async def _once(client: Any, path: str, status: str) -> dict[str, Any]:
    """``GET path`` once its ``status`` is ``status``."""
    for _ in range(PATIENCE * 4):
        found = ok(await client.get(path))
        if found["status"] == status:
            return found  # type: ignore[no-any-return]
        await asyncio.sleep(0.25)
    raise AssertionError(f"{path} is still {found['status']}, not {status}")


async def tournament_export(client: Any, event: dict[str, Any]) -> bytes:
    path = f"/tournaments/{event['id']}/export"
    response = await client.get(path, headers=bearer(event["director_token"]))
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/x-ndjson")
    return response.content  # type: ignore[no-any-return]


async def assert_verifies(client: Any, event: dict[str, Any]) -> Any:
    """The event's export verifies (every table, every pairing, the standings); the report."""
    report = verify_tournament_lines((await tournament_export(client, event)).splitlines())
    assert report.ok, render_tournament(report)
    return report
