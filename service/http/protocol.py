"""The HTTP/1.1 protocol of ``cardroom serve``: uvicorn's httptools protocol with limits on
the request head (DESIGN 12).

uvicorn with httptools bounds neither the size of a request line and headers nor the
time to send them: httptools gathers a header value chunk by chunk into one bytes object
(quadratic in its length, so a 64 MB header line held one worker's loop for seconds), and
a connection that stops halfway through its headers stays open for good. This subclass

- counts the bytes of each head as they arrive, before the parser sees them: the request
  line and headers may take 16 KiB (16,384 bytes, from the request line's first byte to
  the empty line that ends the headers, inclusive); one byte more is answered with a 431
  ``headers-too-large`` problem, or a 414 ``uri-too-long`` when the request line alone is
  over the limit, and the connection closed;
- reads no trailer fields (the header lines a chunked body may end with): they never
  join the request's headers (RFC 9110 section 6.5.1), and what follows a head, its
  body, chunk framing and trailers, may take 2 MiB on the wire (twice the body limit,
  room for any chunking), past which a 413 ``payload-too-large`` problem is answered,
  unless an answer was begun, and the connection closed: httptools gathers a trailer
  line as it does a header line, and a 128 MB one held a worker's loop for seconds;
- closes a connection whose head has not arrived whole within
  ``CARDROOM_HEADER_TIMEOUT_SECONDS`` (10 s) of the connection's start or, on a kept-alive
  connection, of the next request's first byte. Nothing is answered: like nginx, it only
  closes (a client that sent nothing is not owed a 408);
- gives a request answered before its body arrived whole (a 413, 415, 404 or 429 does
  not wait for it) the same time, from its answer, to send the rest: the connection is
  closed then, as an idle one is. uvicorn stops its keep-alive clock at the first byte
  of the rest and never starts it again, so such a connection stayed open for good,
  whether the rest came or not. Until then the rest is read and dropped, as nginx's
  lingering close does, so that the answer is not lost to a reset.

It also bounds the bodies one client address sends at once, per process: 16 by
default. A body holds its bytes in memory until it is whole, up
to 1 MiB for up to 30 s, so bodies stalled one byte short, opened within the address's
rate budget, once held a gigabyte. The request past the bound is answered 503
``too-many-bodies`` with ``Retry-After: 1`` as soon as its head is in, before any of its
body is read; the rest is read and dropped as after any early answer, within the same
time (``CARDROOM_BODIES_PER_ADDRESS``; 0: no
bound, as ``cardroom bench`` runs, all its load from one address). Requests without a
body are not counted, nor are those from a trusted proxy (``CARDROOM_TRUSTED_PROXIES``:
behind one, every client has the proxy's address, and a proxy such as nginx sends each
body whole).

A client that reads nothing of its answer is cut off. uvicorn stops writing to a
connection whose buffer is full and waits for room, for good if the client never reads:
an event stream's client that did so kept its request, and the held place with it, past
the stream's ``timeout`` and past a newer request's taking the place (service.http.
holds), and one address held a process's every place that way. A connection whose writes
have waited ``CARDROOM_SEND_TIMEOUT_SECONDS`` (30 s) for room, the client reading none
of what waits meanwhile, is closed, as nginx's ``send_timeout`` does; one whose request
is superseded while its writes wait, at once.

Time between requests on a kept-alive connection stays uvicorn's keep-alive timeout
(5 s), and a long-poll or a stream, once its headers are in, is never cut short — until
the process begins a graceful stop (:mod:`service.http.stopping`).

It also tells a long-poll when its client hangs up. uvicorn says so only to a request
that reads its body again, which a parked long-poll does not, and forgets the connection
once it is lost: a phone that went away mid-poll left the request parked for up to its
``wait``, and a stop after that waited out the grace period and cancelled it. Each
request's scope holds a :class:`~service.read.watch.Hangup` under :data:`HANGUP`,
marked when the connection is lost before the request's answer is complete.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sys
from functools import cache
from typing import Any

import httptools
import msgspec
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from service.http import stopping
from service.http.access import new_request_id, request_id_of
from service.http.cors import Cors
from service.http.limits import MAX_BODY_BYTES
from service.http.problems import PROBLEM_JSON, problem
from service.http.throttle import (
    Network,
    client_address,
    is_trusted,
    parsed_address,
    trusted_networks,
)
from service.read.watch import Hangup
from service.settings import from_env

log = logging.getLogger("cardroom.access")

HANGUP = "cardroom.hangup"  # the scope's key of the request's Hangup
MAX_HEAD_BYTES = 16 * 1024
# Client address -> its bodies being received now, in this process.
_RECEIVING: dict[str, int] = {}
MAX_HEAD_TEXT = "16 KiB"
_END = b"\r\n\r\n"
_BLANK = b"\r\n"


def _problem(code: str, detail: str) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """The headers and body of a problem answered here, not by the service's app."""
    body = msgspec.json.encode(problem(code, detail))
    headers = [
        (b"content-type", PROBLEM_JSON.encode()),
        (b"content-length", str(len(body)).encode()),
        (b"x-content-type-options", b"nosniff"),
    ]
    return headers, body


