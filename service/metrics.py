"""Prometheus metrics the service keeps beside the per-request ones of the middleware.

Under ``cardroom serve --workers N`` each worker is a process of its own, and a scrape
lands on any one of them. prometheus_client's multiprocess mode makes every process
write its samples to files in ``PROMETHEUS_MULTIPROC_DIR`` (which ``serve`` creates for
the run, hands to its workers and removes at the end), and :func:`registry` reads them
all back, so any worker answers for the whole server: counters summed over its
processes, dead ones included; the leadership gauge per live process (``liveall``).
The supervisor removes a dead worker's live gauges (``mark_process_dead``).

The counters here are counted where things happen: commands where the write path
decides them (``service.write.handler``), events and version conflicts where the store
commits (``service.write.store``). Lag behind the store is measured when scraped
(``service.workers.lag``), since it is a property of the database, not of a process.
"""

from __future__ import annotations

import os

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, multiprocess

MULTIPROC_DIR = "PROMETHEUS_MULTIPROC_DIR"  # prometheus_client's own variable

COMMANDS = Counter(
    "cardroom_commands_total",
    "Seat commands (players' and the computer's) by outcome: accepted, replayed"
    " (an Idempotency-Key's first answer sent again) or the refusal code",
    ["outcome"],
)
EVENTS_APPENDED = Counter("cardroom_events_appended_total", "Events appended to the store")
CONFLICTS = Counter("cardroom_version_conflicts_total", "Appends that lost a race")
COMMIT_BATCHES = Histogram(
    "cardroom_commit_batch_size",
    "Commits applied by one call to Postgres: the appends of concurrent commands travel"
    " together (group commit), so under load a batch holds more than one",
    buckets=(1, 2, 4, 8, 16, 32),
)
RATE_LIMITED = Counter(
    "cardroom_rate_limited_total", "Requests refused with 429, by rate-limit policy", ["policy"]
)
RATE_LIMIT_LOCAL = Counter(
    "cardroom_rate_limit_local_total",
    "Rate-limit checks decided in this process because Redis was down or too slow",
)
LEADING = Gauge(
    "cardroom_worker_leading",
    "1 while this process leads the worker (relay, projector, computers, timekeeper,"
    " retention), else 0",
    ["worker"],
    multiprocess_mode="liveall",
)


def multiprocess_dir() -> str | None:
    """Where the processes of a multi-worker server write their samples, if they do."""
    return os.environ.get(MULTIPROC_DIR) or None


def registry() -> CollectorRegistry:
    """What ``/metrics`` reports: this process's registry, or, when the server runs
    several processes, every process's samples merged (a new registry per scrape, as
    prometheus_client's multiprocess mode asks)."""
    directory = multiprocess_dir()
    if directory is None:
        return REGISTRY
    merged = CollectorRegistry()
    multiprocess.MultiProcessCollector(merged, path=directory)  # type: ignore[no-untyped-call]
    return merged


# livesum: a worker that died takes its count with it (its pid's file is marked dead).
LIVE_STREAMS = Gauge(
    "cardroom_live_streams", "SSE streams open in this process", multiprocess_mode="livesum"
)
HELD = Gauge(
    "cardroom_held_requests",
    "Long-polls and streams this process holds open",
    multiprocess_mode="livesum",
)
HELD_SUPERSEDED = Counter(
    "cardroom_held_superseded_total",
    "Held requests ended early: a newer one of the same client took the place",
)
HELD_REFUSED = Counter(
    "cardroom_held_refused_total", "Long-polls and streams refused: the process held its most"
)
# liveall: each live worker's own value; a dead worker's goes with it.
LIVE_HUB_CONNECTED = Gauge(
    "cardroom_live_hub_connected",
    "1 while this process's fan-out hub is reading Redis",
    multiprocess_mode="liveall",
)
LIVE_OVERFLOWS = Counter(
    "cardroom_live_overflows_total",
    "Times an SSE stream fell behind the fan-out hub and caught up from Postgres instead",
)
LIVE_READS = Counter(
    "cardroom_live_postgres_reads_total",
    "Times a table's SSE stream, with the fan-out hub live, read its events from Postgres"
    " instead of taking the hub's: entries missing (lost), nothing for a while (quiet), a"
    " gap or the table's end (gap), or a seat's or the operator's hidden cards (private)",
    ["reason"],
)
READS = Counter(
    "cardroom_reads_total",
    "Reads that may go to a replica, by where they ran: replica, primary (no replica"
    " usable), primary-replica-behind (it had not replayed the primary's position yet) or"
    " primary-replica-failed",
    ["source"],
)
