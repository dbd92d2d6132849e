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
RATE_LIMITED = Counter(
    "cardroom_rate_limited_total", "Requests refused with 429, by rate-limit policy", ["policy"]
)
RATE_LIMIT_LOCAL = Counter(
    "cardroom_rate_limit_local_total",
    "Rate-limit checks decided in this process because Redis was down or too slow",
)
