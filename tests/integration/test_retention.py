"""Retention (DESIGN 12) against a real Postgres, on a clock the test moves.

Idempotency records older than the limit are deleted, and only they: a retry with an
expired key is a new request. A table still waiting for players past its limit gets a
``table_expired`` event through the command path (its status, the listing, a refused
seat, an export that verifies); a table in play or over is never touched; two sweepers
at once expire each table once. No test waits for real time to pass.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import pytest
from psycopg_pool import AsyncConnectionPool

from domain import computer
from domain import table as tables
from domain.commands import Leave, Resign
from domain.errors import RuleCode, RuleError
from domain.events import TableExpired
from service.audit.export import export_lines
from service.audit.verify import verify_lines
from service.read.models import ReadSide
from service.refusals import TokenRevoked
from service.settings import from_env
from service.workers.retention import Retention
from service.write import interventions
from service.write.codec import event_decoder
from service.write.handler import TableService
from service.write.store import EventStore, new_table_id
from tests.support import services
from tests.support.clock import FakeClock

HOUR = timedelta(hours=1)
DAY = timedelta(hours=24)


@pytest.fixture
def database_url() -> str:
    """A database of the test's own: a sweep sees only the test's records and tables."""
    return services.fresh_database("retain_")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2026, 12, 3, 20, 0, tzinfo=UTC))


def service_on(pool: AsyncConnectionPool[Any], clock: FakeClock) -> TableService:
    return TableService(EventStore(pool), clock=clock)


def sweeper(service: TableService, clock: FakeClock, **limits: Any) -> Retention:
    return Retention(service, clock=clock, **{"idempotency": DAY, "waiting": DAY, **limits})


async def waiting_table(service: TableService, seated: int = 1) -> str:
    created = tables.create(new_table_id(), "pitch", 3, {})
    table, _ = await service.create(created, {"game": "pitch", "seats": 3}, "anonymous")
    for seat in range(seated):
        await service.take_seat(table.id, seat, f"P{seat}")
    return table.id


async def playing_table(service: TableService) -> str:
    created = tables.create(new_table_id(), "forty-five", 4, {})
    table, _ = await service.create(created, {}, "operator", players=[f"P{n}" for n in range(4)])
    return table.id


async def events_of(service: TableService, table_id: str) -> list[Any]:
    table = (await service.load(table_id)).table
    decode = event_decoder(table.game).decode
    return [(s, decode(s.data)) for s in await service.store.read_stream(table_id, 0, 10_000)]


async def counts(pool: AsyncConnectionPool[Any]) -> dict[str, int]:
    """Rows of every table the store keeps."""
    names = ["events", "tables", "seat_tokens", "shuffle_secrets", "idempotency_keys"]
    async with pool.connection() as conn:
        cur = await conn.execute(
            "SELECT " + ", ".join(f"(SELECT count(*) FROM {name})" for name in names)
        )
        row = await cur.fetchone()
    assert row is not None
    return dict(zip(names, (int(n) for n in row), strict=True))


async def keys(pool: AsyncConnectionPool[Any]) -> set[str]:
    async with pool.connection() as conn:
        cur = await conn.execute("SELECT key FROM idempotency_keys")
        return {row[0] for row in await cur.fetchall()}


async def keyed_move(service: TableService, table_id: str, key: str) -> Any:
    """The computer's choice for the seat to act, sent by its player with ``key``."""
    table = (await service.load(table_id)).table
    seat = tables.to_act(table)[0]
    command = computer.choose(table, seat)
    return await service.act(table_id, seat, command, if_match=None, idempotency_key=key)


async def test_old_idempotency_records_go_young_ones_stay_and_nothing_else(
    pool: Any, clock: FakeClock
) -> None:
    service = service_on(pool, clock)
    table_id = await playing_table(service)
    await keyed_move(service, table_id, "old")
    clock.advance(20 * HOUR)
    await keyed_move(service, table_id, "young")
    clock.advance(5 * HOUR)  # "old" is 25 hours old, "young" 5
    before = await counts(pool)
    swept = await sweeper(service, clock).step()
    assert (swept.records, swept.tables) == (1, 0)
    assert await keys(pool) == {"young"}
    after = await counts(pool)
    assert after == {**before, "idempotency_keys": before["idempotency_keys"] - 1}
    assert (await sweeper(service, clock).step()).records == 0


