"""Leader election (service.workers.leader) against real Postgres."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Awaitable, Callable
from typing import Any

import psycopg
import pytest

from service.workers import leader
from tests.support import services
from tests.support.proxy import Relay

LOCK = 0x7465_7374_6C65_6164  # "testlead": no worker's lock


async def _backends(admin: psycopg.AsyncConnection[Any], name: str) -> list[int]:
    cur = await admin.execute(
        "SELECT pid FROM pg_stat_activity WHERE application_name = %s", (name,)
    )
    return [row[0] for row in await cur.fetchall()]


def recorded(runs: list[str], stop: asyncio.Event) -> Callable[[], Awaitable[None]]:
    """Work that lasts until ``stop``, noting in ``runs`` each start and cancellation."""

    async def work() -> None:
        runs.append("started")
        try:
            await stop.wait()
        except asyncio.CancelledError:
            runs.append("cancelled")
            raise

    return work


async def test_a_standby_asks_on_one_connection_and_leads_on_it_once_the_lock_is_free(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A standby keeps one connection through its tries (a new one each time cost Postgres
    a backend's start-up), and takes the lock on it when the leader lets go."""
    database_url = services.fresh_database("leader_")
    standby_url = psycopg.conninfo.make_conninfo(database_url, application_name="standby")
    monkeypatch.setattr(leader, "STANDBY", 0.02)
    stop, leading, led = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def work() -> None:
        led.set()
        await stop.wait()

    async with (
        await psycopg.AsyncConnection.connect(database_url, autocommit=True) as holder,
        await psycopg.AsyncConnection.connect(database_url, autocommit=True) as admin,
    ):
        await holder.execute("SELECT pg_advisory_lock(%s)", (LOCK,))
        running = asyncio.create_task(
            leader.while_leading(standby_url, LOCK, stop, leading, work, "test")
        )
        try:
            await asyncio.sleep(0.2)
            first = await _backends(admin, "standby")
            await asyncio.sleep(0.2)  # ten tries and more
            assert await _backends(admin, "standby") == first and len(first) == 1
            assert not led.is_set()
            await holder.execute("SELECT pg_advisory_unlock(%s)", (LOCK,))
            await asyncio.wait_for(led.wait(), timeout=5)
            assert leading.is_set()
            assert await _backends(admin, "standby") == first  # the lock taken on it
        finally:
            stop.set()
            await asyncio.wait_for(running, timeout=5)
        assert not leading.is_set()


