"""The chain hash over a table's events (DESIGN 4): pure, so the offline verifier can
check an export without a database driver.

Each event's hash is SHA-256 over the previous event's hash (``GENESIS`` for the first)
and the event's canonical bytes: sorted-key JSON of everything recorded about it.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any, Protocol

import msgspec

GENESIS = bytes(32)
_json = msgspec.json.Encoder(order="sorted")


class Recorded(Protocol):
    """What is recorded of an event beside its table, version and time."""

    @property
    def actor(self) -> str: ...

    @property
    def data(self) -> Any: ...

    @property
    def command(self) -> Any: ...


def canonical_bytes(table_id: str, version: int, recorded_at: datetime, event: Recorded) -> bytes:
    """The bytes an event's chain hash covers."""
    return _json.encode(
        {
            "table": table_id,
            "version": version,
            "at": recorded_at,
            "actor": event.actor,
            "data": event.data,
            "command": event.command,
        }
    )


def chain(previous: bytes, canonical: bytes) -> bytes:
    return hashlib.sha256(previous + canonical).digest()
