"""Replica routing without servers (DESIGN 13): WAL positions, the lag estimate on an
injected clock, and the settings that name replicas and a Redis Cluster."""

from __future__ import annotations

import pytest

from service.read.replicas import Replicas, lsn, replica_name
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
