"""A lean HTTP/1.1 keep-alive client for load generation.

The load generator shares two cores with the server and Postgres, so it must cost as
little as possible per request: one connection per worker, requests written as bytes,
responses read by Content-Length. Not a general client — only what the benchmarks send.
"""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec

_encode = msgspec.json.Encoder().encode


class Connection:
    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.answered = 0  # requests answered on this connection

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            await self.writer.wait_closed()

    async def request(
        self, method: str, path: str, headers: dict[str, str] | None = None, body: Any = None
    ) -> tuple[int, dict[str, str], bytes]:
        assert self.reader is not None and self.writer is not None
        payload = b"" if body is None else _encode(body)
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        if body is not None:
            lines += ["Content-Type: application/json", f"Content-Length: {len(payload)}"]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + payload)
        status_line = await self.reader.readline()
        status = int(status_line.split(b" ", 2)[1])
        answer: dict[str, str] = {}
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.decode().partition(":")
            answer[name.strip().lower()] = value.strip()
        length = int(answer.get("content-length", "0"))
        content = await self.reader.readexactly(length) if length else b""
        self.answered += 1
        return status, answer, content
