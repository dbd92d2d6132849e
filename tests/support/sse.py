"""A minimal Server-Sent Events reader for tests (the wire format, nothing more)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx


class Message(dict[str, Any]):
    """``id``, ``event``, ``data`` (parsed JSON) or ``comment`` of one message."""


async def messages(response: httpx.Response) -> AsyncIterator[Message]:
    current = Message()
    async for line in response.aiter_lines():
        if line == "":
            if current:
                yield current
            current = Message()
        elif line.startswith(":"):
            yield Message(comment=line[1:].strip())
        else:
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            current[field] = json.loads(value) if field == "data" else value