def _closing_problem(code: str, detail: str) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """The headers and body of a problem answered on a connection about to close."""
    headers, body = _problem(code, detail)
    return [*headers, (b"connection", b"close")], body


def _wire(headers: list[tuple[bytes, bytes]], body: bytes) -> bytes:
    return b"".join(name + b": " + value + b"\r\n" for name, value in headers) + b"\r\n" + body


_HEADERS, _BODY = _closing_problem(
    "headers-too-large",
    f"the request line and headers are over {MAX_HEAD_TEXT} ({MAX_HEAD_BYTES} bytes)",
)
_TOO_LARGE = _wire(_HEADERS, _BODY)
# RFC 9112 section 3: a request target longer than the server will parse "MUST" get a 414.
# Its bound is the head's: a request line over 16 KiB alone gets a 414, one that leaves
# the headers no room a 431.
_URI_HEADERS, _URI_BODY = _closing_problem(
    "uri-too-long", f"the request line alone is over {MAX_HEAD_TEXT} ({MAX_HEAD_BYTES} bytes)"
)
_URI_TOO_LONG = _wire(_URI_HEADERS, _URI_BODY)
MAX_REST_BYTES = 2 * MAX_BODY_BYTES  # of a request after its head, on the wire
_REST_TOO_LARGE = _wire(
    *_closing_problem(
        "payload-too-large",
        f"the body, its chunk framing and trailer fields are over {MAX_REST_BYTES} bytes",
    )
)
_UNREADABLE = _wire(
    *_closing_problem("malformed-request", "the request is not HTTP/1.1 this server can read")
)
# RFC 9110 section 9.1: a method the server does not recognise "SHOULD" get a 501. The
# parser knows a fixed list of methods and fails on any other. A request line of the
# right shape (RFC 9112 section 3: a method token, a target, the version), or the start
# of one, names a method; anything else is not HTTP at all (a TLS handshake sent to this
# port, a line of words) and stays a 400.
_UNKNOWN_METHOD = _wire(
    *_closing_problem(
        "method-not-implemented",
        "the method is not one this server knows (methods are case-sensitive)",
    )
)
_TOKEN = rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_REQUEST_LINE = re.compile(_TOKEN + rb" [!-~]+ HTTP/[0-9]\.[0-9]\r?")
_REQUEST_LINE_START = re.compile(_TOKEN + rb"(?: [!-~]*(?: [!-~]*)?)?")
_LINE_KEPT = 256  # bytes of a request line kept to tell the two apart


def _names_a_method(start: bytes) -> bool:
    """Whether ``start``, a request line's first bytes, is a request line or the start
    of one."""
    line, ended, _ = start.partition(b"\n")
    if ended:
        return _REQUEST_LINE.fullmatch(line) is not None
    return _REQUEST_LINE_START.fullmatch(line) is not None


def _refused(request_id: bytes, scope: Any = None, status: int = 431) -> None:
    """The access log's line for a request refused here. Like every answer it has its own
    X-Request-ID: a new one, the client's own being somewhere in what was not read."""
    if log.isEnabledFor(logging.INFO):
        fields = {"method": scope["method"], "path": scope["path"]} if scope else {}
        fields |= {"status": status, "request_id": request_id.decode()}
        log.info("request", extra={"fields": fields})


async def _send_refusal(
    scope: Any,
    send: Any,
    status: int,
    problem: tuple[list[tuple[bytes, bytes]], bytes],
    request_id: bytes,
) -> None:
    """A refusal of a parsed head, answered by this protocol's ASGI app: its headers, the
    request id, CORS's, and its access line."""
    headers, body = problem
    sent = [*headers, (b"x-request-id", request_id), *_cors_headers(scope)]
    await send({"type": "http.response.start", "status": status, "headers": sent})
    await send({"type": "http.response.body", "body": body})
    _refused(request_id, scope, status)


