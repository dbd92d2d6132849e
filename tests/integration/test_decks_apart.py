"""A table's decks are stored once, apart from the snapshot every command rewrites.

Operator-dealt tables (and every tournament table) carry their decks for the whole game:
most of the snapshot's bytes, and they never change. The table's first commit writes
them to ``tables.decks``; later commits rewrite ``state`` only. A process that has never
read the table (two :class:`TableService` objects are two processes' caches) must still
see every deck, and so must a snapshot written before the decks were kept apart.
"""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest
from psycopg_pool import AsyncConnectionPool

from domain import table as tables
from domain.commands import PlayerCommand
from domain.registry import GAMES
from service.refusals import CommandConflict
from service.write.handler import TableService
from service.write.store import EventStore, new_table_id
from tests.support import services


@pytest.fixture(scope="module")
def database_url() -> str:
    return services.fresh_database("decks_")


def shuffled_decks(count: int) -> list[list[str]]:
    pack = list(GAMES["forty-five"].pack)
    rng = random.Random(7)
    return [rng.sample(pack, len(pack)) for _ in range(count)]


async def next_command(service: TableService, table_id: str) -> None:
    """The table's seat to act makes its first legal command."""
    table = (await service.load(table_id)).table
    seat = tables.to_act(table)[0]
    command = next(a for a in tables.legal_actions(table, seat) if isinstance(a, PlayerCommand))
    answer = await service.act(table_id, seat, command, if_match=None, idempotency_key=None)
    assert answer.status == 200, answer.body


async def dealt_table(service: TableService, decks: list[list[str]]) -> str:
    """A Forty-Five table on ``decks``, every seat taken and four commands made."""
    created = tables.create(new_table_id(), "forty-five", 4, {}, first_dealer=0, decks=decks)
    table, _ = await service.create(created, {}, "operator", players=["A", "B", "C", "D"])
    for _ in range(4):
        await next_command(service, table.id)
    return table.id


async def stored_row(pool: AsyncConnectionPool[Any], table_id: str) -> tuple[int, bytes, Any]:
    async with pool.connection() as conn:
        cur = await conn.execute(
            "SELECT version, state, decks FROM tables WHERE id = %s", (table_id,)
        )
        row = await cur.fetchone()
    assert row is not None
    return row[0], bytes(row[1]), None if row[2] is None else bytes(row[2])


async def test_decks_are_written_once_and_every_process_reads_them(
    pool: AsyncConnectionPool[Any],
) -> None:
    decks = shuffled_decks(3)
    table_id = await dealt_table(TableService(EventStore(pool)), decks)
    version, state, stored_decks = await stored_row(pool, table_id)
    assert version > 4  # the opening, the seats, the deal and four commands
    assert msgspec.msgpack.decode(state)["decks"] == []  # not rewritten by each command
    assert msgspec.msgpack.decode(stored_decks) == decks

    fresh = await TableService(EventStore(pool)).load(table_id)  # another process
    assert fresh.table.decks == tuple(tuple(deck) for deck in decks)
    assert fresh.table.version == version


async def written_before_the_decks_moved_out(pool: AsyncConnectionPool[Any], decks: Any) -> Any:
    """A dealt table whose row is as the code before migration 0014 wrote it: the whole
    table in ``state`` and no decks apart. The table as loaded then."""
    service = TableService(EventStore(pool))
    table_id = await dealt_table(service, decks)
    whole = (await service.load(table_id)).table
    async with pool.connection() as conn:
        await conn.execute(
            "UPDATE tables SET state = %s, decks = NULL WHERE id = %s",
            (msgspec.msgpack.encode(whole), table_id),
        )
    return whole


async def test_a_snapshot_with_its_decks_inside_loads_them_and_moves_them_out(
    pool: AsyncConnectionPool[Any],
) -> None:
    """Rows written before the decks moved out hold them in ``state`` alone; the first
    commit after it stores them apart, and every process still finds them."""
    decks = shuffled_decks(2)
    whole = await written_before_the_decks_moved_out(pool, decks)
    fresh = await TableService(EventStore(pool)).load(whole.id)
    assert fresh.table.decks == tuple(tuple(deck) for deck in decks)
    assert fresh.table == whole

    await next_command(TableService(EventStore(pool)), whole.id)
    version, state, stored_decks = await stored_row(pool, whole.id)
    assert version == whole.version + 1
    assert msgspec.msgpack.decode(state)["decks"] == []
    assert msgspec.msgpack.decode(stored_decks) == decks
    after = await TableService(EventStore(pool)).load(whole.id)  # yet another process
    assert after.table.decks == tuple(tuple(deck) for deck in decks)


def as_the_code_before_wrote_it(service: TableService) -> None:
    """Make ``service`` append as a process of the code before migration 0014 would: its
    commits do not say that they keep decks apart."""
    group = service.store.group
    apply = group.apply

    async def older(table: str, member: bytes) -> bool:
        document = msgspec.json.decode(member)
        del document["decks_apart"]
        return await apply(table, msgspec.json.encode(document))

    group.apply = older  # type: ignore[method-assign]


async def test_a_process_of_the_code_before_may_not_play_a_table_with_its_decks_apart(
    pool: AsyncConnectionPool[Any],
) -> None:
    """During a rolling update such a process would deal the next deal from a fresh seed
    instead of the supplied deck: its commits to such a table are refused as stale, and
    those to a table of the old kind still go through."""
    table_id = await dealt_table(TableService(EventStore(pool)), shuffled_decks(2))
    version = (await stored_row(pool, table_id))[0]
    older = TableService(EventStore(pool))
    as_the_code_before_wrote_it(older)
    with pytest.raises(CommandConflict):
        await next_command(older, table_id)
    assert (await stored_row(pool, table_id))[0] == version

    whole = await written_before_the_decks_moved_out(pool, shuffled_decks(2))
    older = TableService(EventStore(pool))
    as_the_code_before_wrote_it(older)
    await next_command(older, whole.id)
    assert (await stored_row(pool, whole.id))[0] == whole.version + 1
