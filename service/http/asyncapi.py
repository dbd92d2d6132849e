"""The AsyncAPI document of the Redis Streams contract (``api_spec/asyncapi.json``).

Third parties may read Redis directly instead of the SSE endpoint; this document is
their contract: the stream keys, the entry fields and the JSON schema of ``data``,
generated from the same structs the service encodes (a test checks drift).
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from service.http.document import API_VERSION
from service.read.records import EventRecord
from service.workers.streams import GLOBAL_STREAM_LENGTH, TABLE_STREAM_LENGTH

_FIELDS_DESCRIPTION = (
    "A Redis stream entry is a flat map of string fields: `table`, `version`, `position`,"
    " `type` and `data`. `data` is the JSON text of an `EventRecord` (the event as a"
    " spectator sees it); the other fields repeat its keys for cheap filtering."
)


def _entry_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "description": _FIELDS_DESCRIPTION,
        "required": ["table", "version", "position", "type", "data"],
        "properties": {
            "table": {"type": "string", "format": "uuid", "description": "The table's id."},
            "version": {
                "type": "string",
                "pattern": r"^[1-9][0-9]*$(?!\n)",
                "description": "The event's version in its table (1, 2, 3, … no gaps).",
            },
            "position": {
                "type": "string",
                "pattern": r"^[1-9][0-9]*$(?!\n)",
                "description": "The event's position in the store (for diagnostics only).",
            },
            "type": {"type": "string", "description": "The event type, e.g. `card_played`."},
            "data": {
                "type": "string",
                "contentMediaType": "application/json",
                "contentSchema": {"$ref": "#/components/schemas/EventRecord"},
                "description": "JSON text of the event record.",
            },
        },
    }


def document() -> dict[str, Any]:
    _, components = msgspec.json.schema_components(
        [EventRecord], ref_template="#/components/schemas/{name}"
    )
    schemas = {**components, "RedisEntry": _entry_schema()}
    message = {
        "name": "event",
        "title": "A table event",
        "summary": "One event, public form, as published after its commit.",
        "contentType": "application/json",
        "payload": {"$ref": "#/components/schemas/RedisEntry"},
    }
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "Cardroom live events (Redis Streams)",
            "version": API_VERSION,
            "description": (
                "The relay publishes every committed event, in commit order, to Redis"
                " Streams. Delivery is at least once: dedupe by (`table`, `version`)."
                " Redis is a doorbell: after any doubt (a gap, a trimmed stream, Redis"
                " restarted) read `GET /tables/{id}/events?after=V` from the HTTP API,"
                " which is the source of truth. Keys start with the deployment's prefix"
                " (`CARDROOM_REDIS_PREFIX`, default `cardroom`)."
            ),
        },
        "defaultContentType": "application/json",
        "servers": {
            "redis": {
                "host": "localhost:6379",
                "protocol": "redis",
                "description": "The deployment's Redis (CARDROOM_REDIS_URL).",
            }
        },
        "channels": {
            "table": {
                "address": "cardroom:table:{table}",
                "title": "One table's events",
                "description": (
                    "Entry ids are `{version}-0`, so `XREAD STREAMS cardroom:table:{table}"
                    " {version}-0` resumes after a version and an event is never stored"
                    f" twice. Trimmed to about {TABLE_STREAM_LENGTH} entries."
                ),
                "parameters": {"table": {"description": "The table's id (a UUID)."}},
                "messages": {"event": {"$ref": "#/components/messages/event"}},
            },
            "events": {
                "address": "cardroom:events",
                "title": "Every table's events",
                "description": (
                    "All tables in the store's commit order, auto-generated entry ids;"
                    " a republished batch may repeat entries (dedupe by table and"
                    f" version). Trimmed to about {GLOBAL_STREAM_LENGTH} entries."
                ),
                "messages": {"event": {"$ref": "#/components/messages/event"}},
            },
        },
        "operations": {
            "readTable": {
                "action": "receive",
                "channel": {"$ref": "#/channels/table"},
                "summary": "XREAD one table's stream from a version.",
                "messages": [{"$ref": "#/channels/table/messages/event"}],
            },
            "readEvents": {
                "action": "receive",
                "channel": {"$ref": "#/channels/events"},
                "summary": "XREAD (or XREADGROUP) the global stream.",
                "messages": [{"$ref": "#/channels/events/messages/event"}],
            },
        },
        "components": {"schemas": schemas, "messages": {"event": message}},
    }


def render() -> str:
    return json.dumps(document(), indent=2, ensure_ascii=False, sort_keys=True) + "\n"
