"""``cardroom bench store``: does the command path slow down as the store grows?

One run on one scratch database: commands per second at 16 concurrent tables (the figure
``bench all`` makes) and the global-order read the relay and the projector make, first
on the empty store; then millions of events are bulk-loaded with ``COPY``, the store is
vacuumed and analysed (as autovacuum would have) and the consumers' checkpoints put at
its head (as after a long-running system: the figure is of appends, not of a catch-up);
then both are measured again, and the full store's figures are reported over the empty
store's. The read is timed a batch behind the head (consumers keeping up) and from the
very start (a rebuild, or a consumer back from an outage).

The loaded rows are those the service itself writes: whole seeded games (``plan.py``),
played through the real server after the empty store's figure, are the templates. Each
copy is the same table under a new id, its events re-chained (``service.audit.chain``)
exactly as the store chains them, with its ``tables`` snapshot, seat tokens, shuffle
rows and idempotency records, so that the service loads and exports a loaded table and
the verifier accepts it (a sample is checked through the server's export in every run).
Copies are committed a chunk per transaction, so the global order's ``tx`` moves on
through the load as it does through a store's life.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import random
import time
import uuid
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import httpx
import msgspec
import psycopg
from psycopg_pool import AsyncConnectionPool

from service.audit.chain import GENESIS, canonical_bytes, chain
from service.audit.verify import verify_lines
from service.read.catalog import PROJECTIONS
from service.tools.bench import database, load, suite
from service.tools.bench.harness import (
    Server,
    percentiles,
    running_server,
    scratch_database,
)
from service.write.restored import RELAY as RELAY_CHECKPOINT
from service.write.store import Checkpoint, EventStore, NewEvent, StoredEvent, read_all_on

CLIENTS = 16  # concurrent tables, as in the command figure of ``bench all``
EVENTS = 5_000_000
READ_BATCH = 500  # events per global-order read: the relay's and the projector's batch
CHUNK = 50_000  # events per COPY transaction: bounded memory, and the tx moves on
LOADERS = 2  # concurrent COPY connections
AIM = 0.9
# The full store's commands are planned from seeds the empty store's never used.
FULL_SEEDS = 1_000_000
SAMPLED = 3  # loaded tables exported through the server and verified
TEMPLATES = 16  # distinct whole games the load copies
TEMPLATE_SEEDS = 2_000_000
# What a copied table brings besides its events and its snapshot row.
_TABLE_COLUMNS = (
    "id, game, status, tournament, players, version, last_hash, state, computer_turn,"
    " deadline, created_at, updated_at, decks"
)
_BESIDE = {
    "seat_tokens": "token_hash, table_id, seat, epoch",
    "shuffle_secrets": "table_id, shuffle, seed",
    "idempotency_keys": "table_id, actor, key, request_hash, status, body, etag, created_at",
}
_SIZED = ("events", "tables", "seat_tokens", "shuffle_secrets", "idempotency_keys")


def run(
    admin_url: str,
    redis_url: str,
    seconds: float,
    workers: int,
    events: int = EVENTS,
    templates: int = TEMPLATES,
) -> dict[str, Any]:
    result: dict[str, Any] = {
        "benchmark": "store",
        "seconds_per_figure": seconds,
        "server_workers": workers,
        "concurrent_tables": CLIENTS,
        "read_batch": READ_BATCH,
    }
    with scratch_database(admin_url) as database_url:
        result["empty"] = measure(database_url, redis_url, seconds, workers, 0, templates)
        games = result["empty"].pop("template_tables")
        loaded = asyncio.run(bulk_load(database_url, games, events))
        result["loaded"] = loaded
        result["loaded"].update(settle(database_url))
        result["full"] = measure(
            database_url, redis_url, seconds, workers, FULL_SEEDS, sample=loaded["sample"]
        )
    empty, full = result["empty"], result["full"]
    commands = database.ratio(full["commands"]["per_second"], empty["commands"]["per_second"])
    result["commands_full_over_empty"] = commands
    # A read's figure is its time, so its ratio is empty over full: below 1 is slower.
    result["global_read_empty_over_full"] = {
        where: database.ratio(
            empty["global_read"][where]["p50_ms"], full["global_read"][where]["p50_ms"]
        )
        for where in ("at_head", "from_start")
    }
    result["aim"] = AIM
    result["aim_met"] = commands >= AIM
    return result


def measure(
    database_url: str,
    redis_url: str,
    seconds: float,
    workers: int,
    seed: int,
    templates: int = 0,
    sample: Sequence[str] = (),
) -> dict[str, Any]:
    """The command figure through a real server; then ``templates`` whole games played
    through it, and the ``sample`` of loaded tables verified through its export; then
    (the server stopped) the global-order reads."""
    figures: dict[str, Any] = {}
    with running_server(database_url, redis_url, workers=workers) as server:
        commands, _, caught_up = suite.command_figure(server, database_url, CLIENTS, seconds, seed)
        figures["consumer_catch_up_seconds"] = caught_up
        figures["commands"] = commands
        if templates:
            figures["template_tables"] = asyncio.run(play_games(server, templates))
        if sample:
            figures["loaded_tables_verified"] = verify_exports(server, sample)
        # What the load left for the consumers is theirs to read before the read figure.
        database.wait_for_consumers(database_url)
    figures["global_read"] = asyncio.run(global_reads(database_url, seconds / 2))
    return figures


async def play_games(server: Server, count: int) -> list[str]:
    """``count`` whole seeded games, played through the server at once; their tables."""
    seated = await load.seat_tables(
        server.base, server.operator, load.make_plans(count, TEMPLATE_SEEDS)
    )
    # No time limit: each game is played to its plan's end.
    await load.run_commands(server.base, [[table] for table in seated], math.inf)
    return [table.table for table in seated]


async def global_reads(database_url: str, seconds: float) -> dict[str, Any]:
    """The relay's and projector's read (``read_all_on``), a batch of ``READ_BATCH``
    events: after a checkpoint that far behind the head (consumers keeping up), and after
    the very start (a rebuild, or a consumer back from an outage, catching up)."""
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        cur = await conn.execute(
            # Ordered by the columns: a bare ``tx`` would name the bigint output column.
            "SELECT tx::text::bigint, position FROM events"
            " ORDER BY events.tx DESC, events.position DESC OFFSET %s LIMIT 1",
            (READ_BATCH,),
        )
        row = await cur.fetchone()
        near_head = (0, 0) if row is None else (int(row[0]), int(row[1]))
        return {
            "at_head": await _reads(conn, near_head, seconds),
            "from_start": await _reads(conn, (0, 0), seconds),
        }


async def _reads(
    conn: psycopg.AsyncConnection[Any], checkpoint: Checkpoint, seconds: float
) -> dict[str, Any]:
    """The same batch read again and again for ``seconds`` (at least once)."""
    latencies: list[float] = []
    read = 0
    deadline = time.monotonic() + seconds
    while not latencies or time.monotonic() < deadline:
        started = time.perf_counter()
        batch = await read_all_on(conn, checkpoint, READ_BATCH)
        latencies.append(time.perf_counter() - started)
        read = len(batch)
    return {"events_per_read": read, **percentiles(latencies)}


def verify_exports(server: Server, table_ids: Sequence[str]) -> dict[str, Any]:
    """Export each table through the server (as an operator's audit does) and verify it
    as ``cardroom verify`` does: the service loads it, and its chain and rules hold."""
    failures = []
    auth = {"Authorization": f"Bearer {server.operator}"}
    for table_id in table_ids:
        # httpx, not the load generator's client: an export is streamed (chunked).
        answer = httpx.get(f"{server.base}/tables/{table_id}/export", headers=auth, timeout=60)
        if answer.status_code != 200:
            failures.append(f"{table_id}: the export answered {answer.status_code}")
            continue
        report = verify_lines(answer.content.splitlines())
        if report.failure is not None:
            failures.append(f"{table_id}: {report.failure.message}")
    return {"tables": len(table_ids), "ok": not failures, "failures": failures}


# --- the bulk load ---------------------------------------------------------------------


class _Event(NamedTuple):
    """A template event: its COPY line up to the hash, and the bytes its hash covers."""

    line: bytes
    canonical: bytes


class _Template(msgspec.Struct, frozen=True):
    id: bytes
    events: list[_Event]
    table: tuple[Any, ...]  # the ``tables`` row, in ``_TABLE_COLUMNS`` order
    beside: dict[str, list[tuple[Any, ...]]]


async def bulk_load(database_url: str, games: Sequence[str], events: int) -> dict[str, Any]:
    """Copies of the tables ``games`` (under new ids) until ``events`` more are stored."""
    async with AsyncConnectionPool(database_url, kwargs={"autocommit": True}) as pool:
        store = EventStore(pool)
        templates = [await _template(store, table_id) for table_id in games]
    started = time.monotonic()
    copies = _copies(templates)
    per_chunk = _per_chunk(templates)
    planned = stored = copied = 0
    sample: list[str] = []
    picker = random.Random(0)

    async def loader() -> None:
        nonlocal planned, stored, copied
        async with await psycopg.AsyncConnection.connect(database_url) as conn:
            while planned < events:
                chunk = [next(copies) for _ in range(per_chunk)]
                planned += sum(len(template.events) for _, template in chunk)
                for table_id, _ in chunk:  # a sample from anywhere in the load
                    copied += 1
                    if len(sample) < SAMPLED:
                        sample.append(table_id)
                    elif (slot := picker.randrange(copied)) < SAMPLED:
                        sample[slot] = table_id
                async with conn.transaction():
                    written = await _write(conn, chunk)
                stored += written  # not ``+= await``: that reads ``stored`` before waiting

    # One loader per core: Postgres's side of a COPY (parsing, three indexes) is the
    # slower one, and each connection has a backend of its own.
    await asyncio.gather(*(loader() for _ in range(LOADERS)))
    return {
        "events": stored,
        "tables": copied,
        "template_games": len(templates),
        "load_seconds": round(time.monotonic() - started, 1),
        "sample": sample,
    }


def _per_chunk(templates: list[_Template]) -> int:
    """Copies per COPY transaction: about ``CHUNK`` events."""
    mean = sum(len(t.events) for t in templates) / len(templates)
    return max(1, round(CHUNK / mean))


async def _template(store: EventStore, table_id: str) -> _Template:
    stored: list[StoredEvent] = []
    while page := await store.read_stream(table_id, stored[-1].version if stored else 0):
        stored.extend(page)
    previous = GENESIS
    events = []
    for event in stored:
        data, command = (
            msgspec.json.decode(event.data),
            msgspec.json.decode(event.command or b"null"),
        )
        canonical = canonical_bytes(
            table_id, event.version, event.recorded_at, NewEvent(data, event.actor, command)
        )
        previous = chain(previous, canonical)
        # The copies are chained from these bytes: they must be the ones the store hashed.
        assert previous.hex() == event.hash, f"{table_id} v{event.version}: chain differs"
        fields = [
            table_id,
            str(event.version),
            data["type"],
            bytes(event.data).decode(),
            event.actor,
            None if event.command is None else bytes(event.command).decode(),
            event.recorded_at.isoformat(),
        ]
        line = "\t".join(_copy_text(f) for f in fields) + "\t"
        events.append(_Event(line.encode(), canonical))
    async with store.pool.connection() as conn:
        cur = await conn.execute(f"SELECT {_TABLE_COLUMNS} FROM tables WHERE id = %s", (table_id,))
        table = await cur.fetchone()
        beside = {}
        for name, columns in _BESIDE.items():
            cur = await conn.execute(
                f"SELECT {columns} FROM {name} WHERE table_id = %s", (table_id,)
            )
            beside[name] = list(await cur.fetchall())
    assert table is not None
    return _Template(table_id.encode(), events, tuple(table), beside)


def _copy_text(value: str | None) -> str:
    """A field in COPY's text format."""
    if value is None:
        return "\\N"
    return (
        value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
    )


def _copies(templates: list[_Template]) -> Iterator[tuple[str, _Template]]:
    """New table ids, each with the template it copies, round and round the templates."""
    while True:
        for template in templates:
            yield str(uuid.uuid4()), template


async def _write(conn: psycopg.AsyncConnection[Any], chunk: list[tuple[str, _Template]]) -> int:
    """COPY one chunk of copied tables: their snapshot rows, what hangs off them, and
    their events, re-chained under the new ids. How many events it wrote."""
    heads: dict[str, bytes] = {}
    written = 0
    cur = conn.cursor()
    async with cur.copy("COPY events (table_id, version, type, data, actor, command,"
                        " recorded_at, hash) FROM STDIN") as copy:  # fmt: skip
        for new_id, template in chunk:
            new = new_id.encode()
            previous = GENESIS
            lines = []
            for event in template.events:
                # The template's id is a UUID: it occurs in the bytes only where it is meant.
                previous = chain(previous, event.canonical.replace(template.id, new))
                lines.append(
                    event.line.replace(template.id, new)
                    + b"\\\\x"
                    + previous.hex().encode()
                    + b"\n"
                )
            await copy.write(b"".join(lines))
            heads[new_id] = previous
            written += len(template.events)
    async with cur.copy(f"COPY tables ({_TABLE_COLUMNS}) FROM STDIN") as copy:
        for new_id, template in chunk:
            row = list(template.table)
            row[0], row[6] = new_id, heads[new_id]
            # The snapshot is msgpack: the id is a string of the same length, swapped in place.
            row[7] = bytes(row[7]).replace(template.id, new_id.encode())
            await copy.write_row(row)
    for name, columns in _BESIDE.items():
        async with cur.copy(f"COPY {name} ({columns}) FROM STDIN") as copy:
            for new_id, template in chunk:
                for found in template.beside[name]:
                    await copy.write_row(_beside(name, new_id, template, found))
    return written


def _beside(name: str, new_id: str, template: _Template, row: tuple[Any, ...]) -> list[Any]:
    copied = list(row)
    if name == "seat_tokens":
        # A token is a secret per seat: a copy's seats get tokens of their own.
        copied[0] = hashlib.sha256(f"{new_id}:{row[2]}:{row[3]}".encode()).digest()
        copied[1] = new_id
    else:
        copied[0] = new_id
    if name == "idempotency_keys":
        copied[5] = bytes(row[5]).replace(template.id, new_id.encode())
    return copied


def settle(database_url: str) -> dict[str, Any]:
    """VACUUM ANALYZE, as autovacuum would have; the consumers' checkpoints at the head,
    as after a long-running system; the sizes of what was loaded."""
    started = time.monotonic()
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
        vacuumed = time.monotonic() - started
        row = conn.execute(
            "SELECT tx::text::bigint, position FROM events"
            " ORDER BY events.tx DESC, events.position DESC LIMIT 1"
        ).fetchone()
        assert row is not None
        names = [RELAY_CHECKPOINT, *(p.checkpoint_name for p in PROJECTIONS.values())]
        conn.execute(
            "INSERT INTO consumer_checkpoints (name, tx, position, updated_at)"
            " SELECT name, %s, %s, now() FROM unnest(%s::text[]) AS name"
            " ON CONFLICT (name) DO UPDATE SET tx = excluded.tx, position = excluded.position,"
            " updated_at = now()",
            (row[0], row[1], names),
        )
        sizes = {
            name: _megabytes(conn, "pg_total_relation_size(%s::regclass)", name) for name in _SIZED
        }
        indexes = conn.execute(
            "SELECT indexrelid::regclass::text FROM pg_index"
            " WHERE indrelid = 'events'::regclass ORDER BY 1"
        ).fetchall()
        parts = {"heap_and_toast": _megabytes(conn, "pg_table_size(%s::regclass)", "events")}
        for (index,) in indexes:
            parts[index] = _megabytes(conn, "pg_relation_size(%s::regclass)", index)
        count = conn.execute("SELECT count(*) FROM events").fetchone()
    return {
        "events_in_store": count[0] if count else 0,
        "vacuum_analyze_seconds": round(vacuumed, 1),
        "total_megabytes": sizes,
        "events_megabytes": parts,
    }


def _megabytes(conn: psycopg.Connection[Any], size: str, relation: str) -> float:
    row = conn.execute(f"SELECT {size}", (relation,)).fetchone()
    return round((row[0] if row else 0) / 2**20, 1)
