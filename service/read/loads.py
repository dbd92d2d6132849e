"""Questions of concurrent requests, asked of Postgres together: snapshot loads, and the
lookups of seat tokens this process has not seen yet.

Every read asks Postgres for the table's current version (service.write.handler explains why a
cached version is never trusted on its own). Many reads arrive at once — a phone polls
far more often than it acts — so the reads of one process share statements: a question
waits for the statement being sent to finish only if it arrived after that statement
went out, then goes out with every question that arrived meanwhile, in one round trip.
A burst of new players (a round's tables opening, a server's restart) brings as many
unknown tokens at once, and their lookups share statements the same way.

Why this stays current: a question's answer comes from a statement *sent after the
question was asked*, so that statement's snapshot includes every commit acknowledged to
any client before then (a table's last move, a seat token just issued). Joining a
statement already in flight would not be safe (it may have taken its snapshot before a
commit the caller has seen), and is never done.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable, Mapping, Sequence
from functools import partial
from itertools import chain
from typing import Generic, TypeVar

from service.read.senders import Senders, settle
from service.write.store import EventStore, Snapshot

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Batched(Generic[K, V]):
    """At most ``in_flight`` statements at a time; questions that find them all busy
    wait for the next free one and go out together. ``ask`` answers a batch of keys (a
    key it has no answer for is missing from its mapping). One event loop's: its futures
    and senders belong to the loop the service runs on."""

    def __init__(
        self,
        ask: Callable[[Sequence[K]], Awaitable[Mapping[K, V]]],
        name: str,
        in_flight: int = 4,
        batch_limit: int = 500,
    ) -> None:
        self.ask = ask
        self.batch_limit = batch_limit
        self._waiting: dict[K, list[asyncio.Future[V | None]]] = {}
        self._senders = Senders(self._send, in_flight, name)

    async def get(self, key: K) -> V | None:
        """The answer for ``key`` from a statement sent after this call began."""
        future: asyncio.Future[V | None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(key, []).append(future)
        self._senders.wake()
        return await future

    async def _send(self) -> None:
        while self._waiting:
            batch = dict(list(self._waiting.items())[: self.batch_limit])
            for key in batch:
                del self._waiting[key]
            try:
                found = await self.ask(list(batch))
            except Exception as exc:  # every waiter of this batch gets the failure
                settle(chain.from_iterable(batch.values()), exc)
                continue
            except BaseException:  # cancelled: so are its waiters
                settle(chain.from_iterable(batch.values()), None)
                raise
            for key, futures in batch.items():
                for future in futures:
                    if not future.done():  # its request may have been cancelled
                        future.set_result(found.get(key))


Key = tuple[str, int | None]  # (table id, the version the caller already holds)


class BatchedLoads(Batched[Key, Snapshot]):
    """Snapshot loads: ``replica`` says whether a replica may answer
    (service.read.replicas)."""

    def __init__(
        self,
        store: EventStore,
        in_flight: int = 4,
        batch_limit: int = 500,
        *,
        replica: bool = False,
    ) -> None:
        ask = partial(store.load_many, replica=replica)
        super().__init__(ask, "cardroom-loads", in_flight, batch_limit)

    async def load(self, table_id: str, known_version: int | None) -> Snapshot | None:
        """The table's snapshot as of a statement sent after this call began; its state
        only when ``known_version`` is not current. ``None``: no such table."""
        return await self.get((table_id, known_version))