async def test_a_retry_with_an_expired_key_is_a_new_request(pool: Any, clock: FakeClock) -> None:
    """Keys belong to the token that sent them: the leaver's retry is answered from its
    record while the record lives, and decided afresh, against its now revoked token,
    once the record has gone."""
    service = service_on(pool, clock)
    table_id = await playing_table(service)

    async def retry() -> Any:
        return await service.act(
            table_id, 0, Leave(), if_match=None, idempotency_key="leave-1", epoch=0
        )

    first = await retry()
    assert msgspec.json.decode(first.body)["events"][0]["event"]["type"] == "seat_left"
    await service.take_seat(table_id, 0, "P0")  # a new player, on a new token (epoch 1)
    version = (await service.load(table_id)).table.version

    clock.advance(HOUR)  # a young key: the first answer again, nothing appended
    assert await retry() == first
    assert (await service.load(table_id)).table.version == version

    clock.advance(DAY)
    assert (await sweeper(service, clock).step()).records == 1
    with pytest.raises(TokenRevoked):  # a new request, decided: this token is over
        await retry()
    assert (await service.load(table_id)).table.version == version
    left = [e for _, e in await events_of(service, table_id) if type(e).__name__ == "SeatLeft"]
    assert len(left) == 1


async def test_a_table_nobody_filled_expires_through_the_command_path(
    pool: Any, clock: FakeClock
) -> None:
    service = service_on(pool, clock)
    old = await waiting_table(service, seated=1)
    empty = await waiting_table(service, seated=0)
    clock.advance(20 * HOUR)
    young = await waiting_table(service, seated=2)
    clock.advance(4 * HOUR + timedelta(seconds=1))  # old and empty: 24 h 1 s; young: 4 h
    before = await counts(pool)

    swept = await sweeper(service, clock).step()

    assert swept.tables == 2
    after = await counts(pool)
    assert after == {**before, "events": before["events"] + 2}  # an event each, no delete
    for table_id in (old, empty):
        loaded = await service.load(table_id)
        assert loaded.table.status == "expired"
        stored, event = (await events_of(service, table_id))[-1]
        assert isinstance(event, TableExpired) and stored.actor == "retention"
        assert msgspec.json.decode(stored.command) == {"type": "expire_table"}
        assert stored.recorded_at == clock.now
        document = b"".join([line async for line in export_lines(service, loaded)])
        report = verify_lines(document.splitlines())
        assert report.ok, report.failure
    assert (await service.load(young)).table.status == "waiting"

    listed, _ = await ReadSide(pool).list_tables(
        game=None, status="expired", tournament=None, player=None, cursor=None, limit=50
    )
    assert {t.id for t in listed} == {old, empty}
    with pytest.raises(RuleError) as refusal:
        await service.take_seat(old, 1, "Late")
    assert refusal.value.code == RuleCode.TABLE_EXPIRED
    assert await counts(pool) == after
    assert (await sweeper(service, clock).step()).tables == 0


async def test_tables_in_play_or_over_are_never_touched(pool: Any, clock: FakeClock) -> None:
    service = service_on(pool, clock)
    playing = await playing_table(service)
    resigned = await playing_table(service)
    await service.act(resigned, 0, Resign(), if_match=None, idempotency_key=None)
    aborted = await playing_table(service)
    await interventions.abort(service, aborted, "the hall closes")
    never_started = await waiting_table(service)
    await interventions.abort(service, never_started, "nobody came")
    ids = [playing, resigned, aborted, never_started]
    before = {t: (await service.load(t)).table for t in ids}
    assert [before[t].status for t in ids] == ["playing", "finished", "aborted", "aborted"]
    clock.advance(30 * DAY)
    rows = await counts(pool)
    assert (await sweeper(service, clock).step()).tables == 0
    for table_id in ids:
        after = (await service.load(table_id)).table
        assert (after.status, after.version) == (before[table_id].status, before[table_id].version)
    assert await counts(pool) == rows


