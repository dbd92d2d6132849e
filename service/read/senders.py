"""The senders of batched questions to Postgres (service.read.loads, the primary's WAL
position in service.read.replicas, and the group commit of service.write.group_commit)
and to Redis (the rate limits' pipelines, service.ratelimit): at most ``in_flight`` at a
time."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterable
from typing import Any


class Senders:
    """Tasks running ``send``, at most ``in_flight`` at a time. ``send`` loops while
    anything waits; a caller that has queued its question calls :meth:`wake`."""

    def __init__(
        self, send: Callable[[], Coroutine[Any, Any, None]], in_flight: int, name: str
    ) -> None:
        self.send = send
        self.in_flight = in_flight
        self.name = name
        self._tasks: set[asyncio.Task[None]] = set()

    def wake(self) -> None:
        """A new sender, unless ``in_flight`` are live: the question just queued then
        goes out with the next batch one of them takes."""
        # A sender whose loop found nothing left is done at once, but leaves the set only
        # when its callback runs: count the live ones, or a question arriving in between
        # would wait for a sender that never comes.
        if sum(not task.done() for task in self._tasks) < self.in_flight:
            task = asyncio.create_task(self.send(), name=self.name)
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def stop(self) -> None:
        """Cancel the live senders (their questions' waiters are cancelled with them)."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def settle(waiters: Iterable[asyncio.Future[Any]], error: Exception | None) -> None:
    """The waiters of a batch that failed get its ``error``; with None (its sender was
    cancelled) they are cancelled too. A waiter already done (its request gave up) is left."""
    for waiter in waiters:
        if waiter.done():
            continue
        if error is None:
            waiter.cancel()
        else:
            waiter.set_exception(error)
