"""The AsyncAPI document of the Redis Streams contract (``api_spec/asyncapi.json``).

Third parties may read Redis directly instead of the SSE endpoint; this document is
their contract: the stream keys, the entry fields and the JSON schema of ``data``,
generated from the same structs the service encodes (a test checks drift).
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from service.http.docs import mark_instants
from service.http.document import open_objects
from service.read.records import EventRecord, TournamentEventRecord
from service.release import API_VERSION
from service.workers.streams import (
    GLOBAL_STREAM_LENGTH,
    STREAM_IDLE_SECONDS,
    TABLE_STREAM_LENGTH,
)

_FIELDS_DESCRIPTION = (
    "A Redis stream entry is a flat map of string fields: `{owner}`, `version`, `position`,"
    " `type` and `data`. `data` is the JSON text of {record}; the other fields repeat its"
    " keys for cheap filtering."
)


# Only a table's entries: a tournament's events hide nothing.
_WHOLE = {
    "whole": {
        "type": "string",
        "enum": ["0", "1"],
        "description": "`1` when `data` hides nothing (a bid, a card played): every audience,"
        " seats and operator included, sees this very record; `0` when a seat or the operator"
        " sees more (read it from `GET /tables/{id}/events` with the token).",
    }
}


def _entry_schema(
    owner: str, record: str, described: str, extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A stream entry of a table's (``owner`` ``table``) or a tournament's events."""
    return {
        "type": "object",
        "description": _FIELDS_DESCRIPTION.format(owner=owner, record=described),
        "required": [owner, "version", "position", "type", "data"],
        "properties": {
            owner: {"type": "string", "format": "uuid", "description": f"The {owner}'s id."},
            "version": {
                "type": "string",
                "pattern": r"^[1-9][0-9]*$(?!\n)",
                "description": f"The event's version in its {owner} (1, 2, 3, … no gaps).",
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
                "contentSchema": {"$ref": f"#/components/schemas/{record}"},
                "description": "JSON text of the event record.",
            },
            **(extra or {}),
        },
    }


def _message(name: str, title: str, summary: str, entry: str) -> dict[str, Any]:
    """A message whose payload is a Redis entry of the ``entry`` schema."""
    return {
        "name": name,
        "title": title,
        "summary": summary,
        "contentType": "application/json",
        "payload": {"$ref": f"#/components/schemas/{entry}"},
    }


def _receive(channel: str, message: str, summary: str) -> dict[str, Any]:
    return {
        "action": "receive",
        "channel": {"$ref": f"#/channels/{channel}"},
        "summary": summary,
        "messages": [{"$ref": f"#/channels/{channel}/messages/{message}"}],
    }


def _name_discriminators(node: Any) -> None:
    """AsyncAPI's schemas name a union's discriminator by its property alone (a string);
    msgspec writes OpenAPI's object (``propertyName`` and ``mapping``), which AsyncAPI's
    parser refuses. The variants' own ``type`` values still tell them apart."""
    if isinstance(node, dict):
        found = node.get("discriminator")
        if isinstance(found, dict):
            node["discriminator"] = found["propertyName"]
        for value in node.values():
            _name_discriminators(value)
    elif isinstance(node, list):
        for value in node:
            _name_discriminators(value)


def document() -> dict[str, Any]:
    _, components = msgspec.json.schema_components(
        [EventRecord, TournamentEventRecord], ref_template="#/components/schemas/{name}"
    )
    mark_instants(components, [EventRecord, TournamentEventRecord])
    open_objects(components)  # as the OpenAPI document says them
    _name_discriminators(components)
    schemas = {
        **components,
        "RedisEntry": _entry_schema(
            "table", "EventRecord", "an `EventRecord` (the event as a spectator sees it)", _WHOLE
        ),
        "TournamentRedisEntry": _entry_schema(
            "tournament",
            "TournamentEventRecord",
            "a `TournamentEventRecord` (as `GET /tournaments/{id}/stream` sends it to"
            " the operator: results of a duplicate round in play included)",
        ),
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
                " (`CARDROOM_REDIS_PREFIX`, default `cardroom`). These streams are for"
                " the deployment's own services, as its database is, not for players:"
                " an entry never holds a hidden card, but the tables a tournament closes"
                " to spectators while they play its deals are published as they play,"
                " and a duplicate tournament's `table_scored` as soon as it is recorded,"
                " before its round is complete. A service that shows them to players holds"
                " them back as the HTTP API does."
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
                    f" twice. Trimmed to about {TABLE_STREAM_LENGTH} entries, and removed"
                    f" {STREAM_IDLE_SECONDS // 3600} hours after its last entry (a table"
                    " long over is read from the HTTP API)."
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
            "tournament": {
                "address": "cardroom:tournament:{tournament}",
                "title": "One tournament's events",
                "description": (
                    "Entries, pairings, results and the end of one tournament (DESIGN 14),"
                    " published like a table's: entry ids are `{version}-0`, so `XREAD"
                    " STREAMS cardroom:tournament:{tournament} {version}-0` resumes after a"
                    " version and an event is never stored twice. Removed, as a table's"
                    f" is, {STREAM_IDLE_SECONDS // 3600} hours after its last entry. Not in"
                    " the global stream."
                    " After any doubt, read `GET /tournaments/{id}/stream?after=V`."
                ),
                "parameters": {"tournament": {"description": "The tournament's id (a UUID)."}},
                "messages": {
                    "tournament_event": {"$ref": "#/components/messages/tournament_event"}
                },
            },
        },
        "operations": {
            "readTable": _receive("table", "event", "XREAD one table's stream from a version."),
            "readEvents": _receive("events", "event", "XREAD (or XREADGROUP) the global stream."),
            "readTournament": _receive(
                "tournament", "tournament_event", "XREAD one tournament's stream from a version."
            ),
        },
        "components": {
            "schemas": schemas,
            "messages": {
                "event": _message(
                    "event",
                    "A table event",
                    "One event, public form, as published after its commit.",
                    "RedisEntry",
                ),
                "tournament_event": _message(
                    "tournament_event",
                    "A tournament event",
                    "One event of a tournament's stream (public), as published after its commit.",
                    "TournamentRedisEntry",
                ),
            },
        },
    }


def render() -> str:
    return json.dumps(document(), indent=2, ensure_ascii=False, sort_keys=True) + "\n"
