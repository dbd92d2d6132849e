"""What the timekeeper and retention share: while its process leads, each expires tables
through the command path (service.write.interventions), on a clock tests can move."""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Iterable

from service.write.handler import Clock, TableService


class Expirer(ABC):
    """A worker that expires tables, a few commits at a time. A subclass says how one
    table is expired (:meth:`expire`) and which tables are due."""

    def __init__(self, service: TableService, clock: Clock, in_flight: int) -> None:
        self.service = service
        self.clock = clock
        self.leading = asyncio.Event()  # set while this process leads (service.workers.leader)
        self._in_flight = asyncio.Semaphore(in_flight)

    async def expire_all(self, table_ids: Iterable[str]) -> int:
        """:meth:`expire` every table at once; how many it expired. Tables are independent,
        so a burst of them costs round trips in parallel, not one after another; at most
        ``in_flight`` commit at a time, each holding a pooled connection."""
        return sum(await asyncio.gather(*(self._bounded(t) for t in table_ids)))

    async def _bounded(self, table_id: str) -> int:
        async with self._in_flight:
            return await self.expire(table_id)

    @abstractmethod
    async def expire(self, table_id: str) -> int:
        """Expire one table: 1 if this worker did, 0 if not (nothing due any more, or a
        failure it logged: the next look tries again)."""
