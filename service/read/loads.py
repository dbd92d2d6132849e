"""Snapshot loads of concurrent reads, asked of Postgres together.

Every read asks Postgres for the table's current version (service.write.handler explains why a
cached version is never trusted on its own). Many reads arrive at once — a phone polls
far more often than it acts — so the reads of one process share statements: a load
waits for the statement being sent to finish only if it arrived after that statement
went out, then goes out with every load that arrived meanwhile, in one round trip.

Why this stays current: a load's answer comes from a statement *sent after the load
began*, so that statement's snapshot includes every commit acknowledged to any client
before the load began. Joining a statement already in flight would not be safe (it may
have taken its snapshot before a commit the caller has seen), and is never done.
"""

from __future__ import annotations

import asyncio

from service.read.senders import Senders
from service.write.store import EventStore, Snapshot

Key = tuple[str, int | None]  # (table id, the version the caller already holds)


class BatchedLoads:
    """At most ``in_flight`` statements at a time; loads that find them all busy wait
    for the next free one and go out together. One event loop's: its futures and
    senders belong to the loop the service runs on."""

    def __init__(
        self,
        store: EventStore,
        in_flight: int = 4,
        batch_limit: int = 500,
        *,
        replica: bool = False,
    ) -> None:
        self.store = store
        self.replica = replica  # whether a replica may answer (service.read.replicas)
        self.batch_limit = batch_limit
        self._waiting: dict[Key, list[asyncio.Future[Snapshot | None]]] = {}
        self._senders = Senders(self._send, in_flight, "cardroom-loads")

    async def load(self, table_id: str, known_version: int | None) -> Snapshot | None:
        """The table's snapshot as of a statement sent after this call began; its state
        only when ``known_version`` is not current. ``None``: no such table."""
        future: asyncio.Future[Snapshot | None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault((table_id, known_version), []).append(future)
        self._senders.wake()
        return await future

    async def _send(self) -> None:
        while self._waiting:
            batch = dict(list(self._waiting.items())[: self.batch_limit])
            for key in batch:
                del self._waiting[key]
            try:
                found = await self.store.load_many(list(batch), replica=self.replica)
            except Exception as exc:  # every waiter of this batch gets the failure
                _settle(batch, exc)
                continue
            except BaseException:  # cancelled: so are its waiters
                _settle(batch, None)
                raise
            for key, futures in batch.items():
                for future in futures:
                    if not future.done():  # its request may have been cancelled
                        future.set_result(found.get(key))


def _settle(
    batch: dict[Key, list[asyncio.Future[Snapshot | None]]], error: Exception | None
) -> None:
    for futures in batch.values():
        for future in futures:
            if future.done():
                continue
            if error is None:
                future.cancel()
            else:
                future.set_exception(error)
