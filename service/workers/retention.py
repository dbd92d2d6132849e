"""Retention (DESIGN 12): idempotency records expire, and so do tables nobody filled.

Nothing played is ever deleted. The only rows this worker deletes are idempotency
records older than ``idempotency`` (24 hours by default): a retry after that is simply
a new request. A table still waiting for players ``waiting`` after its creation gets a
``table_expired`` event, appended through the command path with the table's expected
version (``interventions.expire_waiting``), so a player taking the last seat at that
moment and the expiry never both apply; the table and its events stay.

One process leads (an advisory lock); ``cardroom serve`` runs one unless
``CARDROOM_RETENTION=0``, and ``cardroom retention`` runs it alone. It sweeps every
``EVERY`` seconds, in bounded statements: ``BATCH`` records deleted at a time, waiting
tables read a page at a time. The clock is injectable, so tests move time instead of
waiting for it; records and tables are aged on the same clock that stamps the events.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

import msgspec
import psycopg

from domain.errors import RuleError
from service.refusals import CommandConflict, UpgradeInProgress
from service.settings import Settings
from service.workers.expiries import Expirer
from service.workers.leader import pause, while_leading
from service.write import interventions
from service.write.handler import Clock, TableService
from service.write.store import now

log = logging.getLogger("cardroom.retention")
LEADER_LOCK = 0x636172642D726574  # "card-ret"
EVERY = 60.0  # seconds between sweeps
BATCH = 1000  # idempotency records deleted per statement
PAGE = 200  # waiting tables read at a time
IN_FLIGHT = 4  # expiries committed at once
HOUR = timedelta(hours=1)
DAY = 24 * HOUR


class Swept(msgspec.Struct, frozen=True):
    """What one sweep did: idempotency records deleted, tables expired."""

    records: int = 0
    tables: int = 0


class Retention(Expirer):
    def __init__(
        self,
        service: TableService,
        *,
        idempotency: timedelta = DAY,
        waiting: timedelta = DAY,
        clock: Clock = now,
        batch: int = BATCH,
    ) -> None:
        super().__init__(service, clock, IN_FLIGHT)
        self.idempotency = idempotency
        self.waiting = waiting
        self.batch = batch
        self.records = 0
        self.tables = 0

    @classmethod
    def configured(cls, service: TableService, settings: Settings) -> Retention:
        return cls(
            service,
            idempotency=timedelta(hours=settings.idempotency_hours),
            waiting=timedelta(hours=settings.waiting_hours),
        )

    async def run(self, conninfo: str, stop: asyncio.Event, every: float = EVERY) -> None:
        async def lead() -> None:
            while not stop.is_set():
                await self.step()  # Postgres failing: while_leading says so and retries
                await pause(stop, every)

        await while_leading(conninfo, LEADER_LOCK, stop, self.leading, lead, "retention")

    async def step(self) -> Swept:
        """One sweep: forget old idempotency records, expire tables nobody filled."""
        swept = Swept(records=await self.forget_records(), tables=await self.expire_tables())
        if swept.records or swept.tables:
            log.info(
                "deleted %d idempotency records older than %g h; expired %d tables waiting"
                " for players longer than %g h",
                swept.records,
                self.idempotency / HOUR,
                swept.tables,
                self.waiting / HOUR,
            )
        return swept

    async def forget_records(self) -> int:
        """Delete every idempotency record older than ``idempotency``, a batch per
        statement; how many went."""
        before = self.clock() - self.idempotency
        deleted = 0
        while True:
            count = await self.service.store.forget_idempotency(before, self.batch)
            deleted += count
            if count < self.batch:
                break
        self.records += deleted
        return deleted

    async def expire_tables(self) -> int:
        """Expire every table still waiting for players ``waiting`` after its creation;
        how many this sweeper expired (a table another sweeper or a player got to first
        does not count). A table that fails is looked at again by the next sweep."""
        before = self.clock() - self.waiting
        expired = 0
        after = None
        while page := await self.service.store.waiting_since(before, after, PAGE):
            expired += await self.expire_all(t for _, t in page)
            if len(page) < PAGE:
                break
            after = page[-1]
        self.tables += expired
        return expired

    async def expire(self, table_id: str) -> int:
        try:
            expired = await interventions.expire_waiting(self.service, table_id)
        except RuleError as exc:  # a bug in a rule: say so, keep going
            log.error("expiry of waiting table %s refused: %s", table_id, exc)
        except (psycopg.Error, CommandConflict, UpgradeInProgress) as exc:
            log.warning("expiry of waiting table %s failed (%s); next sweep", table_id, exc)
        else:
            if expired is not None:
                log.info("table %s expired: nobody filled it in time", table_id)
                return 1
        return 0


async def run_standalone(settings: Settings) -> None:
    """``cardroom retention``: only the retention sweeper, for a deployment that runs it
    apart (``CARDROOM_RETENTION=0`` on the API processes)."""
    from psycopg_pool import AsyncConnectionPool

    from service.write.store import EventStore, Notifier

    assert settings.database_url is not None
    async with AsyncConnectionPool(
        settings.database_url, min_size=1, max_size=IN_FLIGHT + 2, kwargs={"autocommit": True}
    ) as pool:
        notifier = Notifier(pool)
        notifier.start()
        try:
            service = TableService(EventStore(pool, notifier))
            retention = Retention.configured(service, settings)
            await retention.run(settings.database_url, asyncio.Event())
        finally:
            await notifier.stop()
