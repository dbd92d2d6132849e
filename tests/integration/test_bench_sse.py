"""`cardroom bench sse`, run as a user runs it (small): a real server, many spectator
streams over a few tables, the figures as JSON on stdout. The figures themselves are not
judged here (the machine is shared); what is checked is that they measure what they say:
every stream received every event once, and each command has a latency on every stream
of its table."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support import services

TABLES = 3
STREAMS = 30


def test_bench_sse_follows_every_event_on_every_stream_and_reports_the_p99() -> None:
    command = [
        sys.executable, "-m", "service.tools.cli", "bench", "sse",
        "--tables", str(TABLES), "--streams", str(STREAMS),
        "--seconds", "2", "--pause", "0.05",
        "--admin-database-url", services.admin_database_url(),
        "--redis-url", services.redis_url(),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(done.stdout)

    assert figures["streams"] == STREAMS and figures["tables"] == TABLES
    assert figures["commands"] > 0 and figures["commands_per_second"] > 0
    # Every event after the start reached every stream of its table.
    assert figures["messages_received"] == figures["messages_expected"] > 0
    # Each command's event is measured once on each of its table's ten streams.
    assert figures["latency"]["count"] == figures["commands"] * (STREAMS // TABLES)
    assert 0 <= figures["latency"]["p50_ms"] <= figures["latency"]["p99_ms"]
    assert figures["p99_target_ms"] == 100
    assert figures["p99_within_target"] == (figures["latency"]["p99_ms"] <= 100)
