"""One active worker at a time, elected through a Postgres advisory lock.

The leader holds a session lock on a connection of its own: if its process dies, the
connection closes and the lock goes with it, and a standby takes over within seconds.
The other way round too: if that connection dies under a living leader (the backend
killed, a proxy's idle timeout), the lock is gone and a standby may already lead, so the
leader stops its work as soon as it finds out, and stands by again.

A leader that stops without its connection closing (its process stopped, its host frozen,
its network cut with no socket closed) would hold the lock, and keep every standby off,
for as long as Postgres keeps its session: with a cut network, the server's TCP keepalive
(two hours by default). So the lock is a lease: Postgres ends a lock's session once it has
been idle for ``LEASE`` seconds (``idle_session_timeout``), and the leader, which checks
its session every ``LOCK_CHECK`` seconds, stops if a check goes unanswered that long.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import Any, ClassVar

import psycopg
from psycopg.conninfo import make_conninfo

from service import metrics
from service.pg import CONNECT_OPTIONS, within
from service.read.watch import TableWatcher

log = logging.getLogger("cardroom.leader")
STANDBY = 2.0  # seconds between a standby's attempts to lead
LOCK_CHECK = 1.0  # seconds between a leader's checks that its lock's session lives
RECONNECT = 1.0  # seconds before connecting again after Postgres failed
LEASE = 5.0  # seconds a lock's session may go unheard before it, and the lock, ends


async def _as_lease(conn: psycopg.AsyncConnection[Any]) -> None:
    """Have Postgres end ``conn``'s session once it is idle ``LEASE`` seconds: a leader
    checks it every ``LOCK_CHECK`` seconds and a standby asks every ``STANDBY``, both well
    inside. (``idle_session_timeout`` is PostgreSQL 14's: an older server keeps the
    session, and the lock, as long as it did before.)"""
    if conn.info.server_version >= 140000:
        milliseconds = str(int(LEASE * 1000))
        await conn.execute("SELECT set_config('idle_session_timeout', %s, false)", (milliseconds,))


async def _try_lock(conn: psycopg.AsyncConnection[Any], lock: int) -> bool:
    cur = await conn.execute("SELECT pg_try_advisory_lock(%s)", (lock,))
    row = await cur.fetchone()
    return bool(row and row[0])


async def while_leading(
    conninfo: str,
    lock: int,
    stop: asyncio.Event,
    leading: asyncio.Event,
    work: Callable[[], Awaitable[None]],
    name: str,
) -> None:
    """Run ``work`` whenever this process leads, until ``stop`` is set.

    A standby asks for the lock every ``STANDBY`` seconds on a connection it keeps: a
    new connection for each try cost Postgres a backend's start-up, several a second
    from each standby process (one per worker). When ``work`` ends, the connection is
    closed, which lets the lock go. While it runs, the lock's session is checked every
    ``LOCK_CHECK`` seconds; found gone, ``work`` is cancelled.

    ``cardroom_worker_leading{worker=name}`` is 1 while this process leads, 0 while it
    stands by; it drops to 0 before the lock is let go, so two processes never both
    report leading."""
    gauge = metrics.LEADING.labels(worker=name)
    gauge.set(0)
    while not stop.is_set():
        try:
            conn = await psycopg.AsyncConnection.connect(
                make_conninfo(conninfo, **CONNECT_OPTIONS), autocommit=True
            )
            # Closed, not left through ``async with``: its exit rolls back first, which
            # waits for a check of the lock left unanswered.
            try:
                await _as_lease(conn)
                while not stop.is_set() and not await _try_lock(conn, lock):
                    await pause(stop, STANDBY)
                if stop.is_set():
                    return
                leading.set()
                gauge.set(1)
                try:
                    await _while_held(conn, work())
                finally:
                    gauge.set(0)
                    leading.clear()
            finally:
                await conn.close()
        except (psycopg.Error, OSError) as exc:
            log.warning("%s lost Postgres (%s); retrying", name, exc)
            await pause(stop, RECONNECT)


async def _while_held(conn: psycopg.AsyncConnection[Any], work: Awaitable[None]) -> None:
    """``work`` until it ends, or until a check of the lock's session ``conn`` fails (the
    error is raised, ``work`` cancelled): without its lock, it would run beside the work
    of whichever process leads now."""
    task = asyncio.ensure_future(work)
    try:
        while not task.done():
            await asyncio.wait({task}, timeout=LOCK_CHECK)
            if not task.done():
                # Unanswered for the lease, the session may be over and another process
                # leading: TimeoutError (an OSError, so: lost Postgres, stand by again).
                await within(conn.execute("SELECT 1"), LEASE)
        await task
    finally:
        if not task.done():
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task
        elif not task.cancelled():
            # The work failed while a check waited (in an outage, both do): the check's
            # error is the one raised; read the work's, or asyncio logs it as an error
            # never retrieved.
            task.exception()


async def pause(stop: asyncio.Event, seconds: float) -> None:
    with suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=seconds)


async def lead_on_commits(
    conninfo: str,
    lock: int,
    stop: asyncio.Event,
    leading: asyncio.Event,
    step: Callable[[], Awaitable[Any]],
    watcher: TableWatcher,
    name: str,
    every: float = 1.0,
    pace: float = 0.0,
    at_once: bool = False,
) -> None:
    """While this process leads, take ``step`` whenever a commit is announced, and at
    least every ``every`` seconds in case a notification was lost. A step the database
    fails is taken again at the next look. ``at_once``: a step that did something is
    followed by the next without waiting for its own commits to be announced (for a step
    whose count is only of what it committed).

    ``pace``: seconds waited after a commit rings before stepping, when the last step
    found nothing to do, so that the commits of a busy moment share one step. Without it,
    under load these workers took a step — their queries — for nearly every command, 6%
    of a server process's CPU. A step that did something looks again at once: a table
    the computer plays alone moves as fast as its commits are made."""

    async def work() -> None:
        while not stop.is_set():
            since = watcher.delivered
            done: Any = 0
            try:
                done = await step()
            except psycopg.Error as exc:
                log.warning("%s step failed (%s); will look again", name, exc)
            if done and at_once:
                # Its own commits are in: look again now, not when their notice comes
                # back through Postgres (10-15 ms a step, which made a table the computer
                # plays alone, one move a step, four times slower).
                continue
            if await watcher.wait_for_any(since, every) > since and pace and not done:
                await pause(stop, pace)

    await while_leading(conninfo, lock, stop, leading, work, name)


class StepOnCommits:
    """A worker that, while this process leads, takes its :meth:`step` whenever a commit
    is announced (:func:`lead_on_commits`). A subclass names itself (the ``worker`` label),
    its advisory ``lock`` and its step."""

    name: ClassVar[str]
    lock: ClassVar[int]
    every: ClassVar[float] = 1.0  # seconds between looks when no commit rings
    pace: ClassVar[float] = 0.0  # seconds a commit's ring waits for others (lead_on_commits)
    at_once: ClassVar[bool] = False  # step again at once after a step that did something

    def __init__(self, watcher: TableWatcher) -> None:
        self.watcher = watcher
        self.leading = asyncio.Event()

    async def run(self, conninfo: str, stop: asyncio.Event) -> None:
        await lead_on_commits(
            conninfo,
            self.lock,
            stop,
            self.leading,
            self.step,
            self.watcher,
            self.name,
            self.every,
            self.pace,
            self.at_once,
        )

    async def step(self) -> int:
        """Do what is due now; how many things were done."""
        raise NotImplementedError
