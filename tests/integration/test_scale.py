"""Beyond one machine (DESIGN 13): two API processes share a private Postgres primary,
its streaming replica and a three-node Redis Cluster, and behave as one service.

One primary with its replica and one cluster serve the whole module (each costs seconds
to start). The tests run in file order: the last one stops the replica.
"""

from __future__ import annotations

import asyncio
import random
import re
import secrets
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any, NamedTuple

import httpx
import psycopg
import pytest
import redis
from redis.asyncio.cluster import RedisCluster

from service.ratelimit import Policy, RateLimiter
from service.tools.bench.harness import running_server
from service.workers.clients import is_cluster
from service.workers.streams import global_stream, table_stream
from service.write.migrate import migrate
from tests.integration.test_read_your_writes import Player
from tests.support import services
from tests.support.api import bearer, ok
from tests.support.playout import choose, pick_index
from tests.support.postgres_server import PostgresServer
from tests.support.redis_cluster import RedisCluster as ClusterServers
from tests.support.replicated_postgres import StandbyServer, primary_and_replica, url_of
from tests.support.sse import messages

DATABASE = "cardroom_scale"
FRESH = {"Connection": "close"}  # every request on a connection of its own


class Deployment(NamedTuple):
    primary: PostgresServer
    replica: StandbyServer
    cluster: ClusterServers
    bases: list[str]
    operator: str
    prefix: str


@pytest.fixture(scope="module")
def deployment() -> Iterator[Deployment]:
    cluster = ClusterServers()
    cluster.start()
    try:
        with primary_and_replica() as (primary, replica):
            with psycopg.connect(primary.url, autocommit=True) as conn:
                conn.execute(f"CREATE DATABASE {DATABASE}")
            migrate(url_of(primary, DATABASE))
            replica.wait_for(DATABASE)
            shared = {
                "CARDROOM_OPERATOR_TOKEN": secrets.token_urlsafe(16),
                "CARDROOM_REDIS_PREFIX": f"scale-{secrets.token_hex(3)}",
                "CARDROOM_REPLICA_URLS": url_of(replica, DATABASE),
                "CARDROOM_REPLICA_MAX_LAG_SECONDS": "1",
                "CARDROOM_REDIS_CLUSTER": "1",
            }
            database = url_of(primary, DATABASE)
            with (
                running_server(database, cluster.url, extra_env=shared) as a,
                running_server(database, cluster.url, extra_env=shared) as b,
            ):
                yield Deployment(
                    primary,
                    replica,
                    cluster,
                    [a.base, b.base],
                    shared["CARDROOM_OPERATOR_TOKEN"],
                    shared["CARDROOM_REDIS_PREFIX"],
                )
    finally:
        cluster.stop()


@pytest.fixture
async def clients(deployment: Deployment) -> AsyncIterator[list[httpx.AsyncClient]]:
    async with (
        httpx.AsyncClient(base_url=deployment.bases[0], timeout=30, headers=FRESH) as first,
        httpx.AsyncClient(base_url=deployment.bases[1], timeout=30, headers=FRESH) as second,
    ):
        yield [first, second]


async def _table(client: httpx.AsyncClient, seats: int = 4) -> tuple[str, list[str]]:
    table = ok(await client.post("/tables", json={"game": "forty-five", "seats": seats}), 201)
    tokens = []
    for seat in range(seats):
        path = f"/tables/{table['id']}/seats/{seat}"
        tokens.append(ok(await client.post(path, json={"name": f"p{seat}"}), 201)["token"])
    return table["id"], tokens


async def _act(
    client: httpx.AsyncClient, table_id: str, tokens: list[str], rng: random.Random
) -> int:
    """One legal command of the seat to act; the version it was answered with."""
    view = ok(await client.get(f"/tables/{table_id}"))
    seat = rng.choice(view["to_act"])
    mine = ok(await client.get(f"/tables/{table_id}", headers=bearer(tokens[seat])))
    actions = mine["legal_actions"]
    command = choose(actions[pick_index(actions, rng)], rng)
    answer = await client.post(
        f"/tables/{table_id}/actions", json=command, headers=bearer(tokens[seat])
    )
    return int(ok(answer)["version"])


async def _metric(client: httpx.AsyncClient, name: str, labels: str = "") -> float:
    text = (await client.get("/metrics")).text
    pattern = re.escape(name) + (r"\{" + labels + r"\}" if labels else "") + r" ([0-9.e+]+)"
    found = re.search(pattern, text)
    return float(found.group(1)) if found else 0.0


async def _replica_status(client: httpx.AsyncClient) -> str:
    checks = ok(await client.get("/readyz"))["checks"]
    [status] = [v for k, v in checks.items() if k.startswith("replica ")]
    return str(status)


async def _until(condition: Any, timeout: float = 20.0, said: Any = lambda: "") -> None:
    deadline = time.monotonic() + timeout
    while not await condition():
        assert time.monotonic() < deadline, f"the condition never held {said()}"
        await asyncio.sleep(0.05)


