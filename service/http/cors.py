"""Cross-origin requests from browsers (CORS), off unless origins are configured.

Not Litestar's ``CORSConfig``: its middleware replaces a response's ``Vary`` with
``Vary: Origin`` (a table view varies by ``Authorization`` too, and must keep saying so
to caches), answers a preflight from an unlisted origin with a plain-text 400, and
treats every ``OPTIONS`` that carries an ``Origin`` as a preflight.

Here a preflight (``OPTIONS`` with ``Origin`` and ``Access-Control-Request-Method``) from
an allowed origin is answered at once with the methods and request headers the API
uses; any other request, and a preflight from an origin not allowed, goes on as if CORS
were off, its answer gaining ``Access-Control-Allow-Origin`` and the exposed response
headers only when its origin is allowed. With a list of origins every answer says
``Vary: Origin`` (added to any ``Vary`` it had), so that no cache hands one origin's
answer to another.
"""

from __future__ import annotations

ALLOW_METHODS = "GET, POST, OPTIONS"
ALLOW_HEADERS = (
    "Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key, Last-Event-ID,"
    " X-Request-ID"
)
# RateLimit-*: the IETF draft's names, old and new, for when the service sends them.
EXPOSE_HEADERS = (
    "ETag, Retry-After, Location, X-Request-ID, Cache-Control, RateLimit, RateLimit-Policy,"
    " RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Cardroom-Keep-Alive"
)
MAX_AGE_SECONDS = 600

Headers = list[tuple[bytes, bytes]]


class Cors:
    """The CORS answers for ``origins``: ``("*",)`` for any origin, else exact origins."""

    def __init__(self, origins: tuple[str, ...]) -> None:
        self.any = origins == ("*",)
        self.origins = frozenset(origin.encode() for origin in origins)
        self._expose = (b"access-control-expose-headers", EXPOSE_HEADERS.encode())
        self._vary: Headers = [] if self.any else [(b"vary", b"Origin")]
        self._preflight: Headers = [
            (b"access-control-allow-methods", ALLOW_METHODS.encode()),
            (b"access-control-allow-headers", ALLOW_HEADERS.encode()),
            (b"access-control-max-age", str(MAX_AGE_SECONDS).encode()),
        ]

    def allowed(self, origin: bytes | None) -> bytes | None:
        """The ``Access-Control-Allow-Origin`` for ``origin``, or None when not allowed."""
        if origin is None:
            return b"*" if self.any else None
        if self.any:
            return b"*"
        return origin if origin in self.origins else None

    def response_headers(self, origin: bytes | None) -> Headers:
        """What an answer to an ordinary request (or a refused preflight) gains."""
        allow = self.allowed(origin)
        if allow is None:
            return self._vary
        return [*self._vary, (b"access-control-allow-origin", allow), self._expose]

    def preflight_headers(self, origin: bytes) -> Headers | None:
        """The answer to a preflight from ``origin``, or None: not allowed, go on."""
        allow = self.allowed(origin)
        if allow is None:
            return None
        return [*self._vary, (b"access-control-allow-origin", allow), *self._preflight]
