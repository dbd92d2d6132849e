"""What the verifier reads and reports: one exported event, parsed (:class:`Entry`), and
the first departure from the rules (:class:`Mismatch`), said as a difference of events.

Kept apart from the re-run itself (``service.audit.rerun``) so that each module of the
re-run can share them without importing another.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from domain.events import Event


class Entry(msgspec.Struct, frozen=True, kw_only=True):
    """One exported event, parsed: ``event`` is None when ``data`` is not an event of the
    table's game (``problem`` says why)."""

    line: int
    version: int
    recorded_at: datetime
    actor: str
    command: dict[str, Any] | None
    data: dict[str, Any]
    hash: str
    event: Event | None
    problem: str | None = None


class Mismatch(Exception):
    """The first event at which the export departs from what the rules produce."""

    def __init__(self, version: int, message: str) -> None:
        super().__init__(f"version {version}: {message}")
        self.version = version
        self.message = message


def describe(event: Event | None) -> str:
    if event is None:
        return "nothing"
    data = msgspec.to_builtins(event)
    tag = data.pop("type")
    text = msgspec.json.encode(data).decode()
    return f"{tag} {text if len(text) <= 120 else text[:117] + '...'}"


def difference(expected: Event, found: Event | None) -> str:
    """What differs between the event the rules produce and the exported one."""
    if found is None or type(found) is not type(expected):
        return f"the rules give {describe(expected)}; the export has {describe(found)}"
    ours, theirs = msgspec.to_builtins(expected), msgspec.to_builtins(found)
    fields = [k for k in ours if ours[k] != theirs.get(k)]
    shown = ", ".join(
        f"{k} (rules: {_short(ours[k])}, export: {_short(theirs.get(k))})" for k in fields[:3]
    )
    return f"{ours['type']} differs from what the rules give: {shown}"


def _short(value: Any) -> str:
    text = msgspec.json.encode(value).decode()
    return text if len(text) <= 60 else text[:57] + "..."