async def test_reads_run_on_the_replica(
    deployment: Deployment, clients: list[httpx.AsyncClient]
) -> None:
    table_id, _ = await _table(clients[0])
    body = {"game": "reserve-bridge", "name": "Replica night", "format": "swiss", "rounds": 1}
    headers = bearer(deployment.operator)
    tournament = ok(await clients[0].post("/tournaments", json=body, headers=headers), 201)
    await _replicas_ok(clients)
    before = deployment.replica.transactions(DATABASE)
    replica_reads = sum(
        [await _metric(c, "cardroom_reads_total", 'source="replica"') for c in clients]
    )
    for turn in range(40):
        client = clients[turn % 2]
        ok(await client.get(f"/tables/{table_id}"))
        ok(await client.get(f"/tables/{table_id}/events?after=0"))
        ok(await client.get("/tables?limit=5"))
        ok(await client.get(f"/tables/{table_id}/scoresheet"))
        ok(await client.get(f"/tournaments/{tournament['id']}/standings"))
    after = sum([await _metric(c, "cardroom_reads_total", 'source="replica"') for c in clients])
    assert after - replica_reads >= 200, "reads did not go to the replica"

    async def counted() -> bool:  # the replica's statistics are flushed within a second
        return deployment.replica.transactions(DATABASE) - before >= 200

    await _until(counted)


async def _replicas_ok(clients: list[httpx.AsyncClient], timeout: float = 20.0) -> None:
    """Until every process finds the replica usable; on failure, what they said of it."""
    statuses: list[str] = []

    async def usable() -> bool:
        statuses[:] = [await _replica_status(c) for c in clients]
        return all(status == "ok" for status in statuses)

    await _until(usable, timeout, lambda: f"(the replica's statuses: {statuses})")


async def test_versions_only_move_forward_while_the_replica_replays_nothing(
    deployment: Deployment, clients: list[httpx.AsyncClient]
) -> None:
    """Commands on one process, reads (views, conditional GETs, events after the
    command) on the other, while the replica's replay is paused: every read that names a
    version, or follows an acknowledged command, is answered by the primary."""
    await _replicas_ok(clients)
    behind = sum(
        [
            await _metric(c, "cardroom_reads_total", 'source="primary-replica-behind"')
            for c in clients
        ]
    )
    deployment.replica.pause_replay()
    try:
        players = [Player(clients, seed) for seed in range(2)]
        await asyncio.gather(*(p.play("forty-five", 4, 30) for p in players))
        # A stream resumed after the version just acknowledged starts with the next one.
        table_id, tokens = await _table(clients[0])
        acknowledged = await _act(clients[0], table_id, tokens, random.Random(5))
        url = f"/tables/{table_id}/stream"
        resume = {"Last-Event-ID": str(acknowledged - 1)}
        async with clients[1].stream("GET", url, headers=resume) as response:
            async for message in messages(response):
                if "id" in message:
                    assert int(message["id"]) == acknowledged
                    break
        after = sum(
            [
                await _metric(c, "cardroom_reads_total", 'source="primary-replica-behind"')
                for c in clients
            ]
        )
        assert after > behind, "no read found the replica behind"

        async def lagging() -> bool:  # the bound is one second in this module
            return all([(await _replica_status(c)).startswith("lagging") for c in clients])

        await _until(lagging)
        assert ok(await clients[0].get("/readyz"))["status"] == "ok"
        # Skipped while lagging: no read even tries it.
        skipped = await _metric(clients[0], "cardroom_reads_total", 'source="primary"')
        ok(await clients[0].get("/tables?limit=1"))
        assert await _metric(clients[0], "cardroom_reads_total", 'source="primary"') > skipped
    finally:
        deployment.replica.resume_replay()
    await _replicas_ok(clients)


async def test_idempotency_keys_hold_across_processes(
    clients: list[httpx.AsyncClient],
) -> None:
    table_id, tokens = await _table(clients[0])
    view = ok(await clients[1].get(f"/tables/{table_id}"))
    seat = view["to_act"][0]
    mine = ok(await clients[1].get(f"/tables/{table_id}", headers=bearer(tokens[seat])))
    command = choose(mine["legal_actions"][0], random.Random(1))
    headers = {**bearer(tokens[seat]), "Idempotency-Key": "once-only"}
    first = await clients[0].post(f"/tables/{table_id}/actions", json=command, headers=headers)
    again = await clients[1].post(f"/tables/{table_id}/actions", json=command, headers=headers)
    assert ok(again)["version"] == ok(first)["version"]
    assert again.content == first.content
    now = ok(await clients[1].get(f"/tables/{table_id}"))
    assert now["version"] == ok(first)["version"], "the retry was applied a second time"


async def test_one_leader_per_worker_across_processes(clients: list[httpx.AsyncClient]) -> None:
    for worker in ("relay", "timekeeper", "retention", "computers"):
        label = f'worker="{worker}"'

        async def one_leads(label: str = label) -> bool:
            leading = [await _metric(c, "cardroom_worker_leading", label) for c in clients]
            return sum(leading) == 1

        await _until(one_leads)


