"""The count of service.http.protocol in process, read by read: however the network cuts a
head, its end is found and its bytes counted exactly (DESIGN 12). The real server is
tested in tests/integration/test_http_limits.py."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from typing import Any

import pytest
from uvicorn.config import Config
from uvicorn.server import ServerState

from service.http.protocol import MAX_HEAD_BYTES, HeadLimitedProtocol, hangup_of
from service.settings import from_env
from tests.support.heads import head


class Transport(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()
        self.closed = False
        self.aborted = False
        self.buffered = 1 << 16  # bytes waiting to be sent: a full buffer

    def write(self, data: Any) -> None:
        self.written += data

    def close(self) -> None:
        self.closed = True

    def get_write_buffer_size(self) -> int:
        return self.buffered

    def abort(self) -> None:
        self.aborted = self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8000)}.get(name)

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def ok(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


async def held_open(scope: Any, receive: Any, send: Any) -> None:
    """An answer begun and kept open (an event stream's) until its client goes."""
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b": opened\n\n", "more_body": True})
    while (await receive())["type"] != "http.disconnect":
        pass


async def connect(app: Any = ok) -> tuple[HeadLimitedProtocol, Transport]:
    config = Config(app, log_config=None)
    protocol = HeadLimitedProtocol(config, ServerState(), {}, asyncio.get_running_loop())
    transport = Transport()
    protocol.connection_made(transport)
    return protocol, transport


async def answers(transport: Transport) -> list[int]:
    for _ in range(5):
        await asyncio.sleep(0)
    return [
        int(line.split()[1])
        for line in bytes(transport.written).split(b"\r\n")
        if line.startswith(b"HTTP/1.1 ")
    ]


async def test_a_16_kib_head_sent_byte_by_byte_is_served_and_one_byte_more_refused() -> None:
    for size, expected in ((MAX_HEAD_BYTES, [200]), (MAX_HEAD_BYTES + 1, [431])):
        protocol, transport = await connect()
        whole = head(size)
        for i in range(len(whole)):
            protocol.data_received(whole[i : i + 1])
            if i < MAX_HEAD_BYTES:
                assert not transport.written, f"answered after {i + 1} bytes"
        assert await answers(transport) == expected
        assert transport.closed == (expected == [431])
        protocol.connection_lost(None)


@pytest.mark.parametrize(
    ("sent", "status"),
    [
        (head(MAX_HEAD_BYTES + 1), 431),
        (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 400),
        (b"FOOBAR9 /healthz HTTP/1.1\r\n\r\n", 501),
    ],
    ids=["too-large", "unreadable", "unknown-method"],
)
async def test_a_refused_head_gets_a_request_id_and_one_access_line(
    caplog: pytest.LogCaptureFixture, sent: bytes, status: int
) -> None:
    """The id an answer carries is the one its access line names, so that a client's
    report can be found in the log (the 400 of a head the parser could not read had
    none)."""
    protocol, transport = await connect()
    with caplog.at_level(logging.INFO, logger="cardroom.access"):
        protocol.data_received(sent)
    answer = bytes(transport.written)
    found = re.search(rb"\r\nx-request-id: ([0-9a-f]{16})\r\n", answer)
    assert found, answer
    [record] = [r for r in caplog.records if r.name == "cardroom.access"]
    fields = record.fields  # type: ignore[attr-defined]
    assert fields == {"status": status, "request_id": found[1].decode()}
    protocol.connection_lost(None)


async def test_the_end_of_a_head_split_between_reads_is_found() -> None:
    """The empty line's four bytes cut 1+3, 2+2 and 3+1: the head is 16 KiB, and then a
    body follows in the same read that would carry the count past the limit."""
    start = b"PUT /healthz HTTP/1.1\r\nhost: x\r\ncontent-length: 99\r\n"
    pad = b"x-pad: " + b"a" * (MAX_HEAD_BYTES - len(start) - 11) + b"\r\n"
    whole = start + pad + b"\r\n"
    assert len(whole) == MAX_HEAD_BYTES
    for cut in (1, 2, 3):
        protocol, transport = await connect()
        protocol.data_received(whole[: -4 + cut])
        protocol.data_received(whole[-4 + cut :] + b"b" * 99)
        assert await answers(transport) == [200]
        protocol.connection_lost(None)


@pytest.mark.parametrize(
    ("request_head", "status"),
    [
        (b"GET /healthz HTTP/1.1\r\n\r\n", 400),
        (b"GET /healthz HTTP/1.1\r\nhost: a\r\nHost: b\r\n\r\n", 400),
        (b"GET /healthz HTTP/1.0\r\n\r\n", 200),
        (b"GET /healthz HTTP/1.1\r\nHOST: a\r\n\r\n", 200),
    ],
    ids=["none", "two", "http-1.0-none", "one"],
)
async def test_an_http_1_1_request_names_exactly_one_host(request_head: bytes, status: int) -> None:
    """RFC 9112 section 3.2: a server MUST answer 400 to an HTTP/1.1 request with no Host
    header, or more than one; HTTP/1.0 has none to give."""
    protocol, transport = await connect()
    protocol.data_received(request_head)
    assert await answers(transport) == [status]
    if status == 400:
        body = bytes(transport.written).split(b"\r\n\r\n", 1)[1]
        assert json.loads(body)["code"] == "malformed-request"
        assert transport.closed
    protocol.connection_lost(None)


