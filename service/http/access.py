"""The edge of every HTTP request: its id, CORS, and one log line when it is answered.

The id is the client's ``X-Request-ID`` when that is 1–128 characters of
``[A-Za-z0-9._-]``, else a new one; every answer echoes it (problems, 304s, Litestar's
own 404s and preflights included), and every log line written while the request is
answered carries it (:mod:`service.logs`). When the answer is complete, ``cardroom.access``
logs the method, path, status, duration and id, with the table and seat where the path
or the caller's token names them. A HEAD is answered here as its GET without the body.

It wraps Litestar's ASGI handler, outside routing and exception handling, so that every
answer passes through it (Litestar's ``before_send`` hooks still see them all). Each
request pays for one scan of its headers, a context variable, a send wrapper and, at
level ``info``, the log line.
"""

from __future__ import annotations

import logging
import os
import random
import re
import time
from collections.abc import Callable, Iterable
from typing import Any

from litestar.enums import ScopeType
from litestar.types import ASGIApp, HTTPScope, Message, Receive, Scope, Send

from service.http.cors import Cors
from service.logs import REQUEST, RequestNote

log = logging.getLogger("cardroom.access")

REQUEST_ID = re.compile(rb"[A-Za-z0-9._-]{1,128}")
# In the scope of a HEAD answered as its GET: the method the client asked with, for
# the request metrics (service.http.request_metrics).
ASKED_METHOD = "cardroom.asked_method"


# Ids are not secrets: 64 bits from a generator of their own (the global one is left to
# whoever seeds it), seeded afresh in a forked child so that workers never share ids.
_ids = random.Random()
os.register_at_fork(after_in_child=_ids.seed)


def new_request_id() -> bytes:
    return b"%016x" % _ids.getrandbits(64)


def request_id_of(sent: bytes | None) -> bytes:
    """The request's id: the client's own ``X-Request-ID`` if it is a valid one."""
    return sent if sent is not None and REQUEST_ID.fullmatch(sent) else new_request_id()


def allow(methods: Iterable[str]) -> str:
    """An ``Allow`` answer for a route's methods: HEAD wherever GET, as the edge answers a
    HEAD with its GET's status and headers."""
    found = set(methods)
    if "GET" in found:
        found.add("HEAD")
    return ", ".join(sorted(found))


def _headless(send: Send) -> Send:
    """A HEAD answered as its GET (RFC 9110 §9.3.2): the same status and headers, and no
    body. The answer is complete with the GET's first piece of body, so that a stream's
    app, which then hears the client go (the server's ``receive`` says so once the answer
    is complete), stops between two reads rather than inside one."""
    complete = False

    async def bodiless(message: Message) -> None:
        nonlocal complete
        if message["type"] == "http.response.start":
            await send(message)
        elif message["type"] == "http.response.body" and not complete:
            complete = True
            await send({"type": "http.response.body", "body": b"", "more_body": False})

    return bodiless


class RequestEdge:
    def __init__(
        self, app: ASGIApp, cors: Cors | None, clock: Callable[[], float] = time.perf_counter
    ) -> None:
        self.app = app
        self.cors = cors
        self.clock = clock

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        started = self.clock()
        sent: bytes | None = None
        origin: bytes | None = None
        preflight = False
        for name, value in scope["headers"]:
            if name == b"x-request-id":
                sent = value
            elif name == b"origin":
                origin = value
            elif name == b"access-control-request-method":
                preflight = True
        request_id = request_id_of(sent)
        added = [(b"x-request-id", request_id)]
        cors = self.cors
        if cors is not None:
            if preflight and origin is not None and scope["method"] == "OPTIONS":
                answer = cors.preflight_headers(origin)
                if answer is not None:
                    await send(
                        {"type": "http.response.start", "status": 204, "headers": answer + added}
                    )
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
                    note = RequestNote(request_id.decode())
                    self._log(scope, 204, self.clock() - started, note)
                    return
            added += cors.response_headers(origin)
        note = RequestNote(request_id.decode())
        token = REQUEST.set(note)
        status = 500
        # When the answer's last byte went out: what the client waited. A request past
        # its deadline is answered 503 at once while its task is still being cancelled
        # (service.http.deadline), which can take seconds more.
        answered: float | None = None

        async def stamped(message: Message) -> None:
            nonlocal status, answered
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), *added]
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                answered = self.clock()
            await send(message)

        routed: Any = scope  # the scope routing fills in (``path_params``)
        try:
            if scope["method"] == "HEAD":
                routed = {**scope, "method": "GET", ASKED_METHOD: "HEAD"}
                await self.app(routed, receive, _headless(stamped))
            else:
                await self.app(scope, receive, stamped)
        finally:
            REQUEST.reset(token)
            ended = answered if answered is not None else self.clock()
            self._log(scope, status, ended - started, note, routed.get("path_params"))

    @staticmethod
    def _log(
        scope: HTTPScope,
        status: int,
        seconds: float,
        note: RequestNote,
        params: dict[str, Any] | None = None,
    ) -> None:
        if not log.isEnabledFor(logging.INFO):
            return
        fields: dict[str, Any] = {
            "method": scope["method"],
            "path": scope["path"],
            "status": status,
            "duration_ms": round(seconds * 1000, 2),
            "request_id": note.id,
        }
        params = params or {}
        if (table_id := params.get("table_id")) is not None:
            table = fields["table"] = str(table_id)
            seat: Any = params.get("seat")  # converted by the route: an int
            if seat is None and note.seat_table == table:
                seat = note.seat
            if seat is not None:
                fields["seat"] = seat
        tournament = params.get("tournament_id")
        if tournament is not None:
            fields["tournament"] = str(tournament)
        log.info("request", extra={"fields": fields})
