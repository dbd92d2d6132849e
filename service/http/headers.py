"""Security headers: ``nosniff`` on every response; on the /docs pages, a Content
Security Policy that admits only the page's own assets and scripts, and no framing."""

from __future__ import annotations

import base64
import hashlib
import re
from functools import lru_cache
from typing import Any

from litestar import Response
from litestar.datastructures import MutableScopeHeaders
from litestar.exceptions import NotFoundException
from litestar.status_codes import HTTP_404_NOT_FOUND
from litestar.types import Message, Scope


async def nosniff(message: Message, scope: Scope) -> None:
    """Every response, problems and Litestar's own 404s included: browsers must take the
    declared media type (a JSON answer is never run as a script or shown as HTML)."""
    if message["type"] == "http.response.start":
        MutableScopeHeaders.from_message(message).add("X-Content-Type-Options", "nosniff")


async def revalidated(message: Message, scope: Scope) -> None:
    """A GET answer that says nothing of caching gets ``no-cache`` and ``Vary:
    Authorization``: tables, standings and listings change, and some answer a token
    differently (a director sees his tournament's closed tables). Unmarked, a shared
    cache could keep one for minutes (a 200 or a 404 is cacheable by default) or hand
    the anonymous answer to a token's request."""
    if message["type"] != "http.response.start" or scope.get("method") not in ("GET", "HEAD"):
        return
    headers = MutableScopeHeaders.from_message(message)
    if "cache-control" in headers:
        return
    headers["Cache-Control"] = "no-cache"
    varies = [v.strip() for v in headers.get("vary", "").split(",") if v.strip()]
    if not any(v.lower() in ("authorization", "*") for v in varies):
        headers["Vary"] = ", ".join([*varies, "Authorization"])


_INLINE_SCRIPT = re.compile(rb"<script(?![^>]*\ssrc=)[^>]*>(.*?)</script>", re.DOTALL)


@lru_cache(maxsize=8)
def docs_policy(page: bytes) -> str:
    """The policy of one /docs page: scripts from this origin and the page's own inline
    scripts (by their hash; the Swagger UI page embeds its start-up script and the
    document), styles from this origin and inline (Swagger UI sets inline styles as it
    renders), images from this origin and ``data:`` (its icons), requests ("Try it out")
    to this origin only. Nothing else, and no framing."""
    hashes = [
        "'sha256-" + base64.b64encode(hashlib.sha256(script).digest()).decode() + "'"
        for script in _INLINE_SCRIPT.findall(page)
    ]
    return "; ".join(
        [
            "default-src 'none'",
            " ".join(["script-src 'self'", *hashes]),
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            "connect-src 'self'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


def docs_headers(response: Response[Any]) -> Response[Any]:
    """For the /docs pages (Swagger UI, its OAuth2 redirect page, the JSON document).

    Litestar answers an unknown page there with an HTML 404 of its own; it becomes the
    ``not-found`` problem every other unknown path gets.
    """
    if response.status_code == HTTP_404_NOT_FOUND:
        raise NotFoundException()
    page = response.content if isinstance(response.content, bytes) else b""
    response.headers["Content-Security-Policy"] = docs_policy(page)
    response.headers["X-Frame-Options"] = "DENY"
    return response
