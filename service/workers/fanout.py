"""Live fan-out: one Redis reader per process feeds every SSE stream of that process.

The hub reads the global stream ``{prefix}:events`` with a blocking ``XREAD`` on a
connection of its own (service.workers.clients) and hands each entry to the
subscriptions of its table in this process. Handing over never waits: each subscription
keeps what it has not taken yet in a bounded list, and one that falls ``QUEUE`` entries
behind (a client not reading) drops them and is marked ``lost``, so it catches up from
Postgres instead; the hub goes on at once. However many streams are open, the process
holds one reading connection, and the relay and the request client keep theirs.

What the hub delivers is a doorbell with the public record attached; Postgres stays the
truth. A subscription is made *before* its stream's first catch-up, and the hub reads
on from the position it had when it (re)connected, so an event committed after a
catch-up reaches the subscription. The global stream may repeat entries (a relay that
restarts republishes a batch) and may lose them (trimmed, or a Redis restarted empty):
subscribers drop versions they have, and a version past the next one is a gap they fill
from Postgres. When the hub loses Redis, and again when it is back, every subscription
is marked ``lost``: each catches up from Postgres, and while ``live`` is false streams
wait on the commit notifications (service.read.watch) instead.

The hub reads only while its process has streams, and for ``LINGER`` seconds after the
last one closed (a client reconnecting finds it still reading). Every entry of the global
stream passes through every reading hub, so a process without streams (most of them,
under a load of polling mobile clients) would otherwise spend a twentieth of its CPU
reading entries it has nobody to give to. The first subscription of an idle hub starts
it as a reconnection does: that subscription is marked ``lost`` once the hub knows where
the stream ends, and catches up from Postgres.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from contextlib import suppress
from typing import Any

from redis.exceptions import RedisError

from domain.table import ENDING_EVENTS
from service.metrics import LIVE_HUB_CONNECTED, LIVE_OVERFLOWS, LIVE_STREAMS
from service.read.watch import Hangup
from service.workers.clients import AnyRedis
from service.workers.streams import global_stream

log = logging.getLogger("cardroom.fanout")
BLOCK = 1.0  # seconds an idle XREAD waits on Redis before asking again
BATCH = 1_000  # entries per XREAD
QUEUE = 256  # entries a subscription may fall behind before it is marked lost
LINGER = 30.0  # seconds the hub goes on reading after its last subscription ended
STOP_TRIES, STOP_WAIT = 3, 1.0  # cancellations of the reader at shutdown, seconds each
# At an event that ends a table, the stream reads the table's end from Postgres, and ends.
FINAL = frozenset(str(event.__struct_config__.tag) for event in ENDING_EVENTS)


class Published:
    """One entry of the global stream, shared by every subscription of its table.

    ``data`` is the JSON event record as published (its public form); ``whole`` says the
    relay hid nothing in it, so it is what every audience sees; ``rendered`` is where the
    HTTP layer keeps the message it made of it, made once for all its streams.
    """

    __slots__ = ("data", "final", "rendered", "type", "version", "whole")

    def __init__(self, version: int, type_: str, data: bytes, whole: bool = False) -> None:
        self.version = version
        self.type = type_
        self.data = data
        self.whole = whole
        self.final = type_ in FINAL
        self.rendered: bytes | None = None


class Subscription:
    """What the hub has delivered for one table to one stream, not yet taken."""

    __slots__ = ("_wake", "limit", "lost", "pending", "table_id")

    def __init__(self, table_id: str, limit: int = QUEUE) -> None:
        self.table_id = table_id
        self.limit = limit
        self.pending: list[Published] = []
        self.lost = False
        self._wake = asyncio.Event()

    def deliver(self, item: Published) -> None:
        if self.lost:
            return  # its next catch-up from Postgres covers this entry
        if len(self.pending) >= self.limit:
            self.pending.clear()
            self.lost = True
            LIVE_OVERFLOWS.inc()
        else:
            self.pending.append(item)
        self._wake.set()

    def wake(self) -> None:
        """End the current ``take`` now, with what is pending (perhaps nothing)."""
        self._wake.set()

    def resync(self) -> None:
        """Something may be missing: the next ``take`` says so, and drops what is pending."""
        self.pending.clear()
        self.lost = True
        self._wake.set()

    async def take(
        self, timeout: float, hangup: Hangup | None = None
    ) -> tuple[list[Published], bool]:
        """What arrived, waiting up to ``timeout`` seconds for anything (or until the
        stream's ``hangup`` ends its waits); and whether entries were lost since the last
        take (then catch up from Postgres)."""
        if not self.pending and not self.lost and not (hangup is not None and hangup.ended):
            self._wake.clear()
            if hangup is not None:
                hangup.waiter = self._wake
            try:
                with suppress(TimeoutError):
                    async with asyncio.timeout(timeout):
                        await self._wake.wait()
            finally:
                if hangup is not None:
                    hangup.waiter = None
        items, self.pending = self.pending, []
        lost, self.lost = self.lost, False
        return items, lost


class Hub:
    """The process's one reader of the global stream and its in-process subscriptions."""

    def __init__(
        self,
        redis: AnyRedis,
        prefix: str,
        limit: int = QUEUE,
        *,
        linger: float = LINGER,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.redis = redis
        self.key = global_stream(prefix)
        self.limit = limit
        self.linger = linger
        self.clock = clock
        self.live = False  # reading Redis from a known position
        self.connected = asyncio.Event()
        self.received = 0  # entries read from Redis
        self._tables: dict[str, set[Subscription]] = {}
        self._count = 0
        self._wanted = asyncio.Event()  # set while the hub has (or lately had) streams
        self._emptied = 0.0  # when the last subscription ended
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    @property
    def subscriptions(self) -> int:
        return self._count

    def subscribe(self, table_id: str) -> Subscription:
        subscription = Subscription(table_id, self.limit)
        self._tables.setdefault(table_id, set()).add(subscription)
        self._count += 1
        LIVE_STREAMS.inc()
        self._wanted.set()
        return subscription

    def wake_all(self) -> None:
        """Every stream's wait ends now: a stop has begun and the streams close."""
        for subscriptions in self._tables.values():
            for subscription in subscriptions:
                subscription.wake()

    def unsubscribe(self, subscription: Subscription) -> None:
        subscriptions = self._tables.get(subscription.table_id)
        if subscriptions is None or subscription not in subscriptions:
            return
        subscriptions.discard(subscription)
        if not subscriptions:
            del self._tables[subscription.table_id]
        self._count -= 1
        LIVE_STREAMS.dec()
        if not self._count:
            self._emptied = self.clock()

    def start(self) -> None:
        """Start the reader: it reads Redis once there is a subscription."""
        self._task = asyncio.create_task(self._run(), name="cardroom-fanout")

    async def stop(self) -> None:
        self._stopping = True
        task = self._task
        if task is not None:
            # redis-py may swallow a cancellation in the middle of a read, or turn it into
            # an error of its own that the loop takes for a lost Redis: the flag ends the
            # loop, the cancellation is repeated, and a reader that still does not end is
            # left behind rather than holding the process's shutdown for ever.
            for _ in range(STOP_TRIES):
                task.cancel()
                await asyncio.wait({task}, timeout=STOP_WAIT)
                if task.done():
                    if not task.cancelled():
                        task.exception()  # retrieved: it ended, whatever it raised
                    break
            else:
                log.warning("fan-out reader did not stop; shutting down without it")
        self._went_down()
        await self.redis.aclose()

    async def _run(self) -> None:
        failures = 0
        while not self._stopping:
            await self._wanted.wait()
            was_live = False
            try:
                await self._read()
                failures = 0
                continue  # nobody to read for: idle until the next subscription
            except (RedisError, OSError) as exc:
                was_live = self.live
                if was_live:
                    log.warning("fan-out lost Redis (%s); streams follow Postgres meanwhile", exc)
            except Exception:  # a bug must not end live streams for good: log, start over
                was_live = self.live
                log.exception("fan-out failed; reconnecting")
            finally:
                self._went_down()
            if self._stopping:
                return
            # At once after a loss (a restarted Redis), then backing off to two seconds.
            failures = 1 if was_live else failures + 1
            await asyncio.sleep(min(2.0, 0.05 * 2 ** min(failures, 6)))

    async def _read(self) -> None:
        # Where the stream ends now: everything after it is read, and everything up to
        # it was committed before the catch-ups that the resync below asks for.
        newest: Any = await self.redis.xrevrange(self.key, count=1)
        position: Any = newest[0][0] if newest else b"0-0"
        self.live = True
        LIVE_HUB_CONNECTED.set(1)
        self.connected.set()
        self._resync_all()
        block = int(BLOCK * 1000)
        # Until no subscription has been left for ``linger`` seconds, decided between
        # reads (so at most ``BLOCK`` seconds late).
        while self._count or self.clock() - self._emptied < self.linger:
            found: Any = await self.redis.xread({self.key: position}, count=BATCH, block=block)
            for entry, fields in entries(found):
                position = entry
                self._dispatch(fields)
        self._wanted.clear()

    def _went_down(self) -> None:
        if self.live:
            self.live = False
            LIVE_HUB_CONNECTED.set(0)
            self.connected.clear()
            self._resync_all()

    def _resync_all(self) -> None:
        for subscriptions in self._tables.values():
            for subscription in subscriptions:
                subscription.resync()

    def _dispatch(self, fields: dict[bytes, bytes]) -> None:
        self.received += 1
        table = fields.get(b"table")
        key = table.decode(errors="replace") if table is not None else ""
        subscriptions = self._tables.get(key)
        if not subscriptions:
            return
        try:
            item = Published(
                int(fields[b"version"]),
                fields[b"type"].decode(),
                fields[b"data"],
                whole=fields.get(b"whole") == b"1",  # absent from older entries: not whole
            )
        except (KeyError, ValueError):
            log.error("unreadable entry in %s for table %s", self.key, table)
            for subscription in subscriptions:
                subscription.resync()
            return
        for subscription in subscriptions:
            subscription.deliver(item)


def entries(found: Any) -> Any:
    """The entries of XREAD's answer for one stream (RESP2 list or RESP3 map)."""
    if not found:
        return []
    if isinstance(found, dict):
        return next(iter(found.values()))[0]
    return found[0][1]
