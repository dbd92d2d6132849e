"""The start of a serving process (service.http.lifespan): what it opens is closed again,
when it stops and when a later step of its start fails."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
import pytest
from litestar import Litestar

from service.http import lifespan as lifespans
from service.settings import Settings


@pytest.mark.parametrize(
    "broken",
    [{"redis_url": "notaurl"}, {"trusted_proxies": ("not a network",)}],
    ids=["redis-url", "trusted-proxies"],
)
async def test_a_start_that_fails_midway_closes_what_it_opened(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, broken: dict[str, Any]
) -> None:
    """A pool left open kept reconnecting in tasks of its own, and the process never
    exited after "Application startup failed" (a malformed CARDROOM_REDIS_URL hung
    `cardroom serve` for good). Settings made here skip from_env's checks, as a value
    from_env cannot foresee would."""
    pools: list[Any] = []
    opened = lifespans.request_pool

    def kept(*args: Any, **kwargs: Any) -> Any:
        pools.append(opened(*args, **kwargs))
        return pools[-1]

    monkeypatch.setattr(lifespans, "request_pool", kept)
    before = asyncio.all_tasks()
    serving = lifespans.lifespan(msgspec.structs.replace(settings, **broken), migrate="no")
    with pytest.raises(ValueError):
        async with serving(Litestar()):
            pass
    assert len(pools) == 1 and pools[0].closed
    for _ in range(100):  # what was cancelled unwinds (5 s at most, on a busy machine)
        left = asyncio.all_tasks() - before - {asyncio.current_task()}
        if not left:
            break
        await asyncio.sleep(0.05)
    assert not left, left
