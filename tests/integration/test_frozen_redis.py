"""A frozen Redis (SIGSTOP: connections open, nothing answers) must not take the
service down: readiness still answers, and says so; commands go on (DESIGN 12)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import httpx
import pytest

from service.choices import choose
from service.tools.bench.harness import running_server
from tests.support import services
from tests.support.api import bearer, ok
from tests.support.redis_server import RedisServer

# Commands: far longer than they take, short enough that a hang fails the test.
PATIENCE = 5.0
# Readiness: a Kubernetes probe gives up after 1 s; the service bounds each check at
# 0.8 s, and this leaves a busy machine a margin over the probe (a hang took 5 s).
PROBE = 2.0


@pytest.fixture(scope="module")
def frozen() -> Iterator[tuple[str, RedisServer]]:
    redis = RedisServer()
    redis.start()
    try:
        with running_server(services.fresh_database("frozen_"), redis.url) as server:
            redis.freeze()
            try:
                yield server.base, redis
            finally:
                redis.thaw()
    finally:
        redis.stop()


def test_readiness_answers_and_names_redis(frozen: tuple[str, RedisServer]) -> None:
    base, _ = frozen
    answer = httpx.get(f"{base}/readyz", timeout=PROBE)
    assert answer.status_code == 200  # Redis is optional for readiness
    checks = answer.json()["checks"]
    assert checks["postgres"] == "ok"
    assert checks["redis"].startswith("error")


def test_commands_go_on_without_redis(frozen: tuple[str, RedisServer]) -> None:
    base, _ = frozen
    with httpx.Client(base_url=base, timeout=PATIENCE) as client:
        table = ok(client.post("/tables", json={"game": "forty-five", "seats": 4}), 201)
        tokens = [
            ok(client.post(f"/tables/{table['id']}/seats/{s}", json={"name": f"p{s}"}), 201)[
                "token"
            ]
            for s in range(4)
        ]
        view = ok(client.get(f"/tables/{table['id']}"))
        seat = view["to_act"][0]
        mine = ok(client.get(f"/tables/{table['id']}", headers=bearer(tokens[seat])))
        command = choose(mine["legal_actions"][0], random.Random(1))
        answer = client.post(
            f"/tables/{table['id']}/actions", json=command, headers=bearer(tokens[seat])
        )
        assert ok(answer)["version"] > view["version"]
