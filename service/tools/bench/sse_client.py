"""Cheap Server-Sent Events clients, for holding a thousand streams from one process: a
raw asyncio protocol per connection that decodes the chunked body and notes when each
``id`` arrived, nothing more (no JSON, no httpx). ``cardroom bench sse`` and the test of
a thousand streams (tests/integration/test_many_streams.py) use them."""

from __future__ import annotations

import asyncio
import time
from urllib.parse import urlsplit


class StreamClient(asyncio.Protocol):
    """One ``GET …/stream``: its status, and the monotonic time each version arrived."""

    def __init__(self, path: str, host: str, token: str | None = None) -> None:
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        self.request = (
            f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n{auth}\r\n"
        ).encode()
        self.status: int | None = None
        self.arrivals: dict[int, float] = {}
        self.repeats = 0
        self.newest = 0
        self.started = asyncio.get_running_loop().create_future()
        self.closed = False
        self._transport: asyncio.Transport | None = None
        self._raw = bytearray()  # bytes not yet decoded
        self._left = 0  # bytes of the current chunk still to come, its CRLF included
        self._chunk = bytearray()
        self._line = b""  # an unfinished line of the body

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        transport.write(self.request)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self.started.done():
            self.started.set_exception(ConnectionError("closed before the answer"))

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()

    def data_received(self, data: bytes) -> None:
        now = time.monotonic()
        raw = self._raw
        raw += data
        if self.status is None:
            end = raw.find(b"\r\n\r\n")
            if end < 0:
                return
            self.status = int(raw[: raw.find(b"\r\n")].split(b" ", 2)[1])
            del raw[: end + 4]
            self.started.set_result(self.status)
        while raw:
            if self._left == 0:
                eol = raw.find(b"\r\n")
                if eol < 0:
                    return
                self._left = int(raw[:eol], 16) + 2
                del raw[: eol + 2]
            take = min(self._left, len(raw))
            self._chunk += raw[:take]
            del raw[:take]
            self._left -= take
            if self._left == 0:
                self._body(bytes(self._chunk[:-2]), now)
                self._chunk.clear()

    def _body(self, body: bytes, now: float) -> None:
        lines = (self._line + body).split(b"\r\n")
        self._line = lines.pop()
        for line in lines:
            if line.startswith(b"id: "):
                version = int(line[4:])
                if version in self.arrivals:
                    self.repeats += 1
                else:
                    self.arrivals[version] = now
                self.newest = max(self.newest, version)


async def open_stream(base: str, path: str, token: str | None = None) -> StreamClient:
    """A stream whose answer has started (its status is known)."""
    url = urlsplit(base)
    assert url.hostname and url.port
    loop = asyncio.get_running_loop()
    _, client = await loop.create_connection(
        lambda: StreamClient(path, url.netloc, token), url.hostname, url.port
    )
    await asyncio.wait_for(client.started, timeout=30)
    return client
