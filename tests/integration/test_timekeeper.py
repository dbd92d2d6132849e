"""The timekeeper (DESIGN 10) against a real Postgres, on a clock the test moves.

Exactly once: a player's command racing the expiry at the deadline, two timekeepers at
once, a timekeeper killed and restarted — every deadline fires once and only once. A
service stopped across a deadline charges nobody for the downtime. No test waits for a
real deadline: the service and the timekeeper read the test's clock.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any

import msgspec
import pytest
from psycopg_pool import AsyncConnectionPool

from domain import RULES_ENGINE_VERSION, computer
from domain import table as tables
from domain.commands import Leave
from domain.errors import RuleCode, RuleError
from domain.events import ClockSettings
from domain.registry import GAMES
from service.audit.export import export_lines
from service.audit.verify import verify_lines
from service.read.watch import TableWatcher
from service.refusals import ClocksRecovering, CommandConflict
from service.workers import timekeeper
from service.workers.computers import ComputerPlayers
from service.workers.timekeeper import PACE, Timekeeper
from service.write import interventions
from service.write.codec import event_decoder
from service.write.handler import GIVEN_BACK_AT_LEAST, TableService
from service.write.store import EventStore, Notifier, new_table_id
from tests.support import services
from tests.support.clock import FakeClock

SHORT: dict[str, dict[str, Any]] = {"pinochle": {"deals": 2}}  # a short chips game


@pytest.fixture(scope="module")
def database_url() -> str:
    return services.fresh_database("time_")


@pytest.fixture
async def pool(pool: AsyncConnectionPool[Any]) -> AsyncConnectionPool[Any]:
    """The module's database as each test finds it: it sees only its own tables'
    deadlines."""
    async with pool.connection() as conn:
        await conn.execute("UPDATE tables SET deadline = NULL")
        await conn.execute("DELETE FROM timekeeper_heartbeat")
    return pool


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def service_on(pool: AsyncConnectionPool[Any], clock: FakeClock) -> TableService:
    return TableService(EventStore(pool), clock=clock)


async def clocked_table(
    service: TableService,
    game: str = "forty-five",
    seats: int = 4,
    clock: ClockSettings | None = None,
    options: dict[str, Any] | None = None,
    engine: str = RULES_ENGINE_VERSION,
) -> str:
    settings = clock or ClockSettings(action_seconds=20, bank_seconds=10)
    created = tables.create(new_table_id(), game, seats, options or {}, clock=settings)
    created = msgspec.structs.replace(created, rules_version=engine)
    table, _ = await service.create(
        created, {}, "operator", players=[f"P{n}" for n in range(seats)]
    )
    return table.id


async def events_of(service: TableService, table_id: str) -> list[Any]:
    table = (await service.load(table_id)).table
    decode = event_decoder(table.game).decode
    return [(s, decode(s.data)) for s in await service.store.read_stream(table_id, 0, 10_000)]


async def expired_so_far(pool: AsyncConnectionPool[Any], table_ids: list[str]) -> int:
    """How many clocks of these tables have expired."""
    async with pool.connection() as conn:
        cur = await conn.execute(
            "SELECT count(*) FROM events"
            " WHERE type = 'clock_expired' AND table_id = ANY(%s::uuid[])",
            (table_ids,),
        )
        row = await cur.fetchone()
    return int(row[0]) if row else 0


async def assert_export_verifies(service: TableService, table_id: str) -> None:
    """``cardroom verify`` re-runs every clock step, expiry and move of the table."""
    loaded = await service.load(table_id)
    lines = [line async for line in export_lines(service, loaded)]
    report = verify_lines(b"".join(lines).splitlines())
    assert report.ok, report.failure


def expiries(events: list[Any]) -> list[Any]:
    return [e for _, e in events if type(e).__name__ == "ClockExpired"]


async def assert_each_expired_once(service: TableService, table_ids: list[str]) -> None:
    """Each table's clock expired once, and only once."""
    for table_id in table_ids:
        assert len(expiries(await events_of(service, table_id))) == 1


async def deadline_of(service: TableService, table_id: str) -> datetime:
    deadline = (await service.load(table_id)).table.next_deadline
    assert deadline is not None
    return deadline


