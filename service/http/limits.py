"""Limits on request bodies (DESIGN 12): size, media type, nesting depth, duplicate keys.

Every body is checked before anything else looks at it — before authentication and
before Litestar decodes it for the handler — so a refusal costs little and changes
nothing. The README's *Limits* table lists each limit and the problem it answers.
"""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.exceptions.http_exceptions import RequestEntityTooLarge

from service.http.problems import ApiProblem

MAX_BODY_BYTES = 1024 * 1024
MAX_BODY_TEXT = "1 MiB"

_JSON = "application/json"
_UTF8 = {"utf-8", "utf8"}


def _media_problem(found: str) -> ApiProblem:
    return ApiProblem(
        "unsupported-media-type",
        f"send the body as {_JSON} (UTF-8), not {found}",
        headers={"Accept-Post": _JSON},
    )


async def read_body(request: Request[Any, Any, Any]) -> bytes:
    """The body of a request to an operation that takes JSON, once its type is checked.

    ``application/json`` is required, with any parameters (a ``charset``, if given, must
    be UTF-8, the only encoding JSON has). Other JSON-based types such as
    ``application/merge-patch+json`` name other formats and are refused, as is a body
    sent without a type. A request without a body is left to the schema (400).
    """
    content_type = request.headers.get("content-type")
    if content_type is not None:
        media, options = request.content_type
        if media != _JSON:
            raise _media_problem(media or "an empty Content-Type")
        charset = options.get("charset")
        if charset is not None and charset.lower() not in _UTF8:
            raise _media_problem(f"charset={charset}")
    try:
        body = await request.body()
    except RequestEntityTooLarge as exc:
        raise ApiProblem(
            "payload-too-large", f"the body is over {MAX_BODY_TEXT} ({MAX_BODY_BYTES} bytes)"
        ) from exc
    if content_type is None and body:
        raise _media_problem("a body without Content-Type")
    return body
