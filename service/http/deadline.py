"""Every request answers within its deadline: a database that stops answering (frozen,
partitioned, overloaded) becomes a quick 503, never a request held for the outage.

A frozen Postgres keeps its sockets open and its kernel acknowledges every packet, so
neither TCP keepalives nor libpq's timeouts notice; only the client's own deadline does.
The handler runs as a task of its own: when the deadline passes before it has started
its answer, the client gets ``503 database-unavailable`` with ``Retry-After`` at once
and the task is cancelled behind it (psycopg then spends up to seconds cancelling the
query server-side, which no client waits for). Streams and long-polls get their own
time on top: ``/stream`` is exempt and ``?wait=`` adds its seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any
from urllib.parse import parse_qs

import msgspec
from litestar.enums import ScopeType
from litestar.types import ASGIApp, HTTPResponseStartEvent, Message, Receive, Scope, Send

from service.http.problems import PROBLEM_JSON, problem

log = logging.getLogger("cardroom")
_encode = msgspec.json.Encoder().encode
VERIFY_SECONDS = 30


def _allowed(scope: Scope, seconds: float) -> float | None:
    """This request's deadline in seconds, or None for a stream (it has no deadline)."""
    if scope["path"].endswith("/stream"):
        return None
    if scope["path"].endswith("/verification"):
        # Re-running a whole tournament is seconds of CPU, not a database wait.
        return seconds + VERIFY_SECONDS
    wait = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("wait")
    if wait and wait[0].isdigit():
        return seconds + int(wait[0])
    return seconds


def deadline_middleware(seconds: float) -> Any:
    def wrap(app: ASGIApp) -> ASGIApp:
        async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
            allowed = _allowed(scope, seconds) if scope["type"] == ScopeType.HTTP else None
            if allowed is None:
                await app(scope, receive, send)
                return
            started = False
            answered = False

            async def tracked(message: Message) -> None:
                nonlocal started
                if answered:
                    return  # the client already has its 503
                started = True
                await send(message)

            task = asyncio.ensure_future(app(scope, receive, tracked))
            done, _ = await asyncio.wait({task}, timeout=allowed)
            if task in done:
                task.result()  # re-raise what the app raised, as without this wrapper
                return
            if started:  # the answer is under way: let it finish
                await task
                return
            answered = True
            task.cancel()
            task.add_done_callback(_quiet)
            log.warning("%s: no answer within %.1f s", scope["path"], allowed)
            await _unavailable(scope, send)

        return guarded

    return wrap


def _quiet(task: asyncio.Task[None]) -> None:
    with contextlib.suppress(BaseException):
        task.result()


async def _unavailable(scope: Scope, send: Send) -> None:
    body = _encode(
        problem(
            "database-unavailable",
            "the database did not answer in time; try again shortly",
            instance=scope["path"],
        )
    )
    start: HTTPResponseStartEvent = {
        "type": "http.response.start",
        "status": 503,
        "headers": [
            (b"content-type", PROBLEM_JSON.encode()),
            (b"content-length", str(len(body)).encode()),
            (b"retry-after", b"1"),
        ],
    }
    await send(start)
    await send({"type": "http.response.body", "body": body, "more_body": False})