async def test_nothing_fires_before_the_deadline_and_it_fires_at_it(
    pool: Any, clock: FakeClock
) -> None:
    service = service_on(pool, clock)
    table_id = await clocked_table(service)
    deadline = await deadline_of(service, table_id)
    keeper = Timekeeper(service, None, clock)
    clock.set(deadline - timedelta(milliseconds=1))
    assert await keeper.step() == 0
    clock.set(deadline)
    assert await keeper.step() == 1
    events = await events_of(service, table_id)
    assert len(expiries(events)) == 1
    # The computer's move for the seat is recorded as a command of the clock.
    actors = [s.actor for s, _ in events]
    assert any(actor.startswith("clock:") for actor in actors)
    assert await keeper.step() == 0


async def test_a_players_command_racing_the_expiry_exactly_one_applies(
    pool: Any, clock: FakeClock
) -> None:
    player_clock, keeper_clock = FakeClock(), FakeClock()
    player_service = service_on(pool, player_clock)
    keeper_service = service_on(pool, keeper_clock)
    for _ in range(12):
        table_id = await clocked_table(player_service)
        table = (await player_service.load(table_id)).table
        seat = tables.to_act(table)[0]
        deadline = table.deadline(seat)
        assert deadline is not None
        player_clock.set(deadline - timedelta(milliseconds=1))
        keeper_clock.set(deadline)
        command = computer.choose(table, seat)

        async def play(table_id: str, seat: int, command: Any) -> bool:
            try:
                await player_service.act(
                    table_id, seat, command, if_match=None, idempotency_key=None
                )
            except (RuleError, CommandConflict):
                return False
            return True

        async def fire(table_id: str) -> bool:
            return await interventions.expire(keeper_service, table_id) is not None

        played, fired = await asyncio.gather(play(table_id, seat, command), fire(table_id))
        assert played != fired, "exactly one of the move and the expiry applies"
        events = await events_of(player_service, table_id)
        moves_by_seat = [
            s for s, _ in events if s.actor in (f"seat:{seat}", f"clock:{seat}") and s.command
        ]
        assert len(moves_by_seat) == 1, [s.actor for s in moves_by_seat]
        assert len(expiries(events)) == (1 if fired else 0)
        await assert_export_verifies(player_service, table_id)


async def test_two_timekeepers_at_once_fire_each_deadline_once(pool: Any, clock: FakeClock) -> None:
    service = service_on(pool, clock)
    table_ids = [await clocked_table(service) for _ in range(20)]
    clock.advance(31)  # past every first deadline (20 s + 10 s bank), before any second
    first = Timekeeper(service_on(pool, clock), None, clock)
    second = Timekeeper(service_on(pool, clock), None, clock)
    fired = await asyncio.gather(first.step(), second.step())
    assert sum(fired) == 20
    await assert_each_expired_once(service, table_ids)


async def test_a_timekeeper_killed_midway_and_restarted_loses_and_repeats_nothing(
    pool: Any, clock: FakeClock
) -> None:
    service = service_on(pool, clock)
    table_ids = [await clocked_table(service) for _ in range(30)]
    clock.advance(31)
    doomed = Timekeeper(service_on(pool, clock), None, clock)
    task = asyncio.create_task(doomed.step())
    while not task.done() and await expired_so_far(pool, table_ids) == 0:
        await asyncio.sleep(0.002)
    assert not task.done(), "the first timekeeper was to be stopped midway"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert 0 < await expired_so_far(pool, table_ids) < 30
    await Timekeeper(service_on(pool, clock), None, clock).step()
    await assert_each_expired_once(service, table_ids)


async def test_a_service_stopped_across_a_deadline_charges_nobody_for_the_downtime(
    pool: Any, clock: FakeClock
) -> None:
    service = service_on(pool, clock)
    table_id = await clocked_table(service)
    keeper = Timekeeper(service, None, clock)
    clock.advance(5)
    await keeper.beat()  # the last heartbeat before the outage: 5 s into the turn
    before = await deadline_of(service, table_id)
    clock.advance(600)  # ten minutes down; the deadline passed meanwhile
    restarted = Timekeeper(service_on(pool, clock), None, clock)
    assert await restarted.recover() == 1
    assert await restarted.step() == 0, "the seat keeps the 25 s it had left"
    after = await deadline_of(service, table_id)
    assert after - before == timedelta(seconds=600)
    assert after - clock() == timedelta(seconds=25)
    await assert_export_verifies(service, table_id)
    # A short handover is no outage: nothing is given back.
    await restarted.beat()
    clock.advance(2)
    assert await Timekeeper(service_on(pool, clock), None, clock).recover() == 0


