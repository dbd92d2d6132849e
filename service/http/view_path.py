"""The view's short way: ``GET /tables/{table_id}`` (the view, its 304, its long-poll)
answered without the framework's per-request machinery, when the request is an ordinary
one. A client polling its table sends this more than anything else.

As :mod:`service.http.command_path` does for commands, this middleware sits inside the
deadline and the request metrics, after routing, and does what the route does with the
route's own functions in the route's order: the rate limit, the caller
(:func:`~service.http.auth.caller_of`), and the answer
(:func:`~service.http.tables.table_answer`, which the route calls too), sent as Litestar
sends a handler's ``Response``. Its problems are answered by the app's exception
handlers. A request out of the ordinary is passed on to the route untouched, before
anything is counted: a query other than ``wait=N`` (N from 1 to 60, in digits, without a
leading zero), a percent-encoded path, an id not written as a UUID, a header the service
reads given twice.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
from litestar import Request
from litestar.types import ASGIApp, Receive, Scope

from service.http.auth import caller_of
from service.http.short_ways import headers_once, short_way, table_key
from service.http.tables import table_access, table_answer

ROUTE = "/tables/{table_id}"  # the route's path template, as routing names it
_WAIT = re.compile(rb"wait=([1-9][0-9]?)")  # the route reads no leading zero
_READ = frozenset({b"authorization", b"if-none-match"})
_LONGEST_WAIT = 60  # seconds, as the route's ``wait`` parameter allows


class _Asked(msgspec.Struct):
    """What an ordinary view request asks: its table, token, ETags and wait."""

    table: str
    authorization: str | None
    if_none_match: str | None
    wait: int | None


async def _answer(scope: Scope, receive: Receive, asked: _Asked) -> ASGIApp:
    """The route's answer after the rate limit: the caller, then ``table_answer``."""
    state = scope["app"].state
    caller = await caller_of(scope["state"], state.auth, asked.authorization)
    access = table_access(scope, asked.table, caller)
    response = await table_answer(access, asked.if_none_match, asked.wait)
    request: Request[Any, Any, Any] = Request(scope, receive)
    return response.to_asgi_response(None, request)


def _plain(scope: Scope) -> _Asked | None:
    """What an ordinary request asks; None to pass it on."""
    table = table_key(scope)
    if table is None:
        return None
    wait = None
    query: bytes = scope["query_string"]
    if query:
        found = _WAIT.fullmatch(query)
        if found is None or not 1 <= int(found[1]) <= _LONGEST_WAIT:
            return None
        wait = int(found[1])
    headers = headers_once(scope, _READ)
    if headers is None:
        return None
    return _Asked(table, headers.get(b"authorization"), headers.get(b"if-none-match"), wait)


view_path = short_way("GET", ROUTE, _plain, _answer)
