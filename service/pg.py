"""One query on a connection borrowed from the pool: the read side and the event store
ask most of their questions this way, so the borrowing is written once.

A reader may be handed a :class:`Routed` source instead of a pool: the replicas'
router (service.read.replicas), which runs the question on a replica that is current
enough, else on the primary."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

Params = Sequence[Any] | Mapping[str, Any]
T = TypeVar("T")
Work = Callable[[AsyncConnection[Any]], Awaitable[T]]


class Routed(Protocol):
    """Somewhere a read can run: picks the connection, and may run ``work`` again on
    another one when the first fails (so ``work`` only reads)."""

    async def run(self, work: Work[T]) -> T: ...


Source = AsyncConnectionPool[Any] | Routed


async def run_on(source: Source, work: Work[T]) -> T:
    """``work`` on a connection of ``source``."""
    if isinstance(source, AsyncConnectionPool):
        async with source.connection() as conn:
            return await work(conn)
    return await source.run(work)


async def fetch_one(
    pool: Source, query: str, params: Params = (), *, prepare: bool | None = None
) -> tuple[Any, ...] | None:
    """The first row of ``query``'s answer, or None when it has none."""

    async def one(conn: AsyncConnection[Any]) -> tuple[Any, ...] | None:
        cur = await conn.execute(query, params, prepare=prepare)
        return await cur.fetchone()

    return await run_on(pool, one)


async def fetch_all(
    pool: Source, query: str, params: Params = (), *, prepare: bool | None = None
) -> list[tuple[Any, ...]]:
    """Every row of ``query``'s answer."""

    async def every(conn: AsyncConnection[Any]) -> list[tuple[Any, ...]]:
        cur = await conn.execute(query, params, prepare=prepare)
        return await cur.fetchall()

    return await run_on(pool, every)


async def fetch_column(
    pool: Source, query: str, params: Params = (), *, prepare: bool | None = None
) -> list[Any]:
    """The first column of every row of ``query``'s answer (the ids of a listing)."""
    return [row[0] for row in await fetch_all(pool, query, params, prepare=prepare)]


async def within(call: Awaitable[T], seconds: float) -> T:
    """``call``'s result, or TimeoutError once ``seconds`` have passed. Unlike
    ``asyncio.wait_for`` it does not wait for the cancelled call to end: cancelling a
    query on a frozen or unreachable Postgres waits on the server too (the first /readyz
    of a freeze took the whole request deadline so), so the call ends in the background
    and takes its outcome with it."""
    task = asyncio.ensure_future(call)
    try:
        done, _ = await asyncio.wait({task}, timeout=seconds)
    except asyncio.CancelledError:
        # The caller was cancelled (a stream whose client left): so is the call, whose
        # outcome would otherwise be logged as an error nobody retrieved.
        _drop(task)
        raise
    if not done:
        _drop(task)
        raise TimeoutError(f"no answer within {seconds:g} s")
    return task.result()


def _drop(task: asyncio.Future[Any]) -> None:
    task.cancel()
    task.add_done_callback(_outcome_dropped)


def _outcome_dropped(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()  # retrieved, so that asyncio does not log it as never retrieved


# Connecting gives up after two seconds; keepalives notice a peer that vanished from the
# network (DESIGN 12).
CONNECT_OPTIONS = {
    "connect_timeout": 2,
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 3,
    "keepalives_count": 3,
}


# How long a pool's connection slot keeps trying to connect before it gives up. The next
# request that finds no connection then starts a new try at once. psycopg_pool's own
# default (5 minutes, trying again after 1, 2, 4 … 32 s) left a database that came back
# after a minute's outage unused for up to as long again, every request 503 meanwhile.
RECONNECT_SECONDS = 2.0


def request_pool(
    conninfo: str, min_size: int, max_size: int, wait_seconds: float, **extra: Any
) -> AsyncConnectionPool[Any]:
    """A pool requests run on (the primary's, or a replica's; not opened yet): waiting for
    a connection, or for a new one to connect, never outlasts ``wait_seconds``. ``extra``:
    more of the pool's settings (a replica's name and configure hook)."""
    return AsyncConnectionPool(
        conninfo,
        min_size=min_size,
        max_size=max_size,
        open=False,
        timeout=wait_seconds,
        reconnect_timeout=RECONNECT_SECONDS,
        kwargs={"autocommit": True, **CONNECT_OPTIONS},
        **extra,
    )
