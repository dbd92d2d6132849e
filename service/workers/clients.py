"""The Redis clients of a process, each with its own connections and a name.

A process holds three: ``api`` (requests: the readiness probe), ``relay`` (the relay's
publishing) and ``fanout`` (the one blocking reader of the live fan-out). None shares a
pool with another, so a reader blocked in ``XREAD`` can never hold a connection the
relay or a probe is waiting for, and the number of connections does not depend on how
many clients are streaming. ``CLIENT LIST`` shows each as ``{prefix}:{role}:{pid}``.
"""

from __future__ import annotations

import os
import re

from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff


def client_name(prefix: str, role: str, pid: int | None = None) -> str:
    """``{prefix}:{role}:{pid}``; CLIENT SETNAME refuses spaces, so they become ``_``."""
    safe = re.sub(r"[^!-~]", "_", prefix)
    return f"{safe}:{role}:{os.getpid() if pid is None else pid}"


def named_client(
    url: str,
    prefix: str,
    role: str,
    *,
    timeout: float,
    connections: int = 1,
    retries: int = 0,
) -> Redis:
    """A client of its own for ``role``: at most ``connections`` connections, each
    command bounded by ``timeout`` seconds and retried at most ``retries`` times (the
    callers have their own backoff; redis-py's default would retry ten times)."""
    return Redis.from_url(
        url,
        client_name=client_name(prefix, role),
        socket_timeout=timeout,
        socket_connect_timeout=min(timeout, 2.0),
        max_connections=connections,
        retry=Retry(NoBackoff(), retries),
    )