async def test_a_leader_held_up_across_a_deadline_gives_the_time_back_before_firing(
    pool: Any, clock: FakeClock
) -> None:
    """The leader itself stalls (its database frozen, its process paused) for longer than
    the grace, and the deadline passes meanwhile: when it goes on, it gives the turn back
    the time it kept none, as a new leader would, instead of firing at once."""
    service = service_on(pool, clock)
    table_id = await clocked_table(service)
    keeper = Timekeeper(service, None, clock)
    clock.advance(5)
    await keeper.beat()  # its last heartbeat: 5 s into the turn
    before = await deadline_of(service, table_id)
    clock.advance(30)  # held up for 30 s; the deadline passed meanwhile
    assert await keeper.step() == 0, "the seat keeps the 25 s it had left"
    assert keeper.extended == 1
    assert await deadline_of(service, table_id) - before == timedelta(seconds=30)
    assert (await service.store.timekeeper_alive_at()) == clock(), "and it beats again"
    await assert_export_verifies(service, table_id)
    # Found due just before a stall, and fired after it: the expiry waits too.
    clock.advance(5)
    await keeper.beat()
    clock.set(await deadline_of(service, table_id) + timedelta(seconds=10))
    assert await keeper.expire(table_id) == 0
    assert keeper.extended == 2
    clock.advance(1)
    assert await keeper.step() == 0
    assert not expiries(await events_of(service, table_id))


async def test_a_recovery_cut_short_gives_no_table_its_time_twice(
    pool: Any, clock: FakeClock
) -> None:
    """A second failure stops a recovery after some tables got their time back and
    before the leader could beat: the next recovery finds the same gap, and gives it to
    the tables still without it, not again to those that had it."""
    service = service_on(pool, clock)
    first, second = await clocked_table(service), await clocked_table(service)
    keeper = Timekeeper(service, None, clock)
    clock.advance(5)
    await keeper.beat()
    down_since = clock()
    clock.advance(30)
    # The cut-short recovery: the first table only.
    assert await interventions.extend(service, first, down_since, GIVEN_BACK_AT_LEAST)
    once = await deadline_of(service, first)
    clock.advance(4)  # the database back again; no beat meanwhile
    assert await Timekeeper(service_on(pool, clock), None, clock).recover() == 1
    assert await deadline_of(service, first) == once
    assert await deadline_of(service, second) - clock() >= timedelta(seconds=25)
    commands = [
        msgspec.json.decode(s.command) for s, _ in await events_of(service, first) if s.command
    ]
    assert sum(1 for c in commands if c.get("type") == "extend_clocks") == 1


async def test_a_pause_keeps_the_time_the_turn_had_left(pool: Any, clock: FakeClock) -> None:
    """Through the service's own write, clock step included: the seat to act comes back
    from a pause with what it had left, its bank untouched by the pause."""
    service = service_on(pool, clock)
    table_id = await clocked_table(service)  # 20 s a turn, a 10 s bank
    before = await deadline_of(service, table_id)
    clock.advance(25)  # 5 s into the bank
    paused = await interventions.pause(service, table_id)
    assert paused.next_deadline is None
    clock.advance(600)
    assert await Timekeeper(service, None, clock).step() == 0, "nothing runs while paused"
    await interventions.resume(service, table_id)
    after = await deadline_of(service, table_id)
    assert after - before == timedelta(seconds=600)
    assert after - clock() == timedelta(seconds=5)
    await assert_export_verifies(service, table_id)


