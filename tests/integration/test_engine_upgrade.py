"""A table keeps the rules of the engine it was created under, whichever release's
process wrote its last snapshot. During a rolling update a process of the older release
decodes a newer table's snapshot without the rule it knows nothing of (msgspec drops an
unknown field) and, before this release, wrote it back so; a process of the table's own
release restores the rule from the table's engine when it decodes the snapshot."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from psycopg_pool import AsyncConnectionPool

from domain import table as tables
from domain.pinochle.state import State
from service.write.handler import TableService
from service.write.store import EventStore, new_table_id
from tests.support import services


@pytest.fixture(scope="module")
def database_url() -> str:
    return services.fresh_database("engine_")


def withdraws(table: tables.Table[Any]) -> bool:
    state = table.state
    assert isinstance(state, State)
    return state.config.trump_change_withdraws


async def test_a_snapshot_written_without_a_newer_rule_gets_it_back(
    pool: AsyncConnectionPool[Any],
) -> None:
    service = TableService(EventStore(pool))
    created = tables.create(new_table_id(), "pinochle", 3, {})
    table, _ = await service.create(created, {}, "operator", players=["Ann", "Bob", "Cy"])
    assert withdraws(table)  # rules engine 1.3.0: a new trump withdraws concessions
    async with pool.connection() as conn:
        cursor = await conn.execute("SELECT state FROM tables WHERE id = %s", (table.id,))
        row = await cursor.fetchone()
        assert row is not None
        written = msgspec.msgpack.decode(row[0])
        # As a process of the release before it writes the snapshot back.
        del written["state"]["config"]["trump_change_withdraws"]
        await conn.execute(
            "UPDATE tables SET state = %s WHERE id = %s",
            (msgspec.msgpack.encode(written), table.id),
        )
    fresh = TableService(EventStore(pool))  # another process: nothing cached
    loaded = (await fresh.load(table.id)).table
    assert loaded.rules_version == table.rules_version
    assert withdraws(loaded)