async def test_two_sweepers_at_once_expire_each_table_once(pool: Any, clock: FakeClock) -> None:
    service = service_on(pool, clock)
    table_ids = [await waiting_table(service, seated=n % 3) for n in range(24)]
    async with pool.connection() as conn:  # records of tables long gone, 250 of them
        await conn.execute(
            "INSERT INTO idempotency_keys (table_id, actor, key, request_hash, status, body,"
            " etag, created_at) SELECT gen_random_uuid(), 'seat:0', n::text, '\\x00', 200,"
            " '\\x00', '\"1.s0\"', %s FROM generate_series(1, 250) AS n",
            (clock.now,),
        )
    clock.advance(DAY + timedelta(seconds=1))
    first = sweeper(service_on(pool, clock), clock, batch=40)
    second = sweeper(service_on(pool, clock), clock, batch=40)
    # Each part of a sweep at once, so that the two really meet on the same rows.
    expired = await asyncio.gather(first.expire_tables(), second.expire_tables())
    deleted = await asyncio.gather(first.forget_records(), second.forget_records())
    assert sum(expired) == 24 and sum(deleted) == 250
    assert await keys(pool) == set()
    for table_id in table_ids:
        expired = [e for _, e in await events_of(service, table_id) if isinstance(e, TableExpired)]
        assert len(expired) == 1


async def test_the_last_seat_and_the_expiry_at_once_exactly_one_applies(
    pool: Any, clock: FakeClock
) -> None:
    service = service_on(pool, clock)
    table_ids = [await waiting_table(service, seated=2) for _ in range(8)]
    clock.advance(DAY + HOUR)
    sweeping = service_on(pool, clock)  # a process of its own, with its own snapshots

    async def sit(table_id: str) -> bool:
        try:
            await service.take_seat(table_id, 2, "Last")
        except RuleError as refusal:
            assert refusal.code == RuleCode.TABLE_EXPIRED
            return False
        return True

    async def expire(table_id: str) -> bool:
        return await interventions.expire_waiting(sweeping, table_id) is not None

    for table_id in table_ids:
        seated, expired = await asyncio.gather(sit(table_id), expire(table_id))
        assert seated != expired, "exactly one of the last seat and the expiry applies"
        status = (await service.load(table_id)).table.status
        assert status == ("expired" if expired else "playing")
        events = [e for _, e in await events_of(service, table_id)]
        assert sum(isinstance(e, TableExpired) for e in events) == (1 if expired else 0)


async def test_one_sweeper_leads_at_a_time(database_url: str, pool: Any, clock: FakeClock) -> None:
    service = service_on(pool, clock)
    table_ids = [await waiting_table(service) for _ in range(3)]
    clock.advance(DAY + HOUR)
    stop = asyncio.Event()
    sweepers = [sweeper(service_on(pool, clock), clock) for _ in range(2)]
    tasks = [asyncio.create_task(s.run(database_url, stop, every=0.05)) for s in sweepers]
    try:
        async with asyncio.timeout(10):
            while sum(s.tables for s in sweepers) < len(table_ids):
                await asyncio.sleep(0.02)
        assert [s.leading.is_set() for s in sweepers].count(True) == 1
        await asyncio.sleep(0.2)  # the leader sweeps again: nothing left to do
        assert sum(s.tables for s in sweepers) == len(table_ids)
    finally:
        stop.set()
        await asyncio.gather(*tasks)
    for table_id in table_ids:
        assert (await service.load(table_id)).table.status == "expired"


def test_the_limits_come_from_the_environment() -> None:
    settings = from_env({"CARDROOM_IDEMPOTENCY_HOURS": "1.5", "CARDROOM_RETENTION": "0"})
    assert settings.idempotency_hours == 1.5 and settings.waiting_hours == 24
    assert not settings.retention and from_env({}).retention
    retention = Retention.configured(TableService(EventStore(None)), settings)  # type: ignore[arg-type]
    assert (retention.idempotency, retention.waiting) == (timedelta(minutes=90), DAY)
    for bad in ("0", "-1", "nan", "inf", "1e9"):
        with pytest.raises(ValueError, match="CARDROOM_WAITING_HOURS"):
            from_env({"CARDROOM_WAITING_HOURS": bad})