async def test_a_pause_during_an_outage_charges_the_turn_nothing(
    pool: Any, clock: FakeClock
) -> None:
    """An operator who sees the clocks stopped firing pauses the table: the pause held
    the turn with the outage charged, and the returning timekeeper gives a paused table
    nothing back, so on resume its deadline had passed (a forfeit, or the computer's
    move and a strike). The pause gives the outage back first."""
    service = service_on(pool, clock)
    table_id = await clocked_table(service)  # 20 s a turn, a 10 s bank
    keeper = Timekeeper(service, None, clock)
    clock.advance(5)
    await keeper.beat()  # the last heartbeat: 5 s into the turn
    before = await deadline_of(service, table_id)
    clock.advance(40)  # no timekeeper runs; the deadline passes meanwhile
    paused = await interventions.pause(service, table_id)
    seat = tables.to_act(paused)[0]
    assert tables.view(paused, "operator").clock.paused_left[seat] == 25
    back = Timekeeper(service_on(pool, clock), None, clock)
    await back.recover()
    await back.beat()
    clock.advance(60)
    await back.beat()
    await interventions.resume(service, table_id)
    assert await back.step() == 0, "the seat keeps the 25 s it had left"
    after = await deadline_of(service, table_id)
    assert after - clock() == timedelta(seconds=25)
    assert after - before == timedelta(seconds=100)
    await assert_export_verifies(service, table_id)


async def test_a_resume_during_an_outage_waits_for_a_timekeeper(
    pool: Any, clock: FakeClock
) -> None:
    """Resumed while no timekeeper runs, the turn ran on uncharged by no one: no move
    on the clock is taken then (``clocks-recovering``), and the returning timekeeper
    finds the outage given back already by the pause."""
    service = service_on(pool, clock)
    table_id = await clocked_table(service)
    keeper = Timekeeper(service, None, clock)
    clock.advance(5)
    await keeper.beat()
    clock.advance(40)
    paused = await interventions.pause(service, table_id)
    with pytest.raises(ClocksRecovering):
        await interventions.resume(service, table_id)
    assert (await service.load(table_id)).table.version == paused.version
    await keeper.recover()
    await keeper.beat()
    await interventions.resume(service, table_id)
    assert await deadline_of(service, table_id) - clock() == timedelta(seconds=25)


async def test_a_table_with_no_clock_resumes_during_an_outage(pool: Any, clock: FakeClock) -> None:
    """No clock runs at it, so none waits for a timekeeper: its moves are taken during
    an outage, and a resume refused for it kept it paused until one ran."""
    service = service_on(pool, clock)
    created = tables.create(new_table_id(), "pitch", 2, {})
    table, _ = await service.create(created, {}, "operator", players=["P0", "P1"])
    await Timekeeper(service, None, clock).beat()
    await interventions.pause(service, table.id)
    clock.advance(40)  # no timekeeper runs
    assert not (await interventions.resume(service, table.id)).paused_at


async def test_two_recoveries_at_once_give_a_table_the_outage_once(
    pool: Any, clock: FakeClock
) -> None:
    """A leader stalled across the outage wakes beside the new one, and both recover:
    each looked whether the time was given back before the other had given it, and the
    one whose commit lost decided again on the extended table, and extended it again."""
    service = service_on(pool, clock)
    table_id = await clocked_table(service)
    keeper = Timekeeper(service, None, clock)
    clock.advance(5)
    await keeper.beat()
    before = await deadline_of(service, table_id)
    clock.advance(30)
    stalled = Timekeeper(service_on(pool, clock), None, clock)
    await asyncio.gather(keeper.recover(), stalled.recover())
    assert await deadline_of(service, table_id) - before == timedelta(seconds=30)
    assert await deadline_of(service, table_id) - clock() == timedelta(seconds=25)
    await assert_export_verifies(service, table_id)


@pytest.mark.parametrize("engine", ["1.0.0", RULES_ENGINE_VERSION])
async def test_a_table_aborted_while_paused_stays_aborted(
    pool: Any, clock: FakeClock, engine: str
) -> None:
    """Whatever engine the table was created under: a 1.0.0 table's rules took a resume
    after its abort, but the service no longer sends one."""
    service = service_on(pool, clock)
    table_id = await clocked_table(service, engine=engine)
    await interventions.pause(service, table_id)
    aborted = await interventions.abort(service, table_id, "the hall closes")
    assert aborted.status == "aborted"
    assert not tables.view(aborted, "spectator").paused
    with pytest.raises(RuleError) as refused:
        await interventions.resume(service, table_id)
    assert refused.value.code is RuleCode.TABLE_ABORTED
    assert (await service.load(table_id)).table.version == aborted.version
    await assert_export_verifies(service, table_id)


