"""Prometheus metrics the service keeps beside the per-request ones of the middleware."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

COMMANDS = Counter(
    "cardroom_commands_total",
    "Seat commands by outcome (accepted or the refusal code)",
    ["outcome"],
)
EVENTS_APPENDED = Counter("cardroom_events_appended_total", "Events appended to the store")
CONFLICTS = Counter("cardroom_version_conflicts_total", "Appends that lost a race")
LIVE_STREAMS = Gauge("cardroom_live_streams", "SSE streams open in this process")
LIVE_HUB_CONNECTED = Gauge(
    "cardroom_live_hub_connected", "1 while this process's fan-out hub is reading Redis"
)
LIVE_OVERFLOWS = Counter(
    "cardroom_live_overflows_total",
    "Times an SSE stream fell behind the fan-out hub and caught up from Postgres instead",
)
