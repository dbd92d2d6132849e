"""The audit's reads of the event store: a replay prefix and a tournament's deal events.

The duplicate-deal report is a query over the events, not a stored read model: operators
ask for it now and then, it must be exact the moment a deal is scored (a projection
would lag behind the store), and it reads only the few event types that describe deals
(``duplicate.EVENT_TYPES``) of one tournament's tables, through the events' primary key.
"""

from __future__ import annotations

from typing import Any

from psycopg_pool import AsyncConnectionPool

from domain.events import Event
from service.audit.duplicate import EVENT_TYPES
from service.write.codec import event_decoder


async def tournament_streams(
    pool: AsyncConnectionPool[Any], game: str, table_ids: list[str]
) -> list[tuple[str, list[tuple[int, Event]]]]:
    """Each table's deal-describing events, in version order; tables in the given order."""
    async with pool.connection() as conn:
        cur = await conn.execute(
            "SELECT table_id::text, version, data::text FROM events"
            " WHERE table_id = ANY(%s::uuid[]) AND type = ANY(%s) ORDER BY table_id, version",
            (table_ids, list(EVENT_TYPES)),
        )
        rows = await cur.fetchall()
    decode = event_decoder(game).decode
    streams: dict[str, list[tuple[int, Event]]] = {table_id: [] for table_id in table_ids}
    for table_id, version, data in rows:
        streams[table_id].append((version, decode(data)))
    return list(streams.items())