@pytest.mark.parametrize("game", sorted(GAMES))
async def test_every_seat_timing_out_the_computer_finishes_the_game(
    pool: Any, clock: FakeClock, game: str
) -> None:
    """Nobody ever acts: each seat's turns expire twice, it is marked absent, and from
    then on the computer plays it; the game still reaches its end."""
    service = service_on(pool, clock)
    seats = GAMES[game].min_seats
    table_id = await clocked_table(
        service,
        game=game,
        seats=seats,
        clock=ClockSettings(action_seconds=5, bank_seconds=0),
        options=SHORT.get(game, {}),
    )
    keeper = Timekeeper(service, None, clock)
    for _ in range(5_000):
        table = (await service.load(table_id)).table
        if table.status == "finished":
            break
        if tables.computer_to_act(table):  # absent seats: the computer plays at once
            await service.play_computers(table_id)
            continue
        clock.set(await deadline_of(service, table_id))
        assert await keeper.step() == 1
    table = (await service.load(table_id)).table
    assert table.status == "finished"
    events = await events_of(service, table_id)
    for seat in table.absent:
        assert [e.in_a_row for e in expiries(events) if e.seat == seat][:2] == [1, 2]
    assert table.absent, "no seat was ever marked absent"
    await assert_export_verifies(service, table_id)


async def test_a_forfeit_on_expiry_finishes_the_table(pool: Any, clock: FakeClock) -> None:
    service = service_on(pool, clock)
    table_id = await clocked_table(
        service, clock=ClockSettings(action_seconds=5, bank_seconds=0, on_timeout="forfeit")
    )
    seat = tables.to_act((await service.load(table_id)).table)[0]
    clock.advance(5)
    assert await Timekeeper(service, None, clock).step() == 1
    table = (await service.load(table_id)).table
    assert table.status == "finished" and table.result is not None
    assert table.result.reason == "forfeit" and seat in table.result.losers
    assert table.next_deadline is None
    async with pool.connection() as conn:
        cur = await conn.execute("SELECT deadline FROM tables WHERE id = %s", (table_id,))
        assert (await cur.fetchone()) == (None,)
    await assert_export_verifies(service, table_id)


@pytest.mark.parametrize("on_timeout", ["forfeit", "autoplay"])
async def test_a_seat_the_computer_plays_is_moved_at_its_deadline_not_expired(
    pool: Any, clock: FakeClock, on_timeout: str
) -> None:
    """A player leaves, and the computer plays his seat; its worker is late (none runs
    here). At the deadline the timekeeper makes the computer's move: the service's own
    delay forfeits nothing, and marks no expiry against the seat."""
    service = service_on(pool, clock)
    table_id = await clocked_table(
        service,
        game="pitch",
        seats=2,
        clock=ClockSettings(action_seconds=5, bank_seconds=0, on_timeout=on_timeout),
    )
    table = (await service.load(table_id)).table
    seat = tables.to_act(table)[0]
    await service.act(
        table_id, seat, Leave(), if_match=None, idempotency_key=None, actor=f"seat:{seat}"
    )
    before = (await service.load(table_id)).table
    assert tables.computer_to_act(before) == [seat]
    move = computer.choose(before, seat)
    clock.set(await deadline_of(service, table_id) + timedelta(seconds=3))
    assert await Timekeeper(service, None, clock).step() == 1

    after = (await service.load(table_id)).table
    assert after.status == "playing"
    events = await events_of(service, table_id)
    assert expiries(events) == []
    since = [stored for stored, _ in events if stored.version > before.version]
    moves = [s for s in since if s.actor == f"computer:{seat}" and s.command is not None]
    assert [msgspec.json.decode(s.command) for s in moves] == [msgspec.to_builtins(move)]
    assert {stored.actor for stored in since} <= {f"computer:{seat}", "system"}  # no clock
    await assert_export_verifies(service, table_id)


