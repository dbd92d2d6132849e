"""Conditional requests: the ``If-None-Match`` parameter and the tags a header names."""

from __future__ import annotations

import hashlib
from typing import Annotated, Any, TypeGuard

from litestar.datastructures import CacheControlHeader
from litestar.params import HeaderParameter, QueryParameter
from litestar.types import ASGIApp, Message, Receive, Scope, Send

IfNoneMatch = Annotated[
    str | None,
    HeaderParameter(
        name="If-None-Match",
        description="An ETag from an earlier GET: answered with 304 while it is current.",
    ),
]


def _wait(until: str) -> Any:
    return QueryParameter(
        name="wait",
        ge=1,
        le=60,
        description=(
            f"With If-None-Match: hold the request until {until} or this many seconds pass"
            " (then 304). `If-None-Match: *` is answered at once: it names every version."
        ),
    )


TableWait = Annotated[
    int | None, _wait("the table moves (answered within about 50 ms of the new version)")
]
AnswerWait = Annotated[int | None, _wait("the answer changes")]


def content_tag(body: bytes) -> str:
    """A strong ETag of an answer's bytes: the same bytes, the same tag."""
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def entity_tags(header: str | None) -> list[str] | None:
    """The entity tags of an If-None-Match header, compared weakly (RFC 9110 §13.1.2):
    a weak tag keeps no ``W/``. Only a quoted tag is weak: ``W/*`` is no ``*``."""
    if header is None:
        return None
    return [t[2:] if t.startswith('W/"') else t for t in _tags(header)]


def named_tags(wanted: list[str] | None) -> TypeGuard[list[str]]:
    """Whether ``wanted`` (:func:`entity_tags`) names particular answers, which a change
    can make stale. ``*`` names any, so a long-poll on it would only wait out its time to
    give the 304 it can give at once."""
    return wanted is not None and bool(wanted) and "*" not in wanted


def strong_tags(header: str | None) -> list[str] | None:
    """The entity tags of an If-Match header, compared strongly (RFC 9110 §13.1.1): a
    weak tag matches nothing, so a header of weak tags only fails the precondition."""
    return None if header is None else [t for t in _tags(header) if not t.startswith("W/")]


def _tags(header: str) -> list[str]:
    return [t for t in (part.strip() for part in header.split(",")) if t]


def matches(header: str | None, tag: str) -> bool:
    """An If-None-Match ``header`` names ``tag`` (or ``*``): the answer is a 304."""
    wanted = entity_tags(header)
    return wanted is not None and ("*" in wanted or tag in wanted)


# Static files are revalidated on every use: their names carry no version, so a browser
# that reused a script from its cache after an upgrade would run it against a newer page.
REVALIDATE = CacheControlHeader(no_cache=True)

# What a 304 leaves out of the 200 it stands for (RFC 9110 §15.4.5): the body's own
# description. Its validators, caching and security headers stay.
_BODY_HEADERS = frozenset({b"content-length", b"content-type", b"content-disposition"})


def revalidating(app: ASGIApp) -> ASGIApp:
    """Static files answered 304 while a GET's or HEAD's ``If-None-Match`` names their
    ETag: Litestar's file responses carry one but never compare it, so a browser
    revalidating the console's scripts was sent them whole each time."""

    async def files(scope: Scope, receive: Receive, send: Send) -> None:
        asked = [v for k, v in scope.get("headers", ()) if k == b"if-none-match"]
        if scope.get("method") not in ("GET", "HEAD") or not asked:
            await app(scope, receive, send)
            return
        header = ", ".join(value.decode("latin-1") for value in asked)
        unchanged = False

        async def answer(message: Message) -> None:
            nonlocal unchanged
            if message["type"] == "http.response.start" and message["status"] == 200:
                tags = [v for k, v in message.get("headers", ()) if k == b"etag"]
                unchanged = bool(tags) and matches(header, tags[0].decode("latin-1"))
                if unchanged:
                    kept = [(k, v) for k, v in message["headers"] if k not in _BODY_HEADERS]
                    message = {**message, "status": 304, "headers": kept}
            elif unchanged and message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return  # the file's bytes, which a 304 does not carry
                message = {**message, "body": b""}
            await send(message)

        await app(scope, receive, answer)

    return files
