"""Operations endpoints: liveness, readiness and Prometheus metrics."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from functools import partial
from typing import Any

from litestar import Response, get
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from psycopg_pool import AsyncConnectionPool

from service import metrics as service_metrics
from service.http.docs import NO_TOKEN
from service.http.schemas import Health
from service.pg import within
from service.read.replicas import Replicas
from service.workers import lag
from service.workers.clients import AnyRedis, ping_every_node

log = logging.getLogger("cardroom.ops")
# The operations endpoints are asked by probes and scrapers, which carry no token.
ops_get = partial(get, tags=("ops",), security=NO_TOKEN)


@ops_get("/healthz", operation_id="health", summary="Liveness: the process answers")
async def healthz() -> Health:
    return Health(status="ok")


@ops_get(
    "/readyz",
    operation_id="readiness",
    summary="Readiness: Postgres answers (Redis and replicas are reported, not required)",
    responses={
        503: ResponseSpec(Health, description="A dependency is down.", generate_examples=False)
    },
)
async def readyz(
    pool: NamedDependency[AsyncConnectionPool[Any]],
    redis: NamedDependency[Any],  # AnyRedis: Litestar cannot check a union of classes
    replicas: NamedDependency[Any],  # Replicas | None
) -> Response[Health]:
    probe: AnyRedis = redis
    routed: Replicas | None = replicas
    # Both checks run at once, each within its own bound, so that a frozen dependency
    # cannot hold the answer past a probe's one-second timeout. Redis is asked on the
    # requests' own client (short timeouts), never through the fan-out hub's reader or
    # the relay's connection, so neither a busy hub nor many streams can fail it.
    postgres, redis_check = await asyncio.gather(
        _check(_select_one(pool)), _check(ping_every_node(probe))
    )
    checks = {"postgres": postgres, "redis": redis_check}
    # Each replica as its checker last found it (service.read.replicas): reads skip one
    # that is down or lagging, so none decides readiness either.
    checks.update(routed.report() if routed is not None else {})
    # Redis is a doorbell: commands succeed without it, so only Postgres decides readiness.
    ready = checks["postgres"] == "ok"
    health = Health(status="ok" if ready else "unavailable", checks=checks)
    return Response(health, status_code=200 if ready else 503)


CHECK_SECONDS = 0.8


async def _select_one(pool: AsyncConnectionPool[Any]) -> None:
    async with pool.connection(timeout=CHECK_SECONDS) as conn:
        await conn.execute("SELECT 1")


async def _check(probe: Awaitable[Any]) -> str:
    try:
        await within(probe, CHECK_SECONDS)
    except TimeoutError:
        return "error: no answer within 0.8 s"
    except Exception as exc:  # any failure means "not ready"; the reason is reported
        return f"error: {type(exc).__name__}"
    return "ok"


@ops_get(
    "/metrics",
    operation_id="metrics",
    summary="Prometheus metrics",
    # Litestar adds the charset to a text type: given prometheus_client's whole type,
    # which names one already, the header said "charset=utf-8" twice.
    media_type=CONTENT_TYPE_LATEST.removesuffix("; charset=utf-8"),
    include_in_schema=True,
)
async def metrics(pool: NamedDependency[AsyncConnectionPool[Any]]) -> bytes:
    # Every worker process's samples (service.metrics), then the lag behind the store,
    # measured now; without Postgres the lag is left out rather than the whole answer.
    body = generate_latest(service_metrics.registry())
    try:
        measured = await within(lag.measure(pool, CHECK_SECONDS), CHECK_SECONDS)
    except Exception as exc:  # the process's own metrics still answer
        log.warning("lag not measured: %s", type(exc).__name__)
        return body
    measurement = CollectorRegistry(auto_describe=False)
    measurement.register(lag.LagCollector(measured))
    return body + generate_latest(measurement)
