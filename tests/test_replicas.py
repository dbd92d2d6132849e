"""Replica routing without servers (DESIGN 13): WAL positions, the primary's position
questions shared by concurrent reads, the lag estimate on an injected clock, and the
settings that name replicas and a Redis Cluster."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from service.read.replicas import PrimaryPosition, Replica, Replicas, lsn, replica_name
from service.settings import SettingsError, from_env


class NoPool:
    """Never asked: these tests only judge positions and times."""


def router(max_lag: float = 5.0) -> Replicas:
    return Replicas(NoPool(), [], max_lag_seconds=max_lag, clock=lambda: 0.0)  # type: ignore[arg-type]


def test_wal_positions_compare_as_numbers() -> None:
    assert lsn("0/3016060") == 0x3016060
    assert lsn("1/0") > lsn("0/FFFFFFFF")
    assert lsn("16/B374D848") == (0x16 << 32) + 0xB374D848


def test_a_replica_is_as_late_as_the_first_primary_position_it_has_not_replayed() -> None:
    replicas = router()
    for second, position in enumerate((100, 200, 300, 400)):
        replicas.observe(float(second), position)
    assert replicas.lag(3.5, 400) == 0.0  # caught up
    assert replicas.lag(3.5, 250) == 1.5  # the primary passed 250 at second 2
    assert replicas.lag(3.5, 50) == 3.5


def test_an_idle_primary_makes_no_lag() -> None:
    replicas = router()
    for second in range(10):
        replicas.observe(float(second), 700)
    assert replicas.lag(10.0, 700) == 0.0


def test_old_positions_are_forgotten_but_the_newest_before_the_horizon_is_kept() -> None:
    replicas = router(max_lag=1.0)
    for second in range(100):
        replicas.observe(float(second), 10 * second)
    assert replicas.lag(99.0, 0) == pytest.approx(3.0, abs=1.0)  # at least the bound: lagging
    assert len(replicas._samples) <= 4


def test_a_replica_far_behind_keeps_the_position_its_lag_is_measured_from() -> None:
    """Paused for a minute with a bound of 1 s, the replica is a minute behind, not the
    2 s the pruned samples used to cap it at; once it catches up the samples go."""
    stuck = Replica("replica-1", NoPool())  # type: ignore[arg-type]
    stuck.replayed = 5
    replicas = Replicas(NoPool(), [stuck], max_lag_seconds=1.0, clock=lambda: 0.0)  # type: ignore[arg-type]
    for second in range(61):
        replicas.observe(float(second), 10 * second)
    assert replicas.lag(60.0, stuck.replayed) == 59.0  # the primary passed 5 at second 1
    assert replicas._lag_said(59.0, stuck.replayed) == "59.0 s behind the primary"
    stuck.replayed = 600
    replicas.observe(61.0, 610)
    assert len(replicas._samples) <= 4


def test_a_replica_behind_before_the_first_sample_is_at_least_that_late() -> None:
    replicas = router()
    replicas.observe(10.0, 500)
    replicas.observe(11.0, 600)
    assert replicas.lag(12.0, 100) == 2.0
    assert replicas._lag_said(2.0, 100) == "at least 2.0 s behind the primary"
    assert replicas._lag_said(1.0, 550) == "1.0 s behind the primary"


def test_a_replica_behind_before_this_process_began_is_not_used_until_it_catches_up() -> None:
    """Its lag read 0 s at the first check (no sample dated it), so a replica paused for
    minutes was reported "ok" and tried by every read for the bound's first seconds."""
    replicas = router(max_lag=5.0)
    replicas.observe(0.0, 500)
    assert replicas.judge(0.0, 100) == (False, "lagging: at least 0.0 s behind the primary")
    replicas.observe(2.0, 600)
    assert replicas.judge(2.0, 100) == (False, "lagging: at least 2.0 s behind the primary")
    assert replicas.judge(2.0, 500) == (True, "ok")  # past the first sample: its lag is known
    assert replicas.judge(2.0, 600) == (True, "ok")


def test_replica_names_show_host_port_and_database_but_never_a_password() -> None:
    name = replica_name("postgresql://cardroom:secret@replica-1:5433/cardroom")
    assert name == "replica-1:5433/cardroom"
    assert replica_name("host=10.0.0.2 dbname=cr user=x password=y") == "10.0.0.2:5432/cr"


def test_replica_urls_are_comma_separated() -> None:
    env = {"CARDROOM_REPLICA_URLS": " postgresql://r1/c , postgresql://r2/c,"}
    assert from_env(env).replica_urls == ("postgresql://r1/c", "postgresql://r2/c")
    assert from_env({}).replica_urls == ()
    with pytest.raises(ValueError, match="CARDROOM_REPLICA_URLS"):
        from_env({"CARDROOM_REPLICA_URLS": "postgresql://r1/c?sslmode"})


def test_the_redis_cluster_switch() -> None:
    assert from_env({}).redis_cluster == "0"
    assert from_env({"CARDROOM_REDIS_CLUSTER": "yes"}).redis_cluster == "1"
    assert from_env({"CARDROOM_REDIS_CLUSTER": "auto"}).redis_cluster == "auto"
    with pytest.raises(SettingsError, match="CARDROOM_REDIS_CLUSTER"):
        from_env({"CARDROOM_REDIS_CLUSTER": "sometimes"})


class Primary:
    """A primary whose position questions are answered when the test says so."""

    def __init__(self) -> None:
        self.position = 0x100
        self.sent: list[asyncio.Future[None]] = []

    async def run(self, work: Any) -> Any:
        asked_at = self.position  # the position as the question reaches the server
        gate: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.sent.append(gate)
        await gate
        return await work(Answer(asked_at))


class Answer:
    def __init__(self, position: int) -> None:
        self.position = position

    async def execute(self, *_: Any, **__: Any) -> Answer:
        return self

    async def fetchone(self) -> tuple[str, int, int]:
        return (f"0/{self.position:X}", 8192, 16 << 20)  # position, page and segment sizes


async def settle() -> None:
    """Lets every ready task run until it waits."""
    for _ in range(10):
        await asyncio.sleep(0)


async def test_a_position_comes_from_a_question_sent_after_it_was_asked_for() -> None:
    primary = Primary()
    position = PrimaryPosition(primary, in_flight=1)  # type: ignore[arg-type]
    first = asyncio.ensure_future(position.current())
    await settle()
    assert len(primary.sent) == 1  # the first question is out
    primary.position = 0x200  # a commit acknowledged while it is in flight
    later = [asyncio.ensure_future(position.current()) for _ in range(5)]
    await settle()
    assert len(primary.sent) == 1, "a later caller joined the question in flight"
    primary.sent[0].set_result(None)
    assert await first == 0x100
    await settle()
    assert len(primary.sent) == 2  # one question for the five that waited
    primary.sent[1].set_result(None)
    assert [await f for f in later] == [0x200] * 5
