"""What the short ways of the hot table routes share (:mod:`service.http.command_path`,
:mod:`service.http.view_path`): the frame of the middleware, and the answer to an error.

A short way is the innermost middleware of its route: inside the deadline and the request
metrics, after routing. It takes a request of its route's method whose ``plain`` reading
succeeds, and otherwise passes it on untouched. It counts what it takes with the rate
limit; its ``answer`` then either answers (an ASGI app that sends the answer) or passes
the request on after all (:class:`PassOn`, with the ``receive`` that replays what it
read). Any error on the way is answered as the route's own exception handling answers
it.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple, TypeVar

from litestar import Request
from litestar.enums import ScopeType
from litestar.types import ASGIApp, Receive, Scope, Send

from service.http.hooks import SINGLE_HEADERS
from service.http.problems import EXCEPTION_HANDLERS
from service.http.schemas import UUID_PATTERN

Asked = TypeVar("Asked")
_UUID = re.compile(UUID_PATTERN)


class PassOn(NamedTuple):
    """The request goes to its route after all, read again through ``receive``."""

    receive: Receive


def short_way(
    method: str,
    route: str,
    plain: Callable[[Scope], Asked | None],
    answer: Callable[[Scope, Receive, Asked], Awaitable[ASGIApp | PassOn]],
) -> Callable[[ASGIApp], ASGIApp]:
    """Litestar middleware: ``route``'s ordinary ``method`` requests answered here."""

    def middleware(app: ASGIApp) -> ASGIApp:
        async def direct(scope: Scope, receive: Receive, send: Send) -> None:
            if (
                scope["type"] != ScopeType.HTTP
                or scope["method"] != method
                or scope.get("path_template") != route
            ):
                await app(scope, receive, send)
                return
            asked = plain(scope)
            if asked is None:
                await app(scope, receive, send)
                return
            try:
                # The rate limit first, as on the route: a refused request costs no body
                # read and no lookup (and it counts a request once, whichever way).
                throttle = scope["app"].state.get("throttle")
                if throttle is not None:
                    await throttle.admit(Request(scope))
                outcome = await answer(scope, receive, asked)
            except Exception as exc:
                # Every error, a refusal or not: the route's own exception handling
                # would take them all, and the app's handlers end with one for any.
                await refuse(scope, receive, send, exc)
                return
            # Sent outside the try: an error once the answer is under way is not
            # answered again.
            if isinstance(outcome, PassOn):
                await app(scope, outcome.receive, send)
            else:
                await outcome(scope, receive, send)

        return direct

    return middleware


async def refuse(scope: Scope, receive: Receive, send: Send, exc: Exception) -> None:
    """``exc`` answered by the app's exception handler for it, inside the deadline and
    the metrics (which then count the refusal's own status)."""
    request: Request[Any, Any, Any] = Request(scope, receive)
    handler = next(EXCEPTION_HANDLERS[k] for k in type(exc).__mro__ if k in EXCEPTION_HANDLERS)
    response = handler(request, exc)
    await response.to_asgi_response(None, request)(scope, receive, send)


def headers_once(scope: Scope, read: frozenset[bytes]) -> dict[bytes, str] | None:
    """The ``read`` headers of the request, decoded as the framework decodes them; None
    when a header the service reads is given twice (the route refuses that)."""
    found: dict[bytes, str] = {}
    seen: set[bytes] = set()
    for name, value in scope["headers"]:
        if name in SINGLE_HEADERS:
            if name in seen:
                return None
            seen.add(name)
        if name in read:
            found[name] = value.decode("latin-1")
    return found


def table_key(scope: Scope) -> str | None:
    """The path's table id as the route reads it (``str`` of its UUID); None when the path
    is not in its plainest form: percent-encoded, or the id not written as a UUID (a
    strict path, DESIGN 6), which the route answers itself."""
    if b"%" in (scope.get("raw_path") or b""):
        return None
    text = scope["path"].split("/")[2]
    return str(uuid.UUID(text)) if _UUID.fullmatch(text) else None
