"""Every event ever stored still decodes, with the meaning it was stored with.

Today's event structs are held to the shapes recorded in ``tests/stored_shapes.json``
(tests/support/stored_shapes.py): they may add to them — an event, a field with a
default, a value of a closed set, another type a field may hold — but never remove, retype
or make required what was recorded.
"""

from __future__ import annotations

import copy
from typing import Any

from tests.support.stored_shapes import current, recorded


def narrowings(old: Any, new: Any, where: str) -> list[str]:
    """Where ``new`` would refuse, or read differently, something ``old`` accepted."""
    if old == new:
        return []
    if not (isinstance(old, dict) and isinstance(new, dict)):
        return [f"{where}: {old!r} became {new!r}"]
    if "anyOf" in new and "anyOf" not in old:
        # X became X | Y: old values are still X.
        if any(not narrowings(old, choice, where) for choice in new["anyOf"]):
            return []
        return [f"{where}: none of {new['anyOf']!r} takes {old!r}"]
    found: list[str] = []
    for key in old.keys() | new.keys():
        here = f"{where}.{key}"
        if key not in new:
            found.append(f"{here} was dropped")
        elif key not in old:
            if key != "default":  # a field given a default may be left out: that adds
                found.append(f"{here} was added: {new[key]!r}")
        elif key == "properties":
            for name, shape in old[key].items():
                if name not in new[key]:
                    found.append(f"{where}: field {name!r} was removed")
                else:
                    found.extend(narrowings(shape, new[key][name], f"{where}.{name}"))
        elif key == "required":
            added = sorted(set(new[key]) - set(old[key]))
            found.extend(f"{where}: field {name!r} became required" for name in added)
        elif key == "enum":
            lost = [value for value in old[key] if value not in new[key]]
            found.extend(f"{where}: value {value!r} is no longer allowed" for value in lost)
        elif key == "anyOf":
            for choice in old[key]:
                if all(narrowings(choice, other, here) for other in new[key]):
                    found.append(f"{here}: no longer takes {choice!r}")
        else:
            found.extend(narrowings(old[key], new[key], here))
    return found


def test_the_stored_shapes_are_recorded_for_every_event_there_is() -> None:
    missing = sorted(current().keys() - recorded().keys())
    assert not missing, f"record them: python -m tests.support.stored_shapes ({missing})"


def test_no_stored_shape_was_removed_retyped_or_made_required() -> None:
    now = current()
    found = [
        problem
        for name, shape in recorded().items()
        for problem in (
            narrowings(shape, now[name], name) if name in now else [f"{name} was removed"]
        )
    ]
    assert not found, "\n".join(found)


def with_field(shape: dict[str, Any], name: str, field: Any, *, required: bool = False) -> Any:
    changed = copy.deepcopy(shape)
    changed["properties"][name] = field
    if required:
        changed["required"].append(name)
    return changed


def test_additions_pass_and_narrowings_are_named() -> None:
    """The rules themselves, on a recorded event (``bid_made``)."""
    old = recorded()["BidMade"]
    assert old["properties"]["amount"] == {"type": "integer"}
    note = {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}
    assert narrowings(old, with_field(old, "note", note), "e") == []
    widened = {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    assert narrowings(old, with_field(old, "amount", widened), "e") == []
    required = with_field(old, "note", {"type": "string"}, required=True)
    assert narrowings(old, required, "e") == ["e: field 'note' became required"]
    retyped = with_field(old, "amount", {"type": "string"})
    assert narrowings(old, retyped, "e") == ["e.amount.type: 'integer' became 'string'"]
    dropped = copy.deepcopy(old)
    del dropped["properties"]["amount"]
    assert narrowings(old, dropped, "e") == ["e: field 'amount' was removed"]
    renamed = copy.deepcopy(old)
    renamed["properties"]["type"] = {"enum": ["bid_placed"]}
    assert narrowings(old, renamed, "e") == ["e.type: value 'bid_made' is no longer allowed"]


def test_the_record_holds_the_events_as_stored() -> None:
    """The record is of the shapes the store holds, each event under its ``type`` tag."""
    tags = {
        tag
        for shape in recorded().values()
        if "type" in shape.get("properties", {})
        for tag in shape["properties"]["type"].get("enum", [])
    }
    assert {"bid_made", "card_played", "table_created", "round_paired"} <= tags
