"""``cardroom bench replicas``: conditional GETs (answered 304) per second served with no
replica and with one streaming replica, in the same run on the same tables (DESIGN 13).

The replica must already stream from the primary that ``--admin-database-url`` names;
the scratch database is made there and read through ``--replica-url`` once the replica
has replayed its creation. Each figure comes from its own ``cardroom serve``: the first
with no replica, the second with ``CARDROOM_REPLICA_URLS``, and reports where its reads
ran (``cardroom_reads_total``).
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

import httpx
import psycopg

from service.tools.bench import load
from service.tools.bench.harness import CpuMeter, running_server, scratch_database

CLIENTS = 16


def _replayed(replica_admin_url: str, database: str, timeout: float = 30.0) -> str:
    """The replica's URL of ``database``, once the replica has it."""
    deadline = time.monotonic() + timeout
    with psycopg.connect(replica_admin_url, autocommit=True) as conn:
        query = "SELECT 1 FROM pg_database WHERE datname = %s"
        while not conn.execute(query, (database,)).fetchone():
            if time.monotonic() > deadline:
                raise RuntimeError(f"the replica never replayed the creation of {database}")
            time.sleep(0.05)
    return psycopg.conninfo.make_conninfo(replica_admin_url, dbname=database)


def _reads(base: str) -> dict[str, float]:
    text = httpx.get(f"{base}/metrics", timeout=5).text
    found = re.findall(r'^cardroom_reads_total\{source="([^"]+)"\} ([0-9.e+]+)$', text, re.M)
    return {source: float(count) for source, count in found}


def run(
    admin_url: str, replica_admin_url: str, redis_url: str, seconds: float, workers: int
) -> dict[str, Any]:
    result: dict[str, Any] = {"seconds_per_figure": seconds, "server_workers": workers}
    with scratch_database(admin_url) as database_url:
        database = psycopg.conninfo.conninfo_to_dict(database_url)["dbname"]
        replica_url = _replayed(replica_admin_url, str(database))
        seated = None
        for name, extra in (
            ("no_replica", {}),
            ("one_replica", {"CARDROOM_REPLICA_URLS": replica_url}),
        ):
            with running_server(database_url, redis_url, workers, extra_env=extra) as server:
                if seated is None:
                    plans = load.make_plans(CLIENTS, 10_000)
                    seated = asyncio.run(load.seat_tables(server.base, server.operator, plans))
                    time.sleep(0.5)  # the replica replays the seating
                meter = CpuMeter(server)
                reads = asyncio.run(load.run_reads(server.base, seated, CLIENTS, seconds, True))
                reads["cpu_seconds_per_1000"] = meter.per_thousand(
                    reads["requests"], reads["elapsed"]
                )
                reads["reads_by_source"] = _reads(server.base)
                result[name] = reads
        result["ratio_one_replica_to_none"] = round(
            result["one_replica"]["per_second"] / max(result["no_replica"]["per_second"], 1e-9), 2
        )
    return result
