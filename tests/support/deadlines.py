"""A table's clock fired by the test, at its deadline on a clock the test sets: the
same expiry the timekeeper commits (``interventions.expire``, through the command path),
without waiting for a real deadline. The server's own timekeeper, on a turn of 20 s or
more, has not fired it meanwhile."""

from __future__ import annotations

from typing import Any

from psycopg_pool import AsyncConnectionPool

from domain.table import Table
from service.write import interventions
from service.write.handler import TableService
from service.write.store import EventStore, Notifier
from tests.support.clock import FakeClock


async def expire_at_deadline(store: EventStore, table_id: str) -> Table[Any]:
    """The table once its next deadline has fired; ``store``: the server's, or one on its
    database with a notifier, so that the server hears of the commit."""
    clock = FakeClock()
    service = TableService(store, clock=clock)
    deadline = (await service.load(table_id)).table.next_deadline
    assert deadline is not None, "no clock runs at the table"
    clock.set(deadline)
    fired = await interventions.expire(service, table_id)
    assert fired is not None, "nothing was due at the deadline"
    return fired


async def expire_on(database_url: str, table_id: str) -> Table[Any]:
    """:func:`expire_at_deadline` from outside the server's process."""
    async with AsyncConnectionPool(
        database_url, min_size=1, max_size=2, kwargs={"autocommit": True}
    ) as pool:
        notifier = Notifier(pool)
        notifier.start()
        try:
            return await expire_at_deadline(EventStore(pool, notifier), table_id)
        finally:
            await notifier.stop()
