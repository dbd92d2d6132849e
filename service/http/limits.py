"""Limits on request bodies (DESIGN 12): size, media type, nesting depth, duplicate keys.

Every body is checked before anything else looks at it — before authentication and
before Litestar decodes it for the handler — so a refusal costs little and changes
nothing. The README's *Limits* table lists each limit and the problem it answers.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
from litestar import Request
from litestar.exceptions.http_exceptions import RequestEntityTooLarge

from service.http.problems import ApiProblem

MAX_BODY_BYTES = 1024 * 1024
MAX_BODY_TEXT = "1 MiB"
MAX_DEPTH = 64
# Arrays and objects in one body. The largest body the API takes (500 decks of a
# tournament table) has about a thousand; the limit keeps a refusal cheap, since a
# megabyte of small arrays cost a third of a second to decode before any check saw it.
MAX_CONTAINERS = 4096

_JSON = "application/json"
_UTF8 = {"utf-8", "utf8"}


# Every 415 says what the server takes (RFC 9110 Accept-Post, as the document promises on
# each 415); one for a coding says too that it takes bodies uncompressed (RFC 7694).
_TAKEN = {"Accept-Post": _JSON}
_UNCODED = {**_TAKEN, "Accept-Encoding": "identity"}


def _media_problem(found: str) -> ApiProblem:
    return ApiProblem(
        "unsupported-media-type", f"send the body as {_JSON} (UTF-8), not {found}", headers=_TAKEN
    )


async def read_body(request: Request[Any, Any, Any]) -> bytes:
    """The body of a request to an operation that takes JSON, once its type is checked.

    ``application/json`` is required, with any parameters (a ``charset``, if given, must
    be UTF-8, the only encoding JSON has). Other JSON-based types such as
    ``application/merge-patch+json`` name other formats and are refused, as is a body
    sent without a type, or compressed (a ``Content-Encoding``, or a transfer coding
    other than ``chunked``). A request without a body is left to the schema (400).
    """
    coding = request.headers.get("content-encoding", "identity").strip().lower()
    if coding != "identity":
        # RFC 9110 §15.5.16: a content coding the server does not take is a 415, and
        # Accept-Encoding says which it does (RFC 7694).
        raise ApiProblem(
            "unsupported-media-type",
            f"send the body uncompressed, not with Content-Encoding: {coding}",
            headers=_UNCODED,
        )
    transfer = request.headers.get("transfer-encoding")
    if transfer is not None and [c.strip().lower() for c in transfer.split(",")] != ["chunked"]:
        # The server takes chunked alone (it undoes it); under another coding the bytes
        # read would not be the body sent, nor the one a proxy that undid it saw.
        raise ApiProblem(
            "unsupported-media-type",
            f"send the body with no transfer coding but chunked, not {transfer.strip()}",
            headers=_UNCODED,
        )
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


def _without_strings(text: bytes) -> bytes:
    """Valid JSON ``text`` with every string cut out: what is left is structure, numbers
    and literals.

    Backslashes occur only in strings, each starting a two-character escape, so dropping
    the escaped backslashes and then the escaped quotes leaves only the quotes that open
    and close strings; every second piece between them is outside. All of it runs in C,
    in time linear in the text (a regular expression took several times longer).
    """
    if b"\\" in text:
        text = text.replace(b"\\\\", b"").replace(b'\\"', b"")
    return b"".join(text.split(b'"')[::2])


_BRACKETS = bytes.maketrans(b"[]{}", b"()()")
_NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))


def _too_deep(brackets: bytes) -> bool:
    """Whether the arrays and objects whose brackets are ``brackets`` (each written as
    ``(`` or ``)``) nest deeper than MAX_DEPTH levels."""
    # Each pass removes the innermost pairs: one level. Bodies are mostly shallow and
    # small, so the count of brackets left usually settles it at once.
    for removed in range(MAX_DEPTH):
        if len(brackets) <= 2 * (MAX_DEPTH - removed):
            return False
        brackets = brackets.replace(b"()", b"")
    return bool(brackets)


def _nested_too_deep() -> ApiProblem:
    return ApiProblem(
        "malformed-request", f"the body nests arrays and objects deeper than {MAX_DEPTH} levels"
    )


def _duplicate_problem(body: bytes) -> ApiProblem:
    """Names the first key written twice (only on this refusal: the stdlib decoder,
    with a hook on every object, is several times slower than msgspec)."""
    found: list[str] = []

    def pairs(members: list[tuple[str, Any]]) -> None:
        seen: set[str] = set()
        for key, _ in members:
            if found:
                return
            if key in seen:
                found.append(key)
            seen.add(key)

    json.loads(body, object_pairs_hook=pairs)
    key = json.dumps(found[0] if found else "?")
    return ApiProblem("malformed-request", f"the key {key[:60]} is written twice in one object")


_PLAIN = msgspec.json.Decoder()


def decode_json(body: bytes, decoder: msgspec.json.Decoder[Any] = _PLAIN) -> Any:
    """The JSON document of ``body`` (by ``decoder``), once it is within the limits.

    Beyond them a 400 problem; malformed JSON raises :class:`msgspec.DecodeError`, for
    Litestar to report.
    """
    skeleton = _without_strings(body)
    # The shape's limits come before the decoding, which is what costs: a body too big
    # in its shape is refused for the price of a few passes in C over its text.
    brackets = skeleton.translate(_BRACKETS, _NOT_BRACKETS)
    if len(brackets) > 2 * MAX_CONTAINERS:
        if b"(" * (MAX_DEPTH + 1) in brackets:  # plainly too deep as well: say that
            raise _nested_too_deep()
        raise ApiProblem(
            "malformed-request",
            f"the body holds more than {MAX_CONTAINERS} arrays and objects",
        )
    if _too_deep(brackets):
        raise _nested_too_deep()
    try:
        document = decoder.decode(body)
    except RecursionError:  # msgspec stops near 1,000 levels, far beyond the limit
        raise _nested_too_deep() from None
    # Outside strings a colon follows each key, so the text holds as many keys as it has
    # colons; the decoded document, where a key written twice is kept once, as many as its
    # own encoding. Both counts run in C: msgspec keeps the last value and says nothing.
    written = skeleton.count(b":")
    if written and written != _without_strings(msgspec.json.encode(document)).count(b":"):
        raise _duplicate_problem(body)
    return document
