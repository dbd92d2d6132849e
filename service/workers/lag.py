"""How far the workers are behind, measured in Postgres when ``/metrics`` is scraped.

Lag is a property of the database, not of a process: the relay and each projection are
behind by the events after their checkpoint, however many processes stand by and
whichever of them leads (or none: a stalled or absent consumer's lag keeps growing,
which is the point of measuring it here). Any worker that answers a scrape measures the
same thing. The timekeeper is behind by how long the most overdue clock has been
expired, and its heartbeat's age tells whether one runs at all.

Every figure is an indexed read: the events after a checkpoint (``events_global_order``,
counted up to ``COUNT_CAP``), the earliest deadline (``tables_deadline``), one
heartbeat row.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from psycopg_pool import AsyncConnectionPool

from service.read.catalog import PROJECTIONS
from service.write.restored import RELAY as RELAY_CHECKPOINT

COUNT_CAP = 100_000  # events counted behind a checkpoint at most: a scrape stays cheap


class ConsumerLag(msgspec.Struct, frozen=True):
    events: int  # events after the checkpoint (at most COUNT_CAP)
    seconds: float  # age of the oldest of them; 0 when caught up


class Lag(msgspec.Struct, frozen=True):
    relay: ConsumerLag
    projections: dict[str, ConsumerLag]
    timekeeper_seconds: float  # how long the most overdue clock has been expired
    heartbeat_age: float | None  # seconds since a timekeeper last beat; None: never


_CONSUMERS = (
    "SELECT n.name,"
    " (SELECT count(*) FROM (SELECT 1 FROM events e"
    "   WHERE (e.tx, e.position) > (coalesce(c.tx, 0)::text::xid8, coalesce(c.position, 0))"
    "   LIMIT %s) AS behind),"
    " coalesce((SELECT greatest(0, extract(epoch FROM now() - e.recorded_at))::float8"
    "   FROM events e"
    "   WHERE (e.tx, e.position) > (coalesce(c.tx, 0)::text::xid8, coalesce(c.position, 0))"
    "   ORDER BY e.tx, e.position LIMIT 1), 0)"
    " FROM unnest(%s::text[]) AS n(name)"
    " LEFT JOIN consumer_checkpoints c ON c.name = n.name"
)
_TIMEKEEPER = (
    "SELECT coalesce((SELECT greatest(0, extract(epoch FROM now() - min(deadline)))::float8"
    "   FROM tables WHERE deadline IS NOT NULL), 0),"
    " (SELECT extract(epoch FROM now() - alive_at)::float8"
    "   FROM timekeeper_heartbeat WHERE id = 1)"
)


async def measure(pool: AsyncConnectionPool[Any], timeout: float) -> Lag:
    """Every lag figure, read on one connection of ``pool``."""
    names = {p.checkpoint_name: p.name for p in PROJECTIONS.values()}
    async with pool.connection(timeout=timeout) as conn:
        cur = await conn.execute(_CONSUMERS, (COUNT_CAP, [RELAY_CHECKPOINT, *names]))
        consumers = {
            row[0]: ConsumerLag(int(row[1]), float(row[2])) for row in await cur.fetchall()
        }
        cur = await conn.execute(_TIMEKEEPER)
        row = await cur.fetchone()
    assert row is not None
    return Lag(
        relay=consumers[RELAY_CHECKPOINT],
        projections={name: consumers[checkpoint] for checkpoint, name in names.items()},
        timekeeper_seconds=float(row[0]),
        heartbeat_age=None if row[1] is None else float(row[1]),
    )


class LagCollector(Collector):
    """One measurement as Prometheus gauges."""

    def __init__(self, lag: Lag) -> None:
        self.lag = lag

    def collect(self) -> Iterator[Metric]:
        lag = self.lag
        yield GaugeMetricFamily(
            "cardroom_relay_lag_events",
            f"Events committed that the relay has not published yet (counted up to {COUNT_CAP})",
            value=lag.relay.events,
        )
        yield GaugeMetricFamily(
            "cardroom_relay_lag_seconds",
            "Age of the oldest event the relay has not published yet (0: caught up)",
            value=lag.relay.seconds,
        )
        events = GaugeMetricFamily(
            "cardroom_projector_lag_events",
            f"Events committed that a projection has not folded yet (counted up to {COUNT_CAP})",
            labels=["projection"],
        )
        seconds = GaugeMetricFamily(
            "cardroom_projector_lag_seconds",
            "Age of the oldest event a projection has not folded yet (0: caught up)",
            labels=["projection"],
        )
        for name, behind in sorted(lag.projections.items()):
            events.add_metric([name], behind.events)
            seconds.add_metric([name], behind.seconds)
        yield events
        yield seconds
        yield GaugeMetricFamily(
            "cardroom_timekeeper_lag_seconds",
            "How long the most overdue clock has been expired without being fired (0: none)",
            value=lag.timekeeper_seconds,
        )
        if lag.heartbeat_age is not None:
            yield GaugeMetricFamily(
                "cardroom_timekeeper_heartbeat_age_seconds",
                "Seconds since the leading timekeeper last wrote its heartbeat",
                value=lag.heartbeat_age,
            )
