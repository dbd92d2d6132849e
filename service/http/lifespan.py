"""What the app holds while it serves: the pool, Redis, the write path, the read side and
the background workers, made at start-up and closed in order at shutdown."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from typing import Literal

import anyio
import psycopg
from litestar import Litestar
from psycopg.conninfo import make_conninfo
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from service.http import stopping
from service.http.auth import Authenticator
from service.http.holds import Holds
from service.http.throttle import Throttle, policies, trusted_networks
from service.pg import request_pool
from service.ratelimit import RateLimiter
from service.read.models import ReadSide
from service.read.replicas import Replicas
from service.read.watch import TableWatcher
from service.runtime import tune_collector
from service.settings import Settings
from service.workers.clients import AnyRedis, is_cluster, named_client, redis_client
from service.workers.computers import ComputerPlayers
from service.workers.fanout import BLOCK, Hub
from service.workers.projector import Projector
from service.workers.relay import Relay
from service.workers.retention import Retention
from service.workers.rounds import RoundKeeper
from service.workers.timekeeper import Timekeeper
from service.write.handler import TableService
from service.write.migrate import migrate as apply_migrations
from service.write.store import EventStore, Notifier
from service.write.tournament_store import TournamentStore
from service.write.tournaments import TournamentService

log = logging.getLogger("cardroom")
PROBE_SECONDS = 0.5  # a request's Redis command (the readiness probe) fails by then
# At shutdown, how long the background workers have to finish their step, and then to
# be cancelled: one waiting on a database that stopped answering must not keep the
# process from exiting (everything it acknowledged is committed already).
STOP_SECONDS = 5.0


# "at-start": apply them or fail to start; "if-reachable": apply them unless the database
# does not answer (a worker of `cardroom serve`, which applied them before starting any
# worker: one replacing a worker that died must start during an outage too, and one
# started by SIGHUP after an upgrade in place still applies the new ones); "no".
Migrate = Literal["at-start", "if-reachable", "no"]
MIGRATE_SECONDS = 3.0  # a frozen database's connect fails after 2 s (CONNECT_OPTIONS)


async def _migrated_if_reachable(database_url: str) -> None:
    quick = make_conninfo(database_url, connect_timeout=2)
    try:
        with anyio.fail_after(MIGRATE_SECONDS):
            # Abandoned on timeout: a frozen database holds its thread, not the start.
            await anyio.to_thread.run_sync(apply_migrations, quick, abandon_on_cancel=True)
    except (psycopg.OperationalError, TimeoutError) as exc:
        log.warning("migrations not checked, the database does not answer (%s)", exc)


def lifespan(
    settings: Settings, *, migrate: Migrate = "at-start"
) -> Callable[[Litestar], AbstractAsyncContextManager[None]]:
    """``migrate``: how pending migrations are applied first (:data:`Migrate`). A process
    that may start without them needs no database to start: it answers 503 until the
    database answers."""
    assert settings.database_url, "the CLI starts an embedded Postgres when none is configured"
    database_url = settings.database_url

    @asynccontextmanager
    async def serving(app: Litestar) -> AsyncIterator[None]:
        if migrate == "at-start":
            await anyio.to_thread.run_sync(apply_migrations, database_url)
        elif migrate == "if-reachable":
            await _migrated_if_reachable(database_url)
        # Each thing opened is closed, in the reverse order, when serving ends, and also
        # when a later step of the start fails: a pool left open kept its workers
        # reconnecting, and the process never exited after "Application startup failed".
        async with AsyncExitStack() as opened:
            pool = request_pool(
                database_url, settings.pool_min, settings.pool_max, settings.request_seconds
            )
            await pool.open()
            opened.push_async_callback(pool.close)
            replicas = None
            if settings.replica_urls:
                replicas = Replicas.connect(
                    pool,
                    settings.replica_urls,
                    max_size=settings.pool_max,
                    max_lag_seconds=settings.replica_max_lag_seconds,
                )
                await replicas.open()
                opened.push_async_callback(replicas.close)
            redis_url = settings.redis_url or "redis://127.0.0.1:6379/0"
            prefix = settings.redis_prefix
            cluster = await is_cluster(redis_url, settings.redis_cluster)
            # Three Redis clients, none sharing a connection with another (service.
            # workers.clients): requests (the readiness probe: short timeouts, a few
            # connections), the fan-out hub's one blocking reader, and the relay's
            # publisher below.
            redis = named_client(
                redis_url, prefix, "api", timeout=PROBE_SECONDS, connections=4, cluster=cluster
            )
            opened.push_async_callback(redis.aclose)
            fanout = named_client(redis_url, prefix, "fanout", timeout=BLOCK + 1.5, cluster=cluster)
            hub = Hub(fanout, prefix)
            watcher = TableWatcher(database_url)
            notifier = Notifier(pool, local=watcher.committed)
            notifier.start()
            opened.push_async_callback(notifier.stop)
            store = EventStore(pool, notifier, reads=replicas)
            await watcher.start()
            opened.push_async_callback(watcher.stop)
            hub.start()
            opened.push_async_callback(hub.stop)
            service = TableService(store)
            tournaments = TournamentService(
                TournamentStore(pool, notifier, reads=replicas), service
            )
            auth = Authenticator(store, settings.operator_token, tournaments=tournaments.store)
            limiter, throttle = None, None
            trusted = trusted_networks(settings.trusted_proxies)
            if settings.rate_limits:
                limiter = RateLimiter(_limiter_redis(redis_url, cluster), settings.redis_prefix)
                opened.push_async_callback(limiter.close)
                throttle = Throttle(limiter, auth, policies(settings), trusted)
            app.state.update(
                read_side=ReadSide(pool if replicas is None else replicas),
                pool=pool,
                replicas=replicas,
                redis=redis,
                hub=hub,
                store=store,
                watcher=watcher,
                settings=settings,
                service=service,
                tournaments=tournaments,
                auth=auth,
                throttle=throttle,
                holds=Holds.of(settings, trusted),
            )
            publisher = None
            if settings.relay:
                publisher = named_client(
                    redis_url, prefix, "relay", timeout=5.0, retries=1, cluster=cluster
                )
                opened.push_async_callback(publisher.aclose)
            stop = asyncio.Event()
            background: list[asyncio.Task[None]] = []

            async def stop_background() -> None:  # first of all, before what they use
                stop.set()
                await _stopped(background)

            opened.push_async_callback(stop_background)
            if replicas is not None:
                background.append(
                    asyncio.create_task(replicas.run_checks(stop), name="cardroom-replicas")
                )
            if limiter is not None:
                background.append(
                    asyncio.create_task(limiter.load_script(), name="cardroom-rate-script")
                )
            if publisher is not None:
                relay = Relay(store, publisher, prefix, database_url, watcher)
                background.append(asyncio.create_task(relay.run(stop), name="cardroom-relay"))
            if settings.projector:
                projector = Projector(pool)
                background.append(
                    asyncio.create_task(projector.run(stop, watcher), name="cardroom-projector")
                )
            computers = ComputerPlayers(service, watcher)
            background.append(
                asyncio.create_task(computers.run(database_url, stop), name="cardroom-computers")
            )
            rounds = RoundKeeper(tournaments, watcher)
            background.append(
                asyncio.create_task(rounds.run(database_url, stop), name="cardroom-rounds")
            )
            if settings.timekeeper:
                timekeeper = Timekeeper(service, watcher)
                background.append(
                    asyncio.create_task(
                        timekeeper.run(database_url, stop), name="cardroom-timekeeper"
                    )
                )
            if settings.retention:
                retention = Retention.configured(service, settings)
                background.append(
                    asyncio.create_task(
                        retention.run(database_url, stop), name="cardroom-retention"
                    )
                )

            def let_go() -> None:  # a graceful stop begins: long-polls and streams end now
                watcher.release()
                hub.wake_all()

            opened.callback(stopping.on_stop(let_go))
            tune_collector()
            yield

    return serving


async def _stopped(workers: list[asyncio.Task[None]]) -> None:
    """The workers, told to stop, stopped: those still at work after ``STOP_SECONDS``
    are cancelled, and given as long again to unwind."""
    _, pending = await asyncio.wait(workers, timeout=STOP_SECONDS)
    for task in pending:
        log.warning("%s did not stop within %.0f s: cancelled", task.get_name(), STOP_SECONDS)
        task.cancel()
    if pending:
        await asyncio.wait(pending, timeout=STOP_SECONDS)


def _limiter_redis(redis_url: str, cluster: bool) -> AnyRedis:
    """The rate limiter's own client: no retries, sockets that give up as soon as the
    limiter itself would (it bounds every call and falls back to local buckets), and
    connections for its two pipelines and its probe."""
    return redis_client(
        redis_url,
        cluster=cluster,
        socket_timeout=0.1,
        socket_connect_timeout=0.1,
        retry=Retry(NoBackoff(), 0),
        max_connections=4,
    )
