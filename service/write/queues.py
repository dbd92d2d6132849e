"""Requests of one process that would only collide queue here instead, one key at a time.

Several requests that each move the same stream (players sitting down at one table, an
operator opening a room's tables for one tournament) would collide on its version and
retry; in one process they can wait their turn instead, and only requests from other
processes collide. A key's lock lives while requests hold it or wait for it.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class Queues:
    """One :class:`asyncio.Lock` per key, kept while anyone holds or awaits it."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}  # lock, requests holding it

    @asynccontextmanager
    async def turn(self, key: str) -> AsyncIterator[None]:
        lock, waiting = self._locks.get(key, (asyncio.Lock(), 0))
        self._locks[key] = (lock, waiting + 1)
        try:
            async with lock:
                yield
        finally:
            lock, waiting = self._locks[key]
            if waiting == 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, waiting - 1)


async def pause_before_retry(attempt: int) -> None:
    """A short random pause after a collision with another process (at most 50 ms), so
    that a burst spreads out instead of colliding again."""
    await asyncio.sleep(random.uniform(0, min(0.05, 0.002 * 2**attempt)))