def _answering(status: int, headers: list[tuple[bytes, bytes]], body: bytes) -> Any:
    """A refusal of a parsed head as an ASGI application, with a new X-Request-ID."""

    async def answer(scope: Any, receive: Any, send: Any) -> None:
        await _send_refusal(scope, send, status, (headers, body), new_request_id())

    return answer


# For a head found too large once parsed.
_too_large = _answering(431, _HEADERS, _BODY)
_uri_too_long = _answering(414, _URI_HEADERS, _URI_BODY)
# RFC 9112 section 3.2: an HTTP/1.1 request without exactly one Host "MUST" get a 400.
_without_one_host = _answering(
    400,
    *_closing_problem(
        "malformed-request", "an HTTP/1.1 request names its host in exactly one Host header"
    ),
)


def hangup_of(scope: Any) -> Hangup | None:
    """The request's Hangup; None for a request served by anything but this protocol."""
    hangup: Hangup | None = scope.get(HANGUP)
    return hangup


@cache
def bodies_per_address() -> int:
    return from_env().bodies_per_address


async def _too_many_bodies(scope: Any, receive: Any, send: Any) -> None:
    """The 503 as an ASGI application, for a body over its address's bound: its head was
    read whole, so it answers with the client's own X-Request-ID when valid."""
    request_id = request_id_of(next((v for n, v in scope["headers"] if n == b"x-request-id"), None))
    detail = (
        f"this address is sending {bodies_per_address()} request bodies at once already;"
        " send this one once one of them is through"
    )
    headers, body = _problem("too-many-bodies", detail)
    await _send_refusal(scope, send, 503, ([*headers, (b"retry-after", b"1")], body), request_id)


@cache
def _cors() -> Cors | None:
    origins = from_env().cors_origins
    return Cors(origins) if origins else None


def _cors_headers(scope: Any = None) -> list[tuple[bytes, bytes]]:
    """What a refusal answered here gains for browsers, as the app's answers do in
    :class:`~service.http.access.RequestEdge`: a page can read the problem and its
    ``Retry-After`` only with them. Before its head is parsed a request's ``Origin`` is
    unknown: only an API open to every origin can say so then."""
    cors = _cors()
    if cors is None:
        return []
    origin = next((v for n, v in scope["headers"] if n == b"origin"), None) if scope else None
    return cors.response_headers(origin)


@cache
def _trusted() -> tuple[Network, ...]:
    return trusted_networks(from_env().trusted_proxies)


def _trusted_peer(peer: str) -> bool:
    """Whether the socket's peer is a trusted proxy, whose bodies are not counted (an
    IPv4 peer of a dual-stack socket, ``::ffff:10.0.0.1``, as its IPv4 address)."""
    return bool(_trusted()) and is_trusted(parsed_address(peer), _trusted())


@cache
def header_timeout_seconds() -> float:
    # Read once per process: worker processes import this module afresh and read the same
    # environment as the parent.
    return from_env().header_timeout_seconds


@cache
def send_timeout_seconds() -> float:
    return from_env().send_timeout_seconds


