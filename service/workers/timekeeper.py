"""The timekeeper (DESIGN 10): fires every expired clock, exactly once, in time.

Deadlines live in Postgres with the table (``tables.deadline``, kept by the inline
projection), so nothing is lost when a process dies. One process leads (an advisory lock);
it sleeps until the earliest deadline — or until a commit rings, since a commit may arm
an earlier one — and fires each due table through the command path with the table's
expected version (``interventions.expire``): a player's move at the last millisecond and
the expiry never both apply, and a second timekeeper racing this one finds nothing due.

Time no timekeeper ran is not charged to anyone: the leader writes a heartbeat as it
goes, and a new leader that finds the heartbeat older than ``GRACE`` gives every turn
that was running through the gap its lost time back (``interventions.extend``) before it
fires anything. So does a leader that was itself held up that long (its database frozen,
its process paused): it may not fire a clock that ran out while it kept no time. The
clock is injectable, so tests move time instead of waiting for it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

import psycopg

from domain.errors import RuleError
from service.read.watch import TableWatcher
from service.refusals import UpgradeInProgress
from service.workers.expiries import Expirer
from service.workers.leader import while_leading
from service.write import interventions
from service.write.handler import GIVEN_BACK_AT_LEAST, GRACE, Clock, TableService
from service.write.store import now

log = logging.getLogger("cardroom.timekeeper")
LEADER_LOCK = 0x636172642D74696D  # "card-tim"
LONGEST_SLEEP = 1.0  # seconds: look again at least this often, and beat the heart
HEARTBEAT = timedelta(seconds=0.5)  # between heartbeats, well inside GRACE
BATCH = 200  # due tables read at a time
IN_FLIGHT = 8  # expiries committed at once
# Seconds a commit's wake-up waits before looking: a busy store's commits then cost one
# look per moment, not two round trips per command. No known deadline waits for it.
PACE = 0.05


class Timekeeper(Expirer):
    def __init__(
        self, service: TableService, watcher: TableWatcher | None, clock: Clock = now
    ) -> None:
        super().__init__(service, clock, IN_FLIGHT)
        self.watcher = watcher
        self.fired = 0
        self.extended = 0
        self.beaten_at: datetime | None = None  # this leader's last heartbeat
        self._keeping = asyncio.Lock()  # one catch-up at a time

    async def run(self, conninfo: str, stop: asyncio.Event) -> None:
        async def lead() -> None:
            self.beaten_at = None
            await self.recover()
            await self.beat()
            while not stop.is_set():
                since = self.watcher.delivered if self.watcher else 0
                await self.step()  # which keeps time first
                await self._sleep(since)

        await while_leading(conninfo, LEADER_LOCK, stop, self.leading, lead, "timekeeper")

    async def step(self) -> int:
        """Fire every clock expired by now (:meth:`expire_all`); how many fired."""
        await self.keep_time()
        fired = 0
        skip = self.service.newer_tables
        while due := await self.service.store.due_tables(self.clock(), BATCH, skip):
            fired += await self.expire_all(due)
            if len(due) < BATCH:
                break
        self.fired += fired
        return fired

    async def expire(self, table_id: str) -> int:
        await self.keep_time()  # a stall may have begun after the table was found due
        try:
            with passed_over(table_id, "expiry"):
                return 0 if await interventions.expire(self.service, table_id) is None else 1
        except psycopg.Error as exc:
            log.warning("expiry at %s failed (%s); will look again", table_id, exc)
        return 0

    async def beat(self) -> None:
        at = self.clock()
        async with self.service.store.pool.connection() as conn:
            await conn.execute(
                "INSERT INTO timekeeper_heartbeat (id, alive_at) VALUES (1, %s)"
                " ON CONFLICT (id) DO UPDATE SET alive_at = excluded.alive_at",
                (at,),
            )
        self.beaten_at = at

    async def keep_time(self) -> None:
        """Beat every ``HEARTBEAT``, a long burst of expiries included. A leader held up
        for longer than ``GRACE`` since its last beat (a frozen database, a paused
        process) first gives the time back, as a new leader does: nothing fires on time
        that nobody kept. One that has not beaten yet (a test driving :meth:`step`) has
        kept no time to miss."""
        async with self._keeping:
            if self.beaten_at is None:
                return
            late = self.clock() - self.beaten_at
            if late > GRACE:
                await self.recover()
            if late >= HEARTBEAT:
                await self.beat()

    async def recover(self) -> int:
        """Give back the time since the last heartbeat if it is older than ``GRACE``;
        how many tables got time back."""
        down_since = await self.service.store.timekeeper_alive_at()
        if down_since is None or self.clock() - down_since <= GRACE:
            return 0
        log.warning("no timekeeper ran since %s: giving the time back", down_since.isoformat())
        extended = 0
        for table_id in await self.service.store.armed_after(down_since):
            with passed_over(table_id, "time given back"):
                given = await interventions.extend(
                    self.service, table_id, down_since, GIVEN_BACK_AT_LEAST
                )
                extended += given is not None
        self.extended += extended
        return extended

    async def _sleep(self, since: int) -> None:
        """Until the next deadline, a commit (which may arm an earlier one), or a second.

        A commit's wake-up looks ``PACE`` later (never past the next known deadline): a
        deadline a commit arms is seconds away, and the commits of that moment are then
        all covered by one look."""
        upcoming = await self.service.store.next_deadline(self.service.newer_tables)
        seconds = LONGEST_SLEEP
        if upcoming is not None:
            seconds = min(seconds, max(0.0, (upcoming - self.clock()).total_seconds()))
        if self.watcher is None:
            await asyncio.sleep(seconds)
            return
        until = time.monotonic() + seconds
        await self.watcher.wait_for_any(since, seconds)
        await asyncio.sleep(min(PACE, max(0.0, until - time.monotonic())))


@contextmanager
def passed_over(table_id: str, doing: str) -> Iterator[None]:
    """A table this leader cannot decide at is passed over, and the others still get
    their turn: one of a newer rules engine (a newer release's leader takes it; it is in
    ``newer_tables`` from now on), or one where a rule refuses (a bug: said loudly)."""
    try:
        yield
    except RuleError as exc:
        log.error("%s refused at %s: %s", doing, table_id, exc)
    except UpgradeInProgress as exc:
        log.info("%s at %s left to a newer process: %s", doing, table_id, exc)


async def run_standalone(database_url: str) -> None:
    """``cardroom timekeeper``: only the timekeeper, for a deployment that runs it apart."""
    from psycopg_pool import AsyncConnectionPool

    from service.write.store import EventStore, Notifier

    async with AsyncConnectionPool(
        database_url, min_size=1, max_size=IN_FLIGHT + 2, kwargs={"autocommit": True}
    ) as pool:
        notifier = Notifier(pool)
        notifier.start()
        watcher = TableWatcher(database_url)
        await watcher.start()
        try:
            service = TableService(EventStore(pool, notifier))
            await Timekeeper(service, watcher).run(database_url, asyncio.Event())
        finally:
            await watcher.stop()
            await notifier.stop()
