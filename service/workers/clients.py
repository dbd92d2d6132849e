"""The Redis clients of a process, each with its own connections and a name.

A process holds three: ``api`` (requests: the readiness probe), ``relay`` (the relay's
publishing) and ``fanout`` (the one blocking reader of the live fan-out). None shares a
pool with another, so a reader blocked in ``XREAD`` can never hold a connection the
relay or a probe is waiting for, and the number of connections does not depend on how
many clients are streaming. ``CLIENT LIST`` shows each as ``{prefix}:{role}:{pid}``.

Against a Redis Cluster (``CARDROOM_REDIS_CLUSTER``) each is a cluster client instead:
it learns the slot map from the node in the URL, sends every command to the node that
owns its key and follows the cluster when slots move; its limits apply per node. On a
cluster no command of the service names two keys (DESIGN 13), so none can span slots:
the relay's batch script, which does, is used on a single Redis only.
"""

from __future__ import annotations

import os
import re
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

AnyRedis = Redis | RedisCluster


def client_name(prefix: str, role: str, pid: int | None = None) -> str:
    """``{prefix}:{role}:{pid}``; CLIENT SETNAME refuses spaces, so they become ``_``."""
    safe = re.sub(r"[^!-~]", "_", prefix)
    return f"{safe}:{role}:{os.getpid() if pid is None else pid}"


def redis_client(url: str, *, cluster: bool, **options: Any) -> AnyRedis:
    """A client of ``url``: a cluster client when ``cluster``."""
    if cluster:
        return RedisCluster.from_url(url, **options)
    return Redis.from_url(url, **options)


def named_client(
    url: str,
    prefix: str,
    role: str,
    *,
    timeout: float,
    connections: int = 1,
    retries: int = 0,
    cluster: bool = False,
) -> AnyRedis:
    """A client of its own for ``role``: at most ``connections`` connections (per node
    of a cluster), each command bounded by ``timeout`` seconds and retried at most
    ``retries`` times (the callers have their own backoff; redis-py's default would
    retry ten times)."""
    return redis_client(
        url,
        cluster=cluster,
        client_name=client_name(prefix, role),
        socket_timeout=timeout,
        socket_connect_timeout=min(timeout, 2.0),
        max_connections=connections,
        retry=Retry(NoBackoff(), retries),
    )


async def ping_every_node(client: AnyRedis) -> object:
    """PING the server, or every primary of a cluster: a cluster client's own ``ping``
    asks only one node (its default), which says nothing of the node that holds the
    global stream, and it picks another default when that one fails."""
    if isinstance(client, RedisCluster):
        return await client.ping(target_nodes=RedisCluster.PRIMARIES)
    return await client.ping()


async def is_cluster(url: str, switch: str, timeout: float = 1.0) -> bool:
    """Whether ``url`` is a Redis Cluster node: ``CARDROOM_REDIS_CLUSTER`` says so, or,
    when it is ``auto``, the server does (``INFO cluster``; unreachable: not a cluster)."""
    if switch != "auto":
        return switch == "1"
    probe = Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
    try:
        info: Any = await probe.info("cluster")
        return bool(int(info.get("cluster_enabled", 0)))
    except Exception:
        return False
    finally:
        await probe.aclose()
