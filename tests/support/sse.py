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


def written(body: str) -> list[dict[str, str]]:
    """The messages of a whole Server-Sent Events body as written: each field's text (a
    ``data`` field unparsed), keep-alive comments left out."""
    found = []
    for block in body.replace("\r\n", "\n").split("\n\n"):
        fields = [line.partition(":") for line in block.split("\n") if line and line[0] != ":"]
        if fields:
            found.append({name: value.removeprefix(" ") for name, _, value in fields})
    return found
