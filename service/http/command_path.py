"""The command route's short way: ``POST /tables/{table_id}/actions`` answered without
the framework's per-request machinery, when the request is an ordinary one.

A command is the service's hottest write, and Litestar's work around its handler (a
``Request``, the ``before_request`` hook, dependency injection, a second decoding of the
body into the signature model, the ``Response`` and its ASGI form) cost the server more
CPU than the command itself: measured with two workers at 16 tables, server CPU per
command fell by about a third with it skipped (README, Performance).

This middleware is the innermost of the route's (inside the deadline and the request
metrics, after routing), and for a request it takes it does what the route would, with
the same functions, in the same order:

- the rate limit (:meth:`~service.http.throttle.Throttle.admit`);
- the body, strictly decoded (:func:`~service.http.hooks.strictly`);
- the caller (:func:`~service.http.auth.caller_of`), its seat, and the command
  (:meth:`~service.write.handler.TableService.act`), answered with the bytes and headers
  the route sends.

A problem raised on the way (a 401, a 403, a refused rule, a stale If-Match) is rendered
by the app's exception handlers and passes through its ``before_send`` hooks, as the
route's own would. Any request it does not take is passed on to the route untouched,
before anything is counted or read: a query string, a percent-encoded path, a header
given twice or not in its plainest form (``Content-Type`` other than ``application/json``,
bare or with ``charset=utf-8`` in lower case, a content coding, a chunked body, an
``Idempotency-Key`` outside its length), a body over the limit, empty, or not strictly
valid (then the body read is replayed to the route). Those answers are the route's, as
they were.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar.types import ASGIApp, Message, Receive, ReceiveMessage, Scope, Send

from service.http.auth import caller_of
from service.http.conditional import strong_tags
from service.http.hooks import strictly
from service.http.limits import MAX_BODY_BYTES
from service.http.problems import ApiProblem
from service.http.schemas import Command
from service.http.short_ways import PassOn, headers_once, short_way, table_key
from service.write.handler import Answer

ROUTE = "/tables/{table_id}/actions"  # the route's path template, as routing names it
# The route takes JSON with any parameters and a UTF-8 charset in any case; these are
# the spellings clients send (OkHttp and older axios add the charset).
_JSON = frozenset(
    {"application/json", "application/json; charset=utf-8", "application/json;charset=utf-8"}
)
_PASSED_ON = {b"content-encoding", b"transfer-encoding"}
_READ = frozenset(
    {b"authorization", b"content-type", b"content-length", b"if-match", b"idempotency-key",
     *_PASSED_ON}
)  # fmt: skip
_KEY_LENGTH = range(1, 201)  # Idempotency-Key, as the route declares it


class _Asked(msgspec.Struct):
    """The table of an ordinary command and the request headers it reads, each once."""

    table: str
    authorization: str | None
    if_match: str | None
    idempotency_key: str | None


async def _answer(scope: Scope, receive: Receive, asked: _Asked) -> ASGIApp | PassOn:
    """The command's answer, in the route's order after the rate limit: the body, the
    caller and the command. When the body is not an ordinary one, the request is passed
    on with its body to read again."""
    messages, body = await _body(receive)
    command = _command(body)
    if command is None:
        return PassOn(_replaying(messages, receive))
    state = scope["app"].state
    caller = await caller_of(scope["state"], state.auth, asked.authorization)
    answer: Answer = await state.service.act(
        asked.table,
        caller.seat_at(asked.table),
        command,
        if_match=strong_tags(asked.if_match),
        idempotency_key=asked.idempotency_key,
        epoch=caller.epoch,
    )
    return _Sent(answer)


class _Sent:
    """The command's answer with the headers ``tables._answered`` gives it, written here
    as ASGI headers rather than through a ``Response``: its conversion is part of the
    per-request work this way skips (the twin tests hold the two to the same bytes)."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        answer = self.answer
        start: Message = {
            "type": "http.response.start",
            "status": answer.status,
            "headers": [
                (b"etag", answer.etag.encode("latin-1")),
                (b"cache-control", b"private, no-cache"),
                (b"content-type", b"application/json"),
                (b"content-length", str(len(answer.body)).encode()),
            ],
        }
        await send(start)
        await send({"type": "http.response.body", "body": answer.body, "more_body": False})


def _plain(scope: Scope) -> _Asked | None:
    """What a request in its plainest form asks; None to pass it on."""
    table = table_key(scope)
    if table is None or scope["query_string"]:
        return None
    found = headers_once(scope, _READ)
    if found is None or _PASSED_ON & found.keys() or found.get(b"content-type") not in _JSON:
        return None
    length = found.get(b"content-length", "")
    if not length.isdigit() or not 0 < int(length) <= MAX_BODY_BYTES:
        return None
    key = found.get(b"idempotency-key")
    if key is not None and len(key) not in _KEY_LENGTH:
        return None
    return _Asked(table, found.get(b"authorization"), found.get(b"if-match"), key)


async def _body(receive: Receive) -> tuple[list[ReceiveMessage], bytes | None]:
    """The request's messages up to its body's last, and the body (None if the client went
    first, or sent more than the limit)."""
    messages: list[ReceiveMessage] = []
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages, None
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_BODY_BYTES:  # more than Content-Length said: the route's 413
            return messages, None
        if not message.get("more_body", False):
            return messages, b"".join(chunks)


def _command(body: bytes | None) -> Any:
    """The body's command when it is whole and strictly valid; None to pass it on."""
    if body is None or not body.strip():
        return None
    try:
        return strictly(body, Command)
    except (msgspec.ValidationError, msgspec.DecodeError, ApiProblem):
        return None


def _replaying(messages: list[ReceiveMessage], receive: Receive) -> Receive:
    """``receive`` with the messages already read given again first."""
    pending = list(messages)

    async def replay() -> Any:
        if pending:
            return pending.pop(0)
        return await receive()

    return replay


command_path = short_way("POST", ROUTE, _plain, _answer)
