"""One query on a connection borrowed from the pool: the read side and the event store
ask most of their questions this way, so the borrowing is written once."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from psycopg_pool import AsyncConnectionPool

Params = Sequence[Any] | Mapping[str, Any]


async def fetch_one(
    pool: AsyncConnectionPool, query: str, params: Params = (), *, prepare: bool | None = None
) -> tuple[Any, ...] | None:
    """The first row of ``query``'s answer, or None when it has none."""
    async with pool.connection() as conn:
        cur = await conn.execute(query, params, prepare=prepare)
        return await cur.fetchone()


async def fetch_all(
    pool: AsyncConnectionPool, query: str, params: Params = (), *, prepare: bool | None = None
) -> list[tuple[Any, ...]]:
    """Every row of ``query``'s answer."""
    async with pool.connection() as conn:
        cur = await conn.execute(query, params, prepare=prepare)
        return await cur.fetchall()
