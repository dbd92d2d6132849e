"""``/readyz`` with a Redis Cluster reports every node of it (DESIGN 12, 13): a cluster
client's own PING goes to one node only, so a node holding the global stream could be
down for good while the probe said "ok". Its own cluster: a node is shut down."""

from __future__ import annotations

import subprocess
import time

import httpx
import pytest

from service.tools.bench.harness import running_server
from service.workers.streams import global_stream
from tests.support import services
from tests.support.redis_cluster import RedisCluster

PREFIX = "readiness"


def redis_said(base: str) -> str:
    checks = httpx.get(f"{base}/readyz", timeout=5).json()["checks"]
    return str(checks["redis"])


def until(condition: object, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.1)


@pytest.mark.parametrize("node", ["stream", "named"])
def test_a_cluster_node_down_is_reported_whichever_node_it_is(node: str) -> None:
    """``stream``: the node holding the global stream (never the one the URL names);
    ``named``: the one the URL names, whose failure the client answered by asking
    another node from then on, and the probe said "ok" again within a second."""
    cluster = RedisCluster()
    cluster.start()
    try:
        stream_node = cluster.node_of(global_stream(PREFIX))
        if node == "named":
            down = cluster.ports[0]
        else:  # the stream's node; another one when the URL names that node
            down = stream_node if stream_node != cluster.ports[0] else cluster.ports[1]
        env = {"CARDROOM_REDIS_CLUSTER": "1", "CARDROOM_REDIS_PREFIX": PREFIX}
        database = services.fresh_database("readiness_")
        with running_server(database, cluster.url, extra_env=env) as server:
            until(lambda: redis_said(server.base) == "ok")
            subprocess.run(
                ["redis-cli", "-p", str(down), "shutdown", "nosave"],
                check=False,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            until(lambda: redis_said(server.base).startswith("error"))
            for _ in range(10):  # and goes on saying so, whichever node the client asks
                time.sleep(0.2)
                assert redis_said(server.base).startswith("error")
    finally:
        cluster.stop()
