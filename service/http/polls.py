"""Conditional and long-polled answers read from a tournament's stream: ``/me`` and a
round. A mobile app waiting between rounds asks these again and again, so each carries
an ETag, answers 304 while it is current, and with ``wait`` holds the request until the
answer changes.

The tag is a hash of the answer's bytes, not a version: ``/me`` reads two streams (the
tournament's, and the seat's table, where a seat handed on revokes its token) and most
of their moves leave it unchanged, so a version would send the same answer again where
the bytes say it is the same. A long-poll waits on the streams the answer was read from
(service.read.watch) and reads again each time one moves, or every few seconds in case
a notification was lost with the LISTEN connection.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import msgspec
from litestar import Request, Response
from litestar.datastructures import ResponseHeader

from service.http.auth import Caller
from service.http.conditional import (
    AnswerWait,
    IfNoneMatch,
    content_tag,
    entity_tags,
    named_tags,
)
from service.http.deadline import RequestDeadline, deadline_of
from service.http.holds import holds_of
from service.http.problems import client_gone
from service.read.watch import TableWatcher

RECHECK_SECONDS = 5.0  # a parked poll reads again this often, notified or not
_JSON = "application/json"
_encode = msgspec.json.Encoder().encode

Read = Callable[[], Awaitable[tuple[Any, Mapping[str, int]]]]
"""Reads the answer now: the value to send, and the streams it was read from, each at the
version read (a table's id, or ``tournament:<id>``)."""

PRIVATE = "private, no-cache"  # an answer that holds a seat's token
PUBLIC = "no-cache"


def documented(cache_control: str) -> list[ResponseHeader]:
    """The headers such an answer carries, for the OpenAPI document."""
    private = cache_control == PRIVATE
    headers = [
        ResponseHeader(
            name="ETag",
            description="Strong tag of the answer's bytes: opaque; send it back in"
            " `If-None-Match` for a 304 while the answer is the same.",
            value='"5d41402abc4b2a76b9719d911017c592"',
            documentation_only=True,
        ),
        ResponseHeader(
            name="Cache-Control",
            description="The caller's own answer: revalidated, never kept by a shared cache."
            if private
            else "Revalidate before reuse.",
            value=cache_control,
            documentation_only=True,
        ),
    ]
    if private:
        headers.append(
            ResponseHeader(
                name="Vary",
                description="`Authorization`: the answer is the caller's own.",
                value="Authorization",
                documentation_only=True,
            )
        )
    return headers


@dataclass(frozen=True)
class Poll:
    """What a request asks of such an answer (``If-None-Match`` and ``wait``), and what
    a long-poll of it needs: the process's commit notifications, the request's deadline
    (extended by the wait) and its scope, for the place it holds while it waits
    (service.http.holds)."""

    if_none_match: str | None
    wait: int | None
    watcher: TableWatcher
    deadline: RequestDeadline | None
    scope: Any

    async def answer(
        self, read: Read, cache_control: str, caller: Caller | None = None
    ) -> Response[Any]:
        """The answer ``read`` gives, or a 304 while ``If-None-Match`` names it; with
        ``wait``, either once the answer has changed or ``wait`` seconds have passed (or
        a newer poll of the same ``caller`` took this one's place)."""
        wanted = entity_tags(self.if_none_match)
        body, tag, streams = await _tagged(read)
        if self.wait and named_tags(wanted) and _named(tag, wanted):
            with holds_of(self.scope).place(self.scope, caller) as hangup:
                if self.deadline is not None:
                    self.deadline.extend(self.wait)
                until = time.monotonic() + self.wait
                held = tag
                while tag == held and not self.watcher.released and not hangup.superseded:
                    remaining = until - time.monotonic()
                    if remaining <= 0:
                        break
                    await self.watcher.wait_for_streams(
                        streams, min(remaining, RECHECK_SECONDS), hangup
                    )
                    if hangup.happened:
                        return client_gone()  # nothing read for an answer nobody gets
                    body, tag, streams = await _tagged(read)
        headers = {"ETag": tag, "Cache-Control": cache_control}
        if cache_control == PRIVATE:
            headers["Vary"] = "Authorization"  # as documented()
        if wanted is not None and _named(tag, wanted):
            return Response(None, status_code=304, headers=headers)
        return Response(body, media_type=_JSON, headers=headers)


def provide_poll(
    request: Request[Any, Any, Any], if_none_match: IfNoneMatch = None, wait: AnswerWait = None
) -> Poll:
    scope = request.scope
    watcher = scope["app"].state.watcher
    return Poll(if_none_match, wait, watcher, deadline_of(scope), scope)


async def _tagged(read: Read) -> tuple[bytes, str, Mapping[str, int]]:
    """The answer ``read`` gives, encoded, its tag, and the streams it was read from."""
    answer, streams = await read()
    body = _encode(answer)
    return body, content_tag(body), streams


def _named(tag: str, wanted: list[str]) -> bool:
    return "*" in wanted or tag in wanted