async def test_a_burst_of_commits_wakes_the_timekeeper_for_a_look_or_two(
    pool: Any, clock: FakeClock, database_url: str
) -> None:
    """A commit may arm an earlier deadline, so it wakes the timekeeper; a burst of them
    is covered by a look a moment, not two round trips for every command."""
    notifier = Notifier(pool)
    notifier.start()
    watcher = TableWatcher(database_url)
    await watcher.start()
    service = TableService(EventStore(pool, notifier), clock=clock)
    looks = 0

    class Counting(Timekeeper):
        async def step(self) -> int:
            nonlocal looks
            looks += 1
            return await super().step()

    keeper = Counting(service, watcher, clock)
    stop = asyncio.Event()
    running = asyncio.create_task(keeper.run(database_url, stop))
    try:
        await asyncio.wait_for(keeper.leading.wait(), timeout=10)
        heard, before = watcher.delivered, looks
        for _ in range(20):  # twenty commits, each announced, none due for 20 s
            await clocked_table(service)
        while watcher.delivered < heard + 20:
            await asyncio.sleep(0.005)
        await asyncio.sleep(2 * PACE)
        assert 1 <= looks - before <= 8, looks - before  # not twenty, one a commit
    finally:
        stop.set()
        await running
        await watcher.stop()
        await notifier.stop()


async def move_waits_for_the_time_back(
    pool: AsyncConnectionPool[Any],
    clock: FakeClock,
    table_id: str,
    service: TableService | None = None,
) -> Timekeeper:
    """The seat to act, past its deadline with no timekeeper beating, is told to retry
    (``clocks-recovering``) by ``service`` (by default a process new to the table); a
    timekeeper starting now gives its table the time back and the same move is taken.
    The timekeeper."""
    service = service or service_on(pool, clock)
    table = (await service.load(table_id)).table
    seat = tables.to_act(table)[0]
    move = computer.choose(table, seat)
    with pytest.raises(ClocksRecovering):
        await service.act(table_id, seat, move, if_match=None, idempotency_key=None)
    starting = Timekeeper(service_on(pool, clock), None, clock)
    assert await starting.recover() == 1
    await starting.beat()
    await service.act(table_id, seat, move, if_match=None, idempotency_key=None)
    return starting


async def test_a_move_after_an_outage_waits_for_the_time_given_back(
    pool: Any, clock: FakeClock
) -> None:
    """Every deadline passed while no timekeeper ran: a player's move that comes before
    the new leader gives the time back is told to retry (``clocks-recovering``), not
    that its time ran out; once the time is back the same move is taken. While a
    timekeeper runs, a move past the deadline is refused as before."""
    service = service_on(pool, clock)
    table_id = await clocked_table(service)
    keeper = Timekeeper(service, None, clock)
    await keeper.beat()
    clock.advance(600)  # ten minutes down; the seat to act had 30 s
    restarted = await move_waits_for_the_time_back(pool, clock, table_id)

    later = await clocked_table(service)
    clock.advance(31)  # a timekeeper alive (it beat just now), and this deadline passed
    await restarted.beat()
    table = (await service.load(later)).table
    seat = tables.to_act(table)[0]
    with pytest.raises(RuleError) as refused:
        await service.act(
            later, seat, computer.choose(table, seat), if_match=None, idempotency_key=None
        )
    assert refused.value.code is RuleCode.CLOCK_EXPIRED


async def test_a_move_in_time_after_an_outage_is_not_charged_the_outage(
    pool: Any, clock: FakeClock
) -> None:
    """The service was down 25 s of a turn of 20 s and a 10 s bank: the player's move,
    sent as soon as the service answers, still has time. It was taken at once and
    charged the outage (5 s of the bank); it now waits for the time to be given back,
    as a move past its deadline does, and the bank is whole."""
    service = service_on(pool, clock)
    table_id = await clocked_table(service)
    seat = tables.to_act((await service.load(table_id)).table)[0]
    await Timekeeper(service, None, clock).beat()
    clock.advance(25)
    await move_waits_for_the_time_back(pool, clock, table_id)
    banks = (await service.load(table_id)).table.banks
    assert banks[seat] == 10_000, banks
    await assert_export_verifies(service, table_id)


