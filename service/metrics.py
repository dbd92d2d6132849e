"""Prometheus metrics the service keeps beside the per-request ones of the middleware."""

from __future__ import annotations

from prometheus_client import Counter

COMMANDS = Counter(
    "cardroom_commands_total",
    "Seat commands by outcome (accepted or the refusal code)",
    ["outcome"],
)
EVENTS_APPENDED = Counter("cardroom_events_appended_total", "Events appended to the store")
CONFLICTS = Counter("cardroom_version_conflicts_total", "Appends that lost a race")