async def test_a_leader_whose_lock_session_dies_stops_its_work_and_leads_again_on_a_new_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The lock's connection killed under a living leader (a proxy's idle timeout, an
    administrator) takes the lock with it, and another process may take the lead at once:
    the work stops rather than run beside the new leader's, and the process stands by
    again, here leading again on a new session since nobody else asked."""
    database_url = services.fresh_database("leader_")
    leader_url = psycopg.conninfo.make_conninfo(database_url, application_name="leader")
    monkeypatch.setattr(leader, "LOCK_CHECK", 0.02)
    monkeypatch.setattr(leader, "RECONNECT", 0.02)
    stop, leading = asyncio.Event(), asyncio.Event()
    runs: list[str] = []
    work = recorded(runs, stop)

    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as admin:
        running = asyncio.create_task(
            leader.while_leading(leader_url, LOCK, stop, leading, work, "test")
        )
        try:
            await asyncio.wait_for(leading.wait(), timeout=5)
            [first] = await _backends(admin, "leader")
            await admin.execute("SELECT pg_terminate_backend(%s)", (first,))
            for _ in range(250):
                if runs == ["started", "cancelled", "started"]:
                    break
                await asyncio.sleep(0.02)
            assert runs == ["started", "cancelled", "started"]
            [second] = await _backends(admin, "leader")
            assert second != first and leading.is_set()
        finally:
            stop.set()
            await asyncio.wait_for(running, timeout=5)
        assert not leading.is_set()


class _Silent:
    """A watcher no commit ever rings: waiting on it lasts the whole ``every``."""

    delivered = 0

    def __init__(self) -> None:
        self.waits = 0

    async def wait_for_any(self, since: int, timeout: float) -> int:
        self.waits += 1
        await asyncio.sleep(timeout)
        return since


@pytest.mark.parametrize("at_once", [True, False])
async def test_a_step_that_did_something_steps_again_at_once_when_asked(at_once: bool) -> None:
    """With ``at_once`` (the computer players'), a step that sent something is followed
    by the next without waiting for its own commits to be announced; without it, every
    step waits for a commit's ring (or ``every``)."""
    database_url = services.fresh_database("leader_")
    stop, leading = asyncio.Event(), asyncio.Event()
    watcher = _Silent()
    steps: list[int] = []

    async def step() -> int:
        steps.append(watcher.waits)
        if len(steps) == 3:
            stop.set()
        return 1

    await asyncio.wait_for(
        leader.lead_on_commits(
            database_url,
            LOCK,
            stop,
            leading,
            step,
            watcher,
            "test",
            0.05,
            0.0,
            at_once,  # type: ignore[arg-type]
        ),
        timeout=10,
    )
    assert steps == ([0, 0, 0] if at_once else [0, 1, 2])


async def test_a_leader_that_stops_checking_its_lock_loses_it_to_a_standby_after_the_lease(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A leader whose process stops (SIGSTOP, a frozen host) keeps its connection open, and
    Postgres its session and lock: every standby stayed off, and no computer moved and no
    clock fired anywhere. Here the leader never checks its lock again, as a stopped one
    would not: Postgres ends its idle session after the lease and a standby leads."""
    database_url = services.fresh_database("leader_")
    monkeypatch.setattr(leader, "LEASE", 1.0)
    monkeypatch.setattr(leader, "LOCK_CHECK", 600.0)  # the stopped leader's: never
    monkeypatch.setattr(leader, "STANDBY", 0.05)
    stop = asyncio.Event()
    first, second = asyncio.Event(), asyncio.Event()

    async def work() -> None:
        await stop.wait()

    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as admin:
        name = psycopg.conninfo.make_conninfo(database_url, application_name="stopped")
        stopped = asyncio.create_task(leader.while_leading(name, LOCK, stop, first, work, "a"))
        await asyncio.wait_for(first.wait(), timeout=5)
        [session] = await _backends(admin, "stopped")
        standby = asyncio.create_task(
            leader.while_leading(database_url, LOCK, stop, second, work, "b")
        )
        try:
            await asyncio.wait_for(second.wait(), timeout=10)
            assert session not in await _backends(admin, "stopped"), "its session ended"
        finally:
            stop.set()
            await asyncio.wait_for(asyncio.gather(stopped, standby), timeout=10)


async def test_a_leader_cut_off_from_postgres_stops_within_the_lease_and_a_standby_leads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A network cut that closes no socket: the leader's check of its lock goes unanswered
    and, after the lease, it stops its work (it used to wait on the check for as long as
    TCP took to give up); Postgres, hearing nothing, ends the session and its lock, and a
    standby with a way to Postgres leads."""
    database_url = services.fresh_database("leader_")
    monkeypatch.setattr(leader, "LEASE", 1.0)
    monkeypatch.setattr(leader, "LOCK_CHECK", 0.05)
    monkeypatch.setattr(leader, "STANDBY", 0.05)
    monkeypatch.setattr(leader, "RECONNECT", 0.05)
    relay = Relay(int(psycopg.conninfo.conninfo_to_dict(database_url).get("port") or 5432))
    stop = asyncio.Event()
    cut_off, standing_by = asyncio.Event(), asyncio.Event()
    runs: list[str] = []
    work = recorded(runs, stop)

    async def other_work() -> None:
        await stop.wait()

    through = psycopg.conninfo.make_conninfo(database_url, host="127.0.0.1", port=relay.port)
    first = asyncio.create_task(leader.while_leading(through, LOCK, stop, cut_off, work, "a"))
    second: asyncio.Task[None] | None = None
    try:
        await asyncio.wait_for(cut_off.wait(), timeout=5)
        second = asyncio.create_task(
            leader.while_leading(database_url, LOCK, stop, standing_by, other_work, "b")
        )
        relay.hold()
        await asyncio.wait_for(standing_by.wait(), timeout=10)
        for _ in range(100):
            if runs == ["started", "cancelled"]:
                break
            await asyncio.sleep(0.05)
        assert runs == ["started", "cancelled"] and not cut_off.is_set()
    finally:
        stop.set()
        relay.release()
        relay.close()
        await asyncio.wait_for(asyncio.gather(first, *([second] if second else [])), timeout=10)


async def test_work_that_fails_while_the_lock_is_being_checked_is_not_left_unretrieved(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """In an outage the work fails too (its pool times out) while the check of the lock
    waits: the check's error is the one raised, and the work's must not be left for
    asyncio to report as "Task exception was never retrieved", an error in the logs of
    every outage."""
    database_url = services.fresh_database("leader_")
    monkeypatch.setattr(leader, "LEASE", 0.5)
    monkeypatch.setattr(leader, "LOCK_CHECK", 0.05)
    relay = Relay(int(psycopg.conninfo.conninfo_to_dict(database_url).get("port") or 5432))
    reported: list[dict[str, Any]] = []
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _, context: reported.append(context))

    async def work() -> None:
        await asyncio.sleep(0.2)  # the network is cut by then: the check waits
        raise psycopg.OperationalError("the pool timed out")

    through = psycopg.conninfo.make_conninfo(database_url, host="127.0.0.1", port=relay.port)
    try:
        async with await psycopg.AsyncConnection.connect(through, autocommit=True) as conn:
            relay.hold()
            raised = None
            try:
                await leader._while_held(conn, work())
            except TimeoutError as exc:  # the check's, after the lease
                raised = str(exc)
            assert raised is not None, "the check did not fail"
            relay.release()
        gc.collect()  # a task dropped with its exception unread is reported now
        await asyncio.sleep(0)
    finally:
        loop.set_exception_handler(None)
        relay.close()
    unread = [c for c in reported if "never retrieved" in c.get("message", "")]
    assert not unread, unread
