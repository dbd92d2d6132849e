"""The stored events' shapes, as recorded in ``tests/stored_shapes.json``.

Events are the storage format (domain/events.py): a field may be added with a default,
never retyped or removed, and a breaking change is a new tag. The record is the JSON
Schema of every table and tournament event and of every struct they hold, with the prose
left out; ``tests/test_stored_shapes.py`` holds today's shapes to it.

Record the shapes again only to add to them (a new event, a new field with a default, a
new value of a closed set), and read the file's diff before committing it:

    python -m tests.support.stored_shapes
"""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

import msgspec

from domain.tournament.events import TOURNAMENT_EVENTS
from service.write.codec import event_classes

RECORD = Path(__file__).resolve().parents[1] / "stored_shapes.json"
PROSE = frozenset({"title", "description", "examples"})


def _without_prose(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _without_prose(v) for k, v in schema.items() if k not in PROSE}
    if isinstance(schema, list):
        return [_without_prose(v) for v in schema]
    return schema


def current() -> dict[str, Any]:
    """Every stored struct's schema by name; events' names are their tags' classes."""
    classes = [*event_classes(), *typing.get_args(TOURNAMENT_EVENTS)]
    _, components = msgspec.json.schema_components(classes, ref_template="#/$defs/{name}")
    return {name: _without_prose(components[name]) for name in sorted(components)}


def recorded() -> dict[str, Any]:
    shapes: dict[str, Any] = json.loads(RECORD.read_text())
    return shapes


if __name__ == "__main__":
    RECORD.write_text(json.dumps(current(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {RECORD}")
