"""Request metrics: ``cardroom_requests_total``, ``cardroom_request_duration_seconds``,
``cardroom_requests_error_total`` and ``cardroom_requests_in_progress``, by method, route
template, status and app, as Litestar's Prometheus middleware names them.

This is that middleware's bookkeeping without its per-request overhead: it built a
``Request`` and parsed the URL only to replace the path with the route's template,
copied the ``send`` callable's attributes with ``functools.wraps``, and looked up each
metric's labelled child afresh (py-spy: about 8% of a 304's CPU, the middleware and
prometheus_client together). Here a request costs a dict lookup for its children and
the updates themselves.
"""

from __future__ import annotations

import time
from typing import Any

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from prometheus_client import Counter, Gauge, Histogram

from service.http.access import ASKED_METHOD

APP = "cardroom"
LABELS = ("method", "path", "status_code", "app_name")
_REQUESTS = Counter("cardroom_requests_total", "Total requests", LABELS)
_DURATION = Histogram("cardroom_request_duration_seconds", "Request duration, in seconds", LABELS)
_ERRORS = Counter("cardroom_requests_error_total", "Total errors in requests", LABELS)
# Labelled as the other three; its status is always 200 (not known while in progress).
_IN_PROGRESS = Gauge(
    "cardroom_requests_in_progress",
    "Total requests currently in progress",
    LABELS,
    multiprocess_mode="livesum",
)


class _Route:
    """One route's (method and template) metrics, their children made once."""

    __slots__ = ("answered", "in_progress", "method", "path")

    def __init__(self, method: str, path: str) -> None:
        self.method = method
        self.path = path
        self.in_progress = _IN_PROGRESS.labels(method, path, "200", APP)
        self.answered: dict[int, tuple[Any, Any, Any]] = {}

    def record(self, status: int, seconds: float) -> None:
        children = self.answered.get(status)
        if children is None:
            labels = (self.method, self.path, str(status), APP)
            errors = _ERRORS.labels(*labels) if status >= 500 else None
            children = self.answered[status] = (
                _REQUESTS.labels(*labels),
                _DURATION.labels(*labels),
                errors,
            )
        requests, duration, errors = children
        requests.inc()
        duration.observe(seconds)
        if errors is not None:
            errors.inc()


def request_metrics_middleware(app: ASGIApp) -> ASGIApp:
    """Litestar middleware (it runs once a route matched: ``path_template`` is known)."""
    routes: dict[tuple[str, str], _Route] = {}

    async def measured(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return
        asked: str | None = scope.get(ASKED_METHOD)  # type: ignore[assignment]
        key = (asked or scope["method"], scope["path_template"])
        route = routes.get(key)
        if route is None:
            route = routes[key] = _Route(*key)
        started = time.perf_counter()
        status = 200
        seconds = 0.0

        async def timed(message: Message) -> None:
            nonlocal status, seconds
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                seconds = time.perf_counter() - started  # a stream's: until its last chunk
            await send(message)

        route.in_progress.inc()
        try:
            await app(scope, receive, timed)
        finally:
            route.in_progress.dec()
            route.record(status, seconds)

    return measured