async def test_a_process_that_looked_before_an_outage_holds_the_move_after_it(
    pool: Any, clock: FakeClock
) -> None:
    """The process last read the heartbeat a few beats before the outage: the one it
    reads after it has moved since, so the move was taken as if a timekeeper ran, and
    charged the outage from the bank (or refused as out of time). A beat that moved
    before the outage began says nothing of now."""
    service = service_on(pool, clock)
    table_id = await clocked_table(service)
    keeper = Timekeeper(service, None, clock)
    await keeper.beat()
    table = (await service.load(table_id)).table
    first = tables.to_act(table)[0]
    await service.act(
        table_id, first, computer.choose(table, first), if_match=None, idempotency_key=None
    )  # in time, and the process reads the heartbeat
    for _ in range(10):  # the timekeeper beats on for 5 s; no move asks meanwhile
        clock.advance(0.5)
        await keeper.beat()
    clock.advance(20)  # down: the turn of 20 s began 5 s before the last beat
    seat = tables.to_act((await service.load(table_id)).table)[0]
    await move_waits_for_the_time_back(pool, clock, table_id, service)
    banks = (await service.load(table_id)).table.banks
    assert banks[seat] == 10_000, banks
    await assert_export_verifies(service, table_id)


async def test_every_move_after_an_outage_waits_not_only_the_first(
    pool: Any, clock: FakeClock
) -> None:
    """The phones send their moves again the moment the service is back, within a beat
    of each other: only the first a process saw was held; the next ones, the heartbeat
    unchanged since that look, were refused as out of time (and their seats forfeited)
    or, still in time, charged the outage. Until the heartbeat is seen moving, every
    move on the clock waits for the time given back."""
    service = service_on(pool, clock)
    no_bank = ClockSettings(action_seconds=20, bank_seconds=0)
    late, in_time = await clocked_table(service, clock=no_bank), await clocked_table(service)
    await Timekeeper(service, None, clock).beat()
    clock.advance(25)  # down 25 s: past a turn of 20 s, or within its bank of 10 s
    mover = service_on(pool, clock)  # the process the phones reach once it is back
    for table_id in (late, in_time, late):
        table = (await mover.load(table_id)).table
        seat = tables.to_act(table)[0]
        with pytest.raises(ClocksRecovering):
            await mover.act(
                table_id, seat, computer.choose(table, seat), if_match=None, idempotency_key=None
            )
        clock.advance(0.3)
    keeper = Timekeeper(service_on(pool, clock), None, clock)
    assert await keeper.recover() == 2
    await keeper.beat()
    for table_id, bank in ((late, 0), (in_time, 10_000)):
        table = (await mover.load(table_id)).table
        seat = tables.to_act(table)[0]
        await mover.act(
            table_id, seat, computer.choose(table, seat), if_match=None, idempotency_key=None
        )
        assert (await mover.load(table_id)).table.banks[seat] == bank


async def test_a_database_no_timekeeper_has_run_counts_as_down_since_its_creation() -> None:
    """A deployment that never ran a timekeeper (``CARDROOM_TIMEKEEPER=0`` and none run
    apart): a late move is told to retry (``clocks-recovering``), not that the clock
    acts for it when nothing does, and the first timekeeper gives the time back."""
    async with AsyncConnectionPool(
        services.fresh_database("never_"), min_size=1, open=False
    ) as pool:
        created = await EventStore(pool).timekeeper_alive_at()
        assert created is not None, "the migration counts the database's creation"
        clock = FakeClock(created)
        service = service_on(pool, clock)
        table_id = await clocked_table(service)
        clock.advance(600)
        await move_waits_for_the_time_back(pool, clock, table_id)


async def test_the_computer_plays_its_tables_in_turn_one_move_each(
    pool: Any, clock: FakeClock
) -> None:
    """A step of the computer players moves every waiting table once: a person's table
    never waits behind whole deals of tables the computer plays alone (it used to play
    up to 50 moves a table before looking at the next)."""
    service = service_on(pool, clock)
    alone = []
    for _ in range(3):
        created = tables.create(new_table_id(), "pitch", 3, {})
        table, _ = await service.create(
            created, {}, "operator", players=["C0", "C1", "C2"], computers=frozenset({0, 1, 2})
        )
        alone.append(table.id)
    before = {t: (await service.load(t)).table.version for t in alone}
    players = ComputerPlayers(service, None)  # type: ignore[arg-type]
    assert await players.step() >= 3  # an earlier test's table may be waiting too
    for table_id in alone:  # each moved once: by one seat (they bid in turn)
        moved = [
            s.actor
            for s in await service.store.read_stream(table_id, before[table_id], 10_000)
            if s.actor.startswith("computer:")
        ]
        assert len(set(moved)) == 1, moved