@pytest.mark.parametrize(
    ("reads", "status", "code"),
    [
        ([b"BREW /healthz HTTP/1.1\r\nhost: a\r\n\r\n"], 501, "method-not-implemented"),
        ([b"get /healthz HTTP/1.1\r\nhost: a\r\n\r\n"], 501, "method-not-implemented"),
        ([b"\r\n", b"B", b"REW /healthz HTTP/1.1\r\n\r\n"], 501, "method-not-implemented"),
        ([b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"], 400, "malformed-request"),
        ([b"GE(T /healthz HTTP/1.1\r\nhost: a\r\n\r\n"], 400, "malformed-request"),
        ([b"NOT HTTP AT ALL\r\n\r\n"], 400, "malformed-request"),
        ([b"BREW /healthz HTTP/1.1"], 501, "method-not-implemented"),
    ],
    ids=[
        "unknown",
        "lower-case",
        "split-reads",
        "tls-handshake",
        "not-a-token",
        "words",
        "line-unfinished",
    ],
)
async def test_an_unknown_method_is_answered_501_and_bytes_that_are_no_method_400(
    reads: list[bytes], status: int, code: str
) -> None:
    """RFC 9110 section 9.1: a method the server does not recognise SHOULD get a 501;
    a request line that does not begin with a method at all is no request (a 400)."""
    protocol, transport = await connect()
    for data in reads:
        protocol.data_received(data)
    assert await answers(transport) == [status]
    body = bytes(transport.written).split(b"\r\n\r\n", 1)[1]
    assert json.loads(body)["code"] == code
    assert transport.closed
    protocol.connection_lost(None)


async def test_empty_lines_before_a_request_are_not_counted() -> None:
    protocol, transport = await connect()
    protocol.data_received(b"\r\n" * 100)
    protocol.data_received(b"\r\n" + head(MAX_HEAD_BYTES))
    assert await answers(transport) == [200]
    protocol.connection_lost(None)


async def test_each_request_of_a_kept_alive_connection_has_its_own_count() -> None:
    protocol, transport = await connect()
    for _ in range(3):
        protocol.data_received(head(MAX_HEAD_BYTES // 2 + 1000))
        await answers(transport)
    assert await answers(transport) == [200, 200, 200]
    assert not transport.closed
    protocol.connection_lost(None)


async def test_a_connection_whose_client_reads_nothing_is_closed_after_the_send_timeout() -> None:
    """The transport pauses writing when its buffer is full; resumed in time, nothing is
    closed, and left paused for ``send_seconds`` the connection is cut off at once
    (abort: close would wait to send what is never read)."""
    protocol, transport = await connect(held_open)
    protocol.send_seconds = 0.05
    protocol.data_received(head(200))
    await answers(transport)
    protocol.pause_writing()
    protocol.resume_writing()
    await asyncio.sleep(0.1)
    assert not transport.closed
    protocol.pause_writing()
    await asyncio.sleep(0.1)
    assert transport.aborted
    protocol.connection_lost(None)


async def test_a_client_reading_slowly_is_never_cut_off() -> None:
    """What is timed is a while with nothing read, not the whole answer: a phone reading
    a large export a little at a time keeps its connection however long it takes."""
    protocol, transport = await connect(held_open)
    protocol.send_seconds = 0.05
    protocol.data_received(head(200))
    await answers(transport)
    protocol.pause_writing()
    for _ in range(8):  # 0.24 s in all, the buffer a little smaller at each look
        await asyncio.sleep(0.03)
        transport.buffered -= 1000
    assert not transport.closed
    await asyncio.sleep(0.15)  # then nothing more is read
    assert transport.aborted
    protocol.connection_lost(None)


async def test_a_superseded_request_whose_answer_is_unread_is_cut_off_at_once() -> None:
    """A newer request of the same client takes a held request's place
    (service.http.holds): one whose writes wait for room could not end otherwise."""
    protocol, transport = await connect(held_open)
    protocol.data_received(head(200))
    await answers(transport)
    hangup = hangup_of(protocol.cycle.scope)
    assert hangup is not None
    hangup.supersede()  # writing freely: it ends by itself, at its next look
    assert not transport.closed
    protocol.pause_writing()
    hangup.supersede()
    assert transport.aborted
    protocol.connection_lost(None)


@pytest.mark.parametrize(
    ("name", "field", "default", "within", "past"),
    [
        ("CARDROOM_HEADER_TIMEOUT_SECONDS", "header_timeout_seconds", 10, "0.5", "10.5"),
        ("CARDROOM_SEND_TIMEOUT_SECONDS", "send_timeout_seconds", 30, "0.5", "300.5"),
        # Clients are promised a 503 within 2 s when the database does not answer.
        ("CARDROOM_REQUEST_SECONDS", "request_seconds", 1.5, "2", "2.5"),
    ],
)
def test_a_time_limit_is_its_default_unless_set_and_never_past_the_contract(
    name: str, field: str, default: float, within: str, past: str
) -> None:
    assert getattr(from_env({}), field) == default
    assert getattr(from_env({name: within}), field) == float(within)
    for bad in ("0", "-1", "nan", "inf", past):
        with pytest.raises(ValueError, match=name):
            from_env({name: bad})
