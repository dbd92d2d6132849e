"""The committed AsyncAPI document is the generated one, and describes what is published."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

from service.http.asyncapi import document, render

COMMITTED = Path(__file__).resolve().parents[2] / "api_spec" / "asyncapi.json"


def test_committed_asyncapi_matches_the_code() -> None:
    assert COMMITTED.read_text() == render(), (
        "api_spec/asyncapi.json is stale: run `cardroom openapi` and commit the result"
    )


def entry_validator() -> tuple[jsonschema.Draft202012Validator, jsonschema.Draft202012Validator]:
    """Validators for a Redis entry and for the JSON record in its ``data`` field."""
    doc = document()
    root: dict[str, Any] = {"components": doc["components"]}
    entry = jsonschema.Draft202012Validator({**root, "$ref": "#/components/schemas/RedisEntry"})
    record = jsonschema.Draft202012Validator({**root, "$ref": "#/components/schemas/EventRecord"})
    return entry, record


def test_channels_name_the_keys_the_relay_writes() -> None:
    from service.workers.streams import global_stream, table_stream, tournament_stream

    channels = document()["channels"]
    assert channels["table"]["address"] == table_stream("cardroom", "{table}")
    assert channels["events"]["address"] == global_stream("cardroom")
    assert channels["tournament"]["address"] == tournament_stream("cardroom", "{tournament}")


def test_a_sample_record_validates() -> None:
    _, record = entry_validator()
    sample = {
        "version": 3,
        "at": "2026-11-30T00:00:00.000001Z",
        "actor": "seat:1",
        "event": {"type": "card_played", "seat": 1, "card": "5S"},
    }
    record.validate(sample)
    bad = {**sample, "event": {"type": "card_played", "seat": 1, "card": "XX"}}
    assert not record.is_valid(bad)
    assert json.loads(COMMITTED.read_text())["asyncapi"].startswith("3.")


def test_every_discriminator_names_its_property_as_asyncapi_asks() -> None:
    """AsyncAPI's schema object takes a discriminator as a string; OpenAPI's object form
    (``propertyName``, ``mapping``) made AsyncAPI's parser refuse the whole document.
    (``clients/generate`` also runs that parser over it.)"""
    found: list[Any] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "discriminator" in node:
                found.append(node["discriminator"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(document())
    assert found and all(value == "type" for value in found), found