async def test_a_turn_nearly_out_when_the_service_stopped_gets_time_to_resend(
    pool: Any, clock: FakeClock
) -> None:
    """A turn with a fraction of a second left when the timekeeper went down gets that
    back and at least two seconds from the moment it is given back: a player told to
    send the move again in a second (``clocks-recovering``) is not beaten to it by the
    clock. Engine 1.1.0 tables get exactly what they had left, as they did."""
    service = service_on(pool, clock)
    new, old = await clocked_table(service), await clocked_table(service, engine="1.1.0")
    clock.advance(29.7)  # 0.3 s left of the 30 s turn
    await Timekeeper(service, None, clock).beat()
    clock.advance(60)
    restarted = Timekeeper(service_on(pool, clock), None, clock)
    assert await restarted.recover() == 2
    assert await deadline_of(service, new) - clock() == timedelta(seconds=2)
    assert await deadline_of(service, old) - clock() == timedelta(seconds=0.3)
    await assert_export_verifies(service, new)
    await assert_export_verifies(service, old)


async def test_a_newer_engines_tables_are_left_and_the_rest_still_fire(
    pool: Any, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """During a rolling update the leader may be a process of the older release: it may
    not decide at a table of a newer rules engine, and must neither spin on it nor let a
    batch of such tables stop every other clock."""
    monkeypatch.setattr(timekeeper, "BATCH", 1)  # one newer table fills a whole batch
    service = service_on(pool, clock)
    newer = await clocked_table(service, engine="9.0.0")  # made by a newer release
    clock.advance(1)
    own = await clocked_table(service)
    keeper = Timekeeper(service, None, clock)
    clock.set(await deadline_of(service, own))  # past the newer table's deadline too
    assert await asyncio.wait_for(keeper.step(), 10) == 1
    assert len(expiries(await events_of(service, own))) == 1
    assert not expiries(await events_of(service, newer))
    assert service.newer_tables == {newer}
    # Its next look waits for the next deadline of its own, not the newer table's.
    upcoming = await service.store.next_deadline(service.newer_tables)
    assert upcoming is not None and upcoming > clock()


async def test_a_newer_engines_table_does_not_stop_the_time_given_back(
    pool: Any, clock: FakeClock
) -> None:
    """A leader of the older release back from an outage met a newer engine's table
    while giving the time back: it raised, the leader stopped before its heartbeat, and
    every move on the clock, at every table, was held as the outage went on."""
    service = service_on(pool, clock)
    await clocked_table(service, engine="9.0.0")  # made by a newer release
    own = await clocked_table(service)
    await Timekeeper(service, None, clock).beat()
    clock.advance(600)
    restarted = Timekeeper(service_on(pool, clock), None, clock)
    assert await restarted.recover() >= 1  # its own tables got their time back
    assert await deadline_of(service, own) > clock()


async def test_a_timekeeper_whose_clock_runs_behind_holds_no_move(
    pool: Any, clock: FakeClock
) -> None:
    """The heartbeat is written on the timekeeper's host's clock: one running 5 s behind
    this process's looked like an outage on every look, and every move on the clock was
    answered 503 for good. A heartbeat that moves between two looks is being kept."""
    service = service_on(pool, clock)
    table_id = await clocked_table(service)
    behind = FakeClock(clock() - timedelta(seconds=5))
    keeper = Timekeeper(service_on(pool, behind), None, behind)
    await keeper.beat()
    for moves in range(6):
        table = (await service.load(table_id)).table
        seat = tables.to_act(table)[0]
        move = computer.choose(table, seat)
        if moves == 0:  # a first look cannot tell a clock behind from an outage
            with pytest.raises(ClocksRecovering):
                await service.act(table_id, seat, move, if_match=None, idempotency_key=None)
        for each in (clock, behind):
            each.advance(0.6)
        await keeper.beat()  # it beats on, every half second or so
        await service.act(table_id, seat, move, if_match=None, idempotency_key=None)