async def test_the_relay_and_live_streams_work_on_the_cluster_without_a_gap(
    deployment: Deployment, clients: list[httpx.AsyncClient]
) -> None:
    """A spectator's stream on one process follows commands sent to the other, through
    the relay's entries in the cluster and the hub's reader, every version once."""
    table_id, tokens = await _table(clients[0])
    start = ok(await clients[1].get(f"/tables/{table_id}"))["version"]
    rng = random.Random(7)
    seen: list[int] = []
    url = f"/tables/{table_id}/stream"
    async with (
        httpx.AsyncClient(base_url=deployment.bases[1], timeout=30) as streaming,
        streaming.stream("GET", url, headers={"Last-Event-ID": str(start)}) as response,
    ):
        assert response.status_code == 200
        last = start
        for _ in range(40):
            last = await _act(clients[0], table_id, tokens, rng)
        async for message in messages(response):
            if "id" in message:
                seen.append(int(message["id"]))
                if seen[-1] >= last:
                    break
    assert seen == list(range(start + 1, last + 1)), "a version missing or repeated"
    assert await _metric(clients[1], "cardroom_live_hub_connected") == 1
    cluster = redis.RedisCluster(host="127.0.0.1", port=deployment.cluster.ports[0])
    try:

        def published() -> list[int]:
            entries = cluster.xrange(table_stream(deployment.prefix, table_id))
            return [int(fields[b"version"]) for _, fields in entries]

        deadline = time.monotonic() + 10
        while published()[-1:] != [last]:
            assert time.monotonic() < deadline, "the relay did not publish every event"
            await asyncio.sleep(0.05)
        assert published() == list(range(1, last + 1))
        assert cluster.xlen(global_stream(deployment.prefix)) >= last
    finally:
        cluster.close()


async def test_rate_limits_share_one_bucket_on_the_cluster(deployment: Deployment) -> None:
    """Two processes' limiters (each its own cluster client) share each bucket: the
    script names one key, so it runs on the node that owns that key's slot."""
    policy = Policy("seat", 3, 60.0)
    clients = [RedisCluster.from_url(deployment.cluster.url) for _ in range(2)]
    limiters = [RateLimiter(client, deployment.prefix, timeout=2.0) for client in clients]
    try:
        decisions = [await limiters[n % 2].check(policy, "someone") for n in range(4)]
        assert [d.allowed for d in decisions] == [True, True, True, False]
        assert all(limiter.shared for limiter in limiters), "a limiter fell back to local"
        other = await limiters[1].check(policy, "someone else")
        assert other.allowed
    finally:
        for limiter in limiters:
            await limiter.close()


async def test_auto_tells_a_cluster_node_from_a_single_redis(deployment: Deployment) -> None:
    assert await is_cluster(deployment.cluster.url, "auto")
    assert not await is_cluster(services.redis_url(), "auto")
    assert not await is_cluster("redis://127.0.0.1:1/0", "auto", timeout=0.2)  # unreachable


async def test_a_frozen_replica_delays_no_read_past_its_deadline(
    deployment: Deployment, clients: list[httpx.AsyncClient]
) -> None:
    """Sockets open, nothing answering: a read gives the replica half a second, then
    the primary answers, well within the request's 1.5 s deadline."""
    table_id, _ = await _table(clients[0])
    await _replicas_ok(clients)
    deployment.replica.freeze()
    try:
        for turn in range(6):
            started = time.monotonic()
            ok(await clients[turn % 2].get(f"/tables/{table_id}"))
            assert time.monotonic() - started < 1.2

        async def reported() -> bool:
            return all([(await _replica_status(c)).startswith("error") for c in clients])

        await _until(reported)
    finally:
        deployment.replica.thaw()
    # Thawed, the replica's replay may wait on a query that conflicts with it for up to
    # max_standby_streaming_delay (30 s by default) before going on: in one run on a
    # loaded machine it had replayed nothing 20 s after the thaw.
    await _replicas_ok(clients, timeout=45)


async def test_reads_fail_over_to_the_primary_when_the_replica_stops(
    deployment: Deployment, clients: list[httpx.AsyncClient]
) -> None:
    table_id, tokens = await _table(clients[0])
    deployment.replica.stop()
    try:
        rng = random.Random(3)
        for turn in range(10):
            version = await _act(clients[turn % 2], table_id, tokens, rng)
            view = ok(await clients[(turn + 1) % 2].get(f"/tables/{table_id}"))
            assert view["version"] >= version
            ok(await clients[turn % 2].get("/tables?limit=3"))

        async def reported() -> bool:
            return all([(await _replica_status(c)).startswith("error") for c in clients])

        await _until(reported)
        assert (await clients[0].get("/readyz")).status_code == 200
    finally:
        deployment.replica.start()
    await _replicas_ok(clients, timeout=30)
    ok(await clients[1].get(f"/tables/{table_id}"))
