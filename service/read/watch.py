"""Commit notifications inside one process: who is waiting for a table to move.

Every append is announced with ``NOTIFY cardroom_events, '<table>:<version>'`` just after
its commit (service.write.store.Notifier). One ``LISTEN`` connection per process feeds the
long-polls, the SSE fallback and the relay's wake-ups; Redis is not needed for any of
them. A lost connection is reopened, and waiters always re-read Postgres after waking,
so a missed notification only delays an answer until the waiter's timeout.

When the process begins a graceful stop, :meth:`TableWatcher.release` ends every wait for
a table at once (the long-polls answer and the streams close, so their clients go on at
another process); the relay's and the projector's waits go on until the workers stop. A
wait given a :class:`Hangup` also ends as soon as its client has gone.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from contextlib import suppress

import psycopg

from service.write.store import CHANNEL, LISTENER_NAME, TOURNAMENT_NOTICE

log = logging.getLogger("cardroom.watch")
MAX_TRACKED = 100_000


class Hangup:
    """Whether a waiting request should stop waiting: its client has gone (the connection
    was lost before its answer: the wait ends at once, instead of holding its place among
    the waiters until its timeout), or a newer request of the same client took its place
    (service.http.holds: it answers now with what it has). The HTTP protocol marks a
    hang-up (service.http.protocol); a request served otherwise (in-process tests) has
    none, until a held place gives it one. The protocol also gives it ``cut``, which
    closes the connection if its answer is stuck waiting for the client to read: a
    request superseded then could not end otherwise."""

    __slots__ = ("cut", "happened", "superseded", "waiter")

    def __init__(self, cut: Callable[[], None] | None = None) -> None:
        self.happened = False
        self.superseded = False
        self.waiter: asyncio.Event | None = None  # the wait to end, while one is parked
        self.cut = cut

    @property
    def ended(self) -> bool:
        return self.happened or self.superseded

    def hang_up(self) -> None:
        self.happened = True
        self._wake()

    def supersede(self) -> None:
        self.superseded = True
        self._wake()
        if self.cut is not None:
            self.cut()

    def _wake(self) -> None:
        if self.waiter is not None:
            self.waiter.set()


class TableWatcher:
    def __init__(self, conninfo: str) -> None:
        self.conninfo = conninfo
        self.versions: dict[str, int] = {}
        self._waiters: dict[str, set[asyncio.Event]] = {}
        self.delivered = 0  # notifications so far: consumers wait for it to grow
        self.tournaments_delivered = 0  # of which a tournament's (``tournament:<id>``)
        self._any: set[asyncio.Event] = set()
        self._task: asyncio.Task[None] | None = None
        self.connected = asyncio.Event()
        self._tried = asyncio.Event()  # the first connection was made, or failed
        self.released = False  # a stop has begun: no more waiting for tables

    async def start(self) -> None:
        """Listen from now on; return once listening, or once the first try has failed
        (or 5 s have passed): a process starting while the database is down serves its
        503s at once rather than keep its clients' connections waiting for it."""
        self._task = asyncio.create_task(self._listen(), name="cardroom-watch")
        with suppress(TimeoutError):
            await asyncio.wait_for(self._tried.wait(), timeout=5)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with suppress(asyncio.CancelledError):
                await self._task

    async def _listen(self) -> None:
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    self.conninfo, autocommit=True, application_name=LISTENER_NAME
                ) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    # Whatever was notified while no one listened is unknown here.
                    self.versions.clear()
                    self.connected.set()
                    self._tried.set()
                    async for notice in conn.notifies():
                        self._deliver(notice.payload)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # reconnect on any failure; waiters poll meanwhile
                self.connected.clear()
                self._tried.set()
                log.warning("LISTEN connection lost (%s); reconnecting", exc)
                await asyncio.sleep(0.5)

    def _deliver(self, payload: str) -> None:
        table_id, _, version = payload.rpartition(":")
        if not table_id or not version.isdigit():
            return
        self.committed(table_id, int(version))
        self.delivered += 1
        if table_id.startswith(TOURNAMENT_NOTICE):
            self.tournaments_delivered += 1
        for waiter in self._any:
            waiter.set()

    def committed(self, table_id: str, version: int) -> None:
        """``table_id`` is at ``version`` or later: its waiters here wake.

        Besides each announcement, called by this process's own commits
        (service.write.store.Notifier), so that a poll parked here does not wait for
        the announcement to come back through Postgres (the announcer's pace and a round
        trip), and a poll sent with the version a command here just answered parks at
        once. The workers' doorbell (``delivered``) rings on announcements alone: one
        commit rings it once."""
        if len(self.versions) > MAX_TRACKED and table_id not in self.versions:
            self.versions.clear()  # waiters re-read Postgres; this only forgets hints
        self.versions[table_id] = max(version, self.versions.get(table_id, 0))
        for waiter in self._waiters.get(table_id, ()):
            waiter.set()

    async def wait_for_table(
        self, table_id: str, beyond: int, timeout: float, hangup: Hangup | None = None
    ) -> bool:
        """Until ``table_id`` is known past version ``beyond``; False on timeout, or at
        once when released or the request's wait ended (:class:`Hangup`)."""
        if self.versions.get(table_id, 0) > beyond:
            return True
        return await self.wait_for_streams({table_id: beyond}, timeout, hangup)

    async def wait_for_streams(
        self, beyond: Mapping[str, int], timeout: float, hangup: Hangup | None = None
    ) -> bool:
        """Until one of the streams ``beyond`` names (tables, or ``tournament:<id>``) is
        known past the version it gives; False on timeout, or at once when released or
        the request's wait ended (:class:`Hangup`). A tournament's ``/me`` waits on its
        tournament and its table together, since either can change the answer."""
        waiter = asyncio.Event()
        for key in beyond:
            self._waiters.setdefault(key, set()).add(waiter)
        if hangup is not None:
            hangup.waiter = waiter
        try:
            deadline = time.monotonic() + timeout
            while not self._moved(beyond):
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self.released or (hangup is not None and hangup.ended):
                    return False
                waiter.clear()
                # asyncio.timeout, not wait_for: in Python 3.11 wait_for makes a task of
                # what it waits for, a cost every parked long-poll paid.
                with suppress(TimeoutError):
                    async with asyncio.timeout(remaining):
                        await waiter.wait()
            return True
        finally:
            if hangup is not None:
                hangup.waiter = None
            for key in beyond:
                waiters = self._waiters.get(key)
                if waiters is not None:
                    waiters.discard(waiter)
                    if not waiters:
                        del self._waiters[key]

    def _moved(self, beyond: Mapping[str, int]) -> bool:
        return any(self.versions.get(key, 0) > version for key, version in beyond.items())

    def waiting_for(self, table_id: str) -> int:
        """How many waits for ``table_id`` are parked now."""
        return len(self._waiters.get(table_id, ()))

    def release(self) -> None:
        """A stop has begun: every wait for a table ends now, and none starts again."""
        self.released = True
        for waiters in self._waiters.values():
            for waiter in waiters:
                waiter.set()

    async def wait_for_any(self, since: int, timeout: float) -> int:
        """Until a notification beyond the ``since``-th arrives (or ``timeout``).

        The doorbell of the relay and the projector: each remembers ``delivered`` before
        it reads Postgres, so a commit notified meanwhile is never slept through.
        """
        if self.delivered <= since:
            waiter = asyncio.Event()
            self._any.add(waiter)
            try:
                with suppress(TimeoutError):
                    async with asyncio.timeout(timeout):
                        await waiter.wait()
            finally:
                self._any.discard(waiter)
        return self.delivered