class HeadLimitedProtocol(HttpToolsProtocol):
    """``HttpToolsProtocol`` that refuses long request heads and drops slow ones."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.head_seconds = header_timeout_seconds()
        self.head_timer: asyncio.TimerHandle | None = None
        # When the head being read began (None between the end of one request's headers
        # and the next request's first byte).
        self.head_started: float | None = None
        self._expect_head()
        # Whether the head being read began at the start of a read, so that every byte of
        # it was counted; and whether this read started inside a head.
        self.head_counted = True
        self.read_in_head = True
        self.refused = False
        self.rest_bytes = 0  # read since the end of the head being answered
        self.receiving: str | None = None  # the address a body being read counts for
        self.send_seconds = send_timeout_seconds()
        self.send_timer: asyncio.TimerHandle | None = None  # armed while writes wait
        self.cut = self._cut_if_unread  # each request's Hangup's, bound once

    # --- the clock --------------------------------------------------------------------
    # One timer per connection, not one per request (arming and cancelling a timer for
    # each request cost as much as the rest of this class): it looks at the head being
    # read, if any, and otherwise comes back a whole timeout later.

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.head_started = self.loop.time()
        self.head_timer = self.loop.call_later(self.head_seconds, self._check_head)

    def _check_head(self) -> None:
        left = self.head_seconds
        if self.head_started is not None:
            left += self.head_started - self.loop.time()
            if left <= 0:
                self.head_timer = None
                self._drop()
                return
        self.head_timer = self.loop.call_later(left, self._check_head)

    def connection_lost(self, exc: Exception | None) -> None:
        self._body_done()
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None
        self._stop_send_timer()
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            hangup = hangup_of(cycle.scope)
            if hangup is not None:
                hangup.hang_up()
        super().connection_lost(exc)

    # --- a client that reads nothing ---------------------------------------------------

    def pause_writing(self) -> None:
        super().pause_writing()
        if self.send_timer is None:
            self._look_later(self.transport.get_write_buffer_size())

    def resume_writing(self) -> None:
        super().resume_writing()
        self._stop_send_timer()

    def _stop_send_timer(self) -> None:
        if self.send_timer is not None:
            self.send_timer.cancel()
            self.send_timer = None

    def _look_later(self, buffered: int) -> None:
        self.send_timer = self.loop.call_later(self.send_seconds, self._look, buffered)

    def _look(self, buffered: int) -> None:
        """``send_seconds`` after writing paused with ``buffered`` bytes waiting, or after
        the last look: a smaller buffer means the client read some meanwhile, and the clock
        starts again (as nginx's ``send_timeout`` times each write, not the whole answer:
        a slow phone reading a large export steadily is not cut off); none read, it is."""
        self.send_timer = None
        left = self.transport.get_write_buffer_size()
        if left < buffered:
            self._look_later(left)
            return
        self._close_unread(f"its client read nothing of the answer for {self.send_seconds:g} s")

    def _cut_if_unread(self) -> None:
        """A superseded request (its Hangup's ``cut``): its connection is closed if its
        answer waits for the client to read, since it would never end otherwise."""
        if self.flow.write_paused:
            self._close_unread("its client read nothing and a newer request took its place")

    def _close_unread(self, why: str) -> None:
        self._stop_send_timer()
        log.warning("closed a connection: %s", why)
        self.transport.abort()  # close() would first wait to send what is never read

    def shutdown(self) -> None:
        """uvicorn begins a graceful stop: the long-polls and streams let go (the first
        connection asked runs the hooks; the rest find none left)."""
        stopping.begin()
        super().shutdown()

    # --- the count --------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        if self.refused:
            return
        self.read_in_head = self.reading_head
        if self.reading_head:
            if self.head_started is None:
                self.head_started = self.loop.time()
            if not self._head_fits(data):
                self._refuse()
                return
        else:
            self.rest_bytes += len(data)
        if self.rest_bytes > MAX_REST_BYTES:
            self._refuse_rest()
            return
        super().data_received(data)

    def _expect_head(self) -> None:
        """A new head comes next: none of it counted yet. Counted as it comes are its bytes,
        its last three (an end of the head split between two reads), and the bytes of its
        request line until that line ends. Those are the request line's only if the head
        began with a read (``line_counted``): one that began in the middle of a read, behind
        the request before it, is counted from the next read on, inside its headers."""
        self.reading_head = True
        self.head_bytes = 0
        self.head_tail = b""
        self.line_bytes = 0
        self.line_ended = False
        self.line_counted = True
        self.line_start = b""  # the request line's first bytes, up to _LINE_KEPT

    def _head_fits(self, data: bytes) -> bool:
        """Whether the head still fits once ``data`` is read (up to the head's end)."""
        start = 0
        if not self.head_bytes and data[:1] in (b"\r", b"\n"):
            # Empty lines before a request line are skipped by the parser, and not counted.
            start = len(data) - len(data.lstrip(_BLANK))
        if not self.line_ended:
            if len(self.line_start) < _LINE_KEPT:
                self.line_start += data[start : start + _LINE_KEPT - len(self.line_start)]
            line_end = data.find(b"\n", start)
            self.line_ended = line_end >= 0
            self.line_bytes += (line_end + 1 if self.line_ended else len(data)) - start
        tail = self.head_tail
        # httptools (llhttp) wants CRLF line ends, so the head ends at the first CRLF CRLF.
        if tail and (across := (tail + data[:3]).find(_END)) >= 0:
            end = across + len(_END) - len(tail)  # the end was split between two reads
        else:
            end = data.find(_END, start)
            end = end + len(_END) if end >= 0 else -1
        if end >= 0:
            self.head_bytes += end - start
            self.rest_bytes = len(data) - end  # what came with the head's end counts too
        else:
            self.head_bytes += len(data) - start
            self.head_tail = (tail + data[max(start, len(data) - 3) :])[-3:]
        return self.head_bytes <= MAX_HEAD_BYTES

    def _answer(self, status: int, rest: bytes, scope: Any = None) -> tuple[bytes, bytes]:
        """A refusal as it goes on the wire (the server's default headers, a new
        X-Request-ID, CORS's headers for the request of ``scope``, then ``rest``), and
        that id."""
        request_id = new_request_id()
        extra = [*self.server_state.default_headers, *_cors_headers(scope)]
        date = b"".join(n + b": " + v + b"\r\n" for n, v in extra)
        stamp = b"x-request-id: " + request_id + b"\r\n"
        return STATUS_LINE[status] + date + stamp + rest, request_id

    def _refuse(self) -> None:
        if self.line_counted and self.line_bytes > MAX_HEAD_BYTES:
            status, problem = 414, _URI_TOO_LONG
        else:
            status, problem = 431, _TOO_LARGE
        answer, request_id = self._answer(status, problem)
        if self._drop(answer):
            _refused(request_id, status=status)

    def _refuse_rest(self) -> None:
        """Past the limit after the head: a 413 unless the request was being answered
        already (its app did not wait for the body), then closed, mid-request."""
        self.refused = True
        self.head_started = None
        if self.cycle is None or not self.cycle.response_started:
            scope = self.cycle.scope if self.cycle else None
            answer, request_id = self._answer(413, _REST_TOO_LARGE, scope)
            self.transport.write(answer)
            _refused(request_id, self.cycle.scope if self.cycle else None, 413)
        self.transport.close()

    def _drop(self, answer: bytes = b"") -> bool:
        """Read no more of this connection; send ``answer``, if any, and close it. While a
        response is still going out (to a request before this one, or a stream), that one
        ends first and the connection closes after it, unanswered (then: False)."""
        self.refused = True
        self.head_started = None
        if self.cycle is None or self.cycle.response_complete:
            self.transport.write(answer)
            self.transport.close()
            return True
        self.cycle.keep_alive = False
        self.flow.pause_reading()
        return False

    def on_response_complete(self) -> None:
        super().on_response_complete()
        answered = self.cycle is not None and self.cycle.response_complete  # not one behind
        if answered and not self.reading_head and self.head_started is None:
            # Answered while its body is still coming: the head clock runs for the rest.
            self.head_started = self.loop.time()

    # --- parser callbacks -------------------------------------------------------------

    def on_message_begin(self) -> None:
        # A request behind the rest of one answered early, in the same read: the
        # keep-alive clock that rest restarted must not close the connection under it.
        self._unset_keepalive_if_required()
        super().on_message_begin()
        # Only the first head of a read that started inside a head was counted from its
        # first byte; any other began in the middle of a read, after the end of the
        # request before it (pipelining).
        self.head_counted = self.read_in_head
        self.line_counted = self.head_counted
        self.read_in_head = False
        if self.head_started is None:
            self.head_started = self.loop.time()

    def on_header(self, name: bytes, value: bytes) -> None:
        if self.reading_head:  # else a trailer field: the service reads none
            super().on_header(name, value)

    def on_headers_complete(self) -> None:
        if self.refused:
            return
        self.scope[HANGUP] = Hangup(self.cut)  # type: ignore[literal-required]
        self.head_started = None
        self.reading_head = False
        if not self.head_counted and self._parsed_head_bytes() > MAX_HEAD_BYTES:
            # Answered in turn, after the responses to the requests before it; then closed.
            self.refused = True
            long_line = self._parsed_line_bytes() > MAX_HEAD_BYTES
            self._served_by(_uri_too_long if long_line else _too_large)
            return
        hosts = sum(name == b"host" for name, _ in self.headers)
        if hosts != 1 and self.parser.get_http_version() == "1.1":
            self.refused = True
            self._served_by(_without_one_host)
            return
        if self._body_admitted():
            super().on_headers_complete()
        else:
            # Answered at once, none of its body read: the rest is read and dropped, as
            # after any early answer, so that the answer is not lost to a reset.
            self._served_by(_too_many_bodies)
        self._close_after_if_undrainable()

    def _served_by(self, app: Any) -> None:
        """The request whose head just ended is answered by ``app``, not the service's."""
        own, self.app = self.app, app
        try:
            super().on_headers_complete()
        finally:
            self.app = own

    def _body_admitted(self) -> bool:
        """Counts the body of the request whose head just ended, if it has one, for its
        client's address: False, counting nothing, when that address is at its bound."""
        bound = bodies_per_address()
        if not bound or self.client is None:
            return True
        has_body = any(
            (name == b"content-length" and value != b"0") or name == b"transfer-encoding"
            for name, value in self.headers
        )
        if not has_body or _trusted_peer(self.client[0]):
            return True
        address = client_address(self.client[0], ())
        if _RECEIVING.get(address, 0) >= bound:
            return False
        _RECEIVING[address] = _RECEIVING.get(address, 0) + 1
        self.receiving = address
        return True

    def _body_done(self) -> None:
        """The body counted is whole (or its connection lost)."""
        address, self.receiving = self.receiving, None
        if address is not None:
            left = _RECEIVING[address] - 1
            if left:
                _RECEIVING[address] = left
            else:
                del _RECEIVING[address]

    def _close_after_if_undrainable(self) -> None:
        """A body declared longer than may follow a head can never be read whole, nor
        read and dropped after an early answer: the connection closes after this request
        whatever it is answered (a 413, 415, 404 or 429 before the body), so the answer
        says ``Connection: close`` (RFC 9112 section 9.6). Without it a client sent its
        next request, a move say, into a connection about to close unanswered."""
        if self.cycle is None:
            return
        for name, value in self.headers:
            if name == b"content-length" and value.isdigit() and int(value) > MAX_REST_BYTES:
                self.cycle.keep_alive = False

    def _parsed_head_bytes(self) -> int:
        """The least size on the wire of the head just parsed ("GET /path HTTP/1.1\r\n",
        each "name:value\r\n", the final "\r\n"), for a head not counted as it came:
        nothing within the limit is refused."""
        headers = sum(len(name) + len(value) + 3 for name, value in self.headers)
        return self._parsed_line_bytes() + headers + 2

    def _parsed_line_bytes(self) -> int:
        """The least size of the request line just parsed ("GET /path HTTP/1.1\r\n")."""
        return len(self.parser.get_method()) + len(self.url) + 12

    def on_body(self, body: bytes) -> None:
        if not self.refused:
            super().on_body(body)

    def on_message_complete(self) -> None:
        self._body_done()
        if self.refused:
            return
        super().on_message_complete()
        self._expect_head()
        self.rest_bytes = 0
        if self.cycle is not None and self.cycle.response_complete:
            # The rest of a request answered early is in: between requests again, under
            # the keep-alive clock that uvicorn stopped when the rest began to arrive.
            self.head_started = None
            self._unset_keepalive_if_required()
            self.timeout_keep_alive_task = self.loop.call_later(
                self.timeout_keep_alive, self.timeout_keep_alive_handler
            )

    def _unsupported_upgrade_warning(self) -> None:
        """A request asking to switch protocols (the service has none to switch to) is
        answered as an ordinary one. The parser reads nothing after it on this
        connection, so the connection closes once it is answered: a request sent right
        behind it is not left unanswered on an open connection, and the client sends it
        again on a new one. (uvicorn's own warning here, to install a WebSocket library,
        would only mislead.)"""
        if self.cycle is not None:
            self.cycle.keep_alive = False

    def send_400_response(self, msg: str) -> None:
        """A request the parser cannot read is answered as every refusal is, a problem
        document with its own X-Request-ID (uvicorn's own is plain text), and closed: a
        501 for a method it does not know, else a 400.
        Bytes that follow a request in the same read are parsed while it is answered: the
        answer to that request goes out first, whole (:meth:`_drop`), since closing over
        it would hide a command that was made."""
        if self.transport.is_closing():
            return
        status, refusal = 400, _UNREADABLE
        # Called while uvicorn handles the parser's error, which says why it failed.
        if isinstance(sys.exception(), httptools.HttpParserInvalidMethodError) and (
            self.reading_head and _names_a_method(self.line_start)
        ):
            status, refusal = 501, _UNKNOWN_METHOD
        answer, request_id = self._answer(status, refusal)
        if not self.reading_head and (self.cycle is None or not self.cycle.response_started):
            # The request's own body is unreadable (a bad chunk): it is answered now,
            # its app waiting for a body that will not come.
            self.transport.write(answer)
            self.transport.close()
            _refused(request_id, self.cycle.scope if self.cycle else None, 400)
            return
        if self._drop(answer):
            _refused(request_id, status=status)
