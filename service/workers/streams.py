"""The Redis Streams contract for third parties (documented in api_spec/asyncapi.yaml).

- ``{prefix}:table:{table_id}`` — one entry per event of that table, with the entry id
  ``{version}-0``, so a reader resumes from a version (``XREAD ... {version}-0``) and a
  republished event is refused by Redis instead of duplicated. Trimmed to about
  ``TABLE_STREAM_LENGTH`` entries, and removed ``STREAM_IDLE_SECONDS`` after its last
  entry: a table's stream outlives the table by a day, not for good (a finished table's
  stream held up to 1,000 entries, kept in Redis's memory for ever).
- ``{prefix}:events`` — every table's events in the store's global order, auto ids,
  trimmed to about ``GLOBAL_STREAM_LENGTH``; delivery is at least once: dedupe by
  (``table``, ``version``).

Every entry has the fields ``table``, ``version``, ``position``, ``type`` and ``data``
(the JSON event record as ``GET /tables/{id}/events`` shows it to a spectator). Only the
public form of an event is ever published.

- ``{prefix}:tournament:{tournament_id}`` — one entry per event of that tournament
  (DESIGN 14), entry ids ``{version}-0`` as for a table, with the fields ``tournament``,
  ``version``, ``position``, ``type`` and ``data`` (the JSON tournament event record, as
  ``GET /tournaments/{id}/stream`` sends it), removed as a table's is. Tournament events
  are not in the global stream, whose entries are all table events.

On a Redis Cluster (DESIGN 13) every command the service sends names one key, so none
can span slots and these names need no hash tag (renaming them would break every third
party reading them). Each table's and tournament's stream lands on its own slot; the
global stream is one key on one node, which the relay writes and each process's fan-out
reader reads with one blocking ``XREAD``.
"""

from __future__ import annotations

TABLE_STREAM_LENGTH = 1_000
STREAM_IDLE_SECONDS = 86_400  # a table's or tournament's stream, after its last entry
GLOBAL_STREAM_LENGTH = 100_000


def table_stream(prefix: str, table_id: str) -> str:
    return f"{prefix}:table:{table_id}"


def tournament_stream(prefix: str, tournament_id: str) -> str:
    return f"{prefix}:tournament:{tournament_id}"


def global_stream(prefix: str) -> str:
    return f"{prefix}:events"


def entry_id(version: int) -> str:
    return f"{version}-0"


def version_of(entry: bytes | str) -> int:
    text = entry.decode() if isinstance(entry, bytes) else entry
    return int(text.split("-", 1)[0])
