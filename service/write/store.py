"""The event store on Postgres: one stream per table, appends with an expected version.

Every append writes, in one transaction: the new events (hash-chained), the inline
``tables`` snapshot, and whatever must never be lost apart from them (new shuffle seeds,
a seat's token digest, the idempotency record). A stale expected version collides on the
events' primary key and the whole transaction writes nothing.

Why consumers read in ``(tx, position)`` order below the snapshot's ``xmin``: identity
values are handed out when a row is inserted, but rows become visible when their
transaction commits, and commits do not happen in insert order. A consumer that reads
"everything after position P" can see position P+2 (committed) before P+1 (still in
flight) and then move its checkpoint past P+1 for ever. Each event therefore records the
id of the transaction that wrote it (``pg_current_xact_id()``), and a consumer reads only
rows whose transaction id is below ``pg_snapshot_xmin(pg_current_snapshot())``: every
transaction below that horizon has finished, so no row can later appear behind the
consumer's checkpoint. Writers never wait on each other for this; the cost is that a
long-running transaction holds consumers back until it ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
import uuid
from collections.abc import Callable, Collection, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec
import psycopg
from psycopg_pool import AsyncConnectionPool

from domain.tournament.model import PAIRING_RULES
from projections.table_state import TableRow
from service import metrics
from service.audit.chain import canonical_bytes, chain
from service.pg import Source, fetch_all, fetch_column, fetch_one
from service.write.group_commit import GroupCommit, apply_on

log = logging.getLogger("cardroom.store")
CHANNEL = "cardroom_events"
INTERVAL = 0.01  # seconds between the commit announcer's statements, at the least
TOURNAMENT_NOTICE = "tournament:"  # a tournament's commits: tournament:<id>:<version>
# The application_name of each process's LISTEN connection: which pairing rules the
# process knows, so that a tournament is created under rules every running process
# can pair by (service.write.tournament_store.pairing_rules_known).
LISTENER_NAME = f"cardroom pairing-rules={PAIRING_RULES}"
Checkpoint = tuple[int, int]  # (tx, position) of the last event a consumer processed
_json = msgspec.json.Encoder(order="sorted")


class _EventRow(msgspec.Struct):
    """An event as ``append_commits`` reads it (migration 0011; bytes travel in base64)."""

    v: int
    t: str
    d: dict[str, Any]
    a: str
    c: dict[str, Any] | None
    h: bytes  # the chain hash


_EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
_NO_TABLE = "00000000-0000-0000-0000-000000000000"
# The resource of an opening's idempotency records (a casual table, a tournament): what
# the request makes has no id before it is made, so its record cannot be kept under it.
OPENINGS = _NO_TABLE


class VersionConflict(Exception):
    """The stream moved on since the snapshot was read: nothing was written."""


class NewEvent(msgspec.Struct, frozen=True):
    """One event to append: its data (with ``type``), who caused it, and the command."""

    data: dict[str, Any]
    actor: str
    command: dict[str, Any] | None = None


class StoredEvent(msgspec.Struct, frozen=True):
    table_id: str
    version: int
    position: int
    recorded_at: datetime
    actor: str
    data: msgspec.Raw
    command: msgspec.Raw | None
    hash: str


class Snapshot(msgspec.Struct, frozen=True):
    game: str
    version: int
    last_hash: bytes
    state: bytes | None  # None: the caller's known version is current
    decks: bytes | None = None  # stored apart from ``state`` (projections.table_state)


class IdempotencyRecord(msgspec.Struct, frozen=True):
    """The first answer to a keyed request, returned again to every retry."""

    actor: str
    key: str
    request_hash: bytes
    status: int
    body: bytes
    etag: str


class Commit(msgspec.Struct, frozen=True, kw_only=True):
    """Everything one command writes, applied atomically by :meth:`EventStore.commit`."""

    table_id: str
    expected_version: int
    previous_hash: bytes
    events: Sequence[NewEvent]
    row: TableRow  # the table_state row as the table now projects
    seeds: Sequence[tuple[int, bytes | None]] = ()
    seat_tokens: Sequence[tuple[bytes, int, int]] = ()  # digest, seat, epoch
    at: datetime
    idempotency: IdempotencyRecord | None = None


class _Seed(msgspec.Struct):
    n: int
    s: bytes | None  # None: an operator-supplied deck


class _Token(msgspec.Struct):
    d: bytes  # the token's digest
    n: int
    e: int


class _Member(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One commit as ``append_commits`` reads it (migration 0011): the ``tables`` row's
    columns (a :class:`TableRow`'s fields), its events, and what is written with them
    (left out when there is none)."""

    table: str
    expected: int
    version: int
    at: datetime
    hash: bytes
    game: str
    status: str
    tournament: str | None
    players: list[str]
    state: bytes
    computer_turn: bool
    deadline: datetime | None
    decks: bytes | None = None
    # Always sent: the writer keeps decks apart from ``state`` (migration 0014), so it
    # may update a table whose decks are stored apart; a process of the code before may
    # not, since it would play that table without its decks.
    decks_apart: bool
    events: list[_EventRow]
    seeds: list[_Seed] | None = None
    tokens: list[_Token] | None = None
    idempotency: IdempotencyRecord | None = None


def now() -> datetime:
    # Milliseconds: the clocks' arithmetic (DESIGN 10) and the stored instants agree
    # exactly, and Postgres keeps them as they are, so the hash covers what is stored.
    moment = datetime.now(UTC)
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


class Notifier:
    """Announces commits with ``NOTIFY``, after them and outside their transactions.

    A transaction that notifies holds a cluster-wide lock while it commits, so
    notifying inside the append would serialise every commit and undo Postgres' group
    commit. Instead commits are announced a moment later, a batch per statement (the
    latest version of each table moved). A notification lost in a crash only delays the
    listeners, who also look at Postgres on their own.

    Statements are paced: one at most every ``interval`` seconds. An idle announcer sends
    ``delay`` after a commit; a busy one gathers what the interval brings. Each statement
    is a transaction that signals every listening backend, and announcing every group
    commit on its own cost about a tenth of the server's and a sixth of Postgres' CPU per
    command at 16 busy tables.
    """

    def __init__(
        self,
        pool: AsyncConnectionPool[Any],
        delay: float = 0.001,
        interval: float = INTERVAL,
        clock: Callable[[], float] = time.monotonic,
        local: Callable[[str, int], None] | None = None,
    ) -> None:
        self.pool = pool
        self.delay = delay
        self.interval = interval
        self.clock = clock
        self.local = local  # told of each commit at once (service.read.watch)
        self.sent_at = -interval  # when the last statement went out
        self.pending: dict[str, int] = {}
        self.wake = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def notify(self, table_id: str, version: int) -> None:
        self.pending[table_id] = max(version, self.pending.get(table_id, 0))
        self.wake.set()
        if self.local is not None:
            self.local(table_id, version)

    def start(self) -> None:
        self.task = asyncio.create_task(self._run(), name="cardroom-notifier")

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
            await self._send()  # what was committed last is still announced

    async def _run(self) -> None:
        while True:
            await self.wake.wait()
            await asyncio.sleep(self.pause())
            self.wake.clear()
            self.sent_at = self.clock()
            try:
                await self._send()
            except (psycopg.Error, OSError) as exc:
                log.warning("could not announce commits (%s)", exc)

    def pause(self) -> float:
        """How long a commit that rings now waits before the statement announcing it."""
        return max(self.delay, self.sent_at + self.interval - self.clock())

    async def _send(self) -> None:
        if not self.pending:
            return
        notes = [f"{table}:{version}" for table, version in self.pending.items()]
        self.pending = {}
        async with self.pool.connection() as conn:
            await conn.execute(
                "SELECT pg_notify(%s, note) FROM unnest(%s::text[]) AS note", (CHANNEL, notes)
            )


class Stores:
    """What the table and tournament stores share: the primary's pool, the commits'
    announcer, and where reads that may go to a replica run (service.read.replicas: the
    ``replica=True`` loads and stream reads, never older than the primary)."""

    def __init__(
        self,
        pool: AsyncConnectionPool[Any],
        notifier: Notifier | None = None,
        reads: Source | None = None,
    ) -> None:
        self.pool = pool
        self.notifier = notifier
        self.reads: Source = pool if reads is None else reads


class EventStore(Stores):
    @functools.cached_property
    def group(self) -> GroupCommit:
        """Where this store's commits queue to travel together."""
        return GroupCommit(self.pool)

    async def load(self, table_id: str, known_version: int | None = None) -> Snapshot | None:
        """The table's snapshot; its state only when ``known_version`` is not current."""
        found = await self.load_many([(table_id, known_version)])
        return found.get((table_id, known_version))

    async def computer_turns(self, limit: int = 100, skip: Collection[str] = ()) -> list[str]:
        """Tables waiting on a seat the computer plays, longest waiting first; ``skip``:
        tables this process may not decide (a newer rules engine's)."""
        return await fetch_column(
            self.pool,
            "SELECT id::text FROM tables WHERE computer_turn AND NOT id = ANY(%s::uuid[])"
            " ORDER BY updated_at LIMIT %s",
            (list(skip), limit),
        )

    async def load_many(
        self, wanted: Sequence[tuple[str, int | None]], *, replica: bool = False
    ) -> dict[tuple[str, int | None], Snapshot]:
        """:meth:`load` for many ``(table, known version)`` pairs in one statement; a
        pair whose table does not exist is missing from the answer. ``replica``: may be
        answered by a replica (as current as the primary, see :attr:`reads`)."""
        rows = await fetch_all(
            self.reads if replica else self.pool,
            "SELECT k.id, k.known, t.game, t.version, t.last_hash,"
            " CASE WHEN t.version = k.known THEN NULL ELSE t.state END,"
            " CASE WHEN t.version = k.known THEN NULL ELSE t.decks END"
            " FROM unnest(%s::text[], %s::int[]) AS k(id, known)"
            " JOIN tables t ON t.id = k.id::uuid",
            ([table for table, _ in wanted], [known for _, known in wanted]),
            prepare=True,
        )
        return {
            (row[0], row[1]): Snapshot(
                row[2],
                row[3],
                bytes(row[4]),
                None if row[5] is None else bytes(row[5]),
                None if row[6] is None else bytes(row[6]),
            )
            for row in rows
        }

    def encode(self, commit: Commit) -> tuple[bytes, bytes]:
        """``commit`` as one member of ``append_commits``, and the chain hash of its last
        event."""
        at = commit.at
        rows = []
        previous = commit.previous_hash
        for offset, event in enumerate(commit.events, start=1):
            version = commit.expected_version + offset
            previous = chain(previous, canonical_bytes(commit.table_id, version, at, event))
            rows.append(
                _EventRow(version, event.data["type"], event.data, event.actor, event.command,
                          previous)
            )  # fmt: skip
        member = _Member(
            table=commit.table_id,
            expected=commit.expected_version,
            version=commit.expected_version + len(commit.events),
            at=at,
            hash=previous,
            events=rows,
            seeds=[_Seed(n, seed) for n, seed in commit.seeds] or None,
            tokens=[_Token(digest, seat, epoch) for digest, seat, epoch in commit.seat_tokens]
            or None,
            idempotency=commit.idempotency,
            decks_apart=True,
            **msgspec.structs.asdict(commit.row),
        )
        # One JSON document, encoded by msgspec in one call (psycopg dumping a statement's
        # twenty parameters cost more than the statement's own work).
        return _json.encode(member), previous

    async def commit(self, commit: Commit) -> bytes:
        """Append ``commit.events`` after ``expected_version``; all or nothing.

        Returns the chain hash of the last event appended. Raises
        :class:`VersionConflict` when another append got there first.
        """
        member, last_hash = self.encode(commit)
        # Applied with the commits of other concurrent commands (service.write.group_commit).
        if not await self.group.apply(commit.table_id, member):
            metrics.CONFLICTS.inc()
            raise VersionConflict(commit.table_id)
        self.committed(commit)
        return last_hash

    async def commit_on(self, conn: psycopg.AsyncConnection[Any], commit: Commit) -> bytes:
        """:meth:`commit` on ``conn``, inside the transaction the caller holds there (a
        tournament table's opening, written with its tournament's event); the caller
        calls :meth:`committed` once that transaction has committed."""
        member, last_hash = self.encode(commit)
        if not await apply_on(conn, member):
            raise VersionConflict(commit.table_id)
        return last_hash

    async def commit_recording(self, commit: Commit, record: IdempotencyRecord) -> bytes:
        """:meth:`commit` of an opening with its ``record`` (kept under :data:`OPENINGS`)
        in the same transaction; :class:`VersionConflict` when a twin request recorded
        the same key first."""
        with collisions(commit.table_id):
            async with self.pool.connection() as conn, conn.transaction():
                last_hash = await self.commit_on(conn, commit)
                await self.record_answer(conn, OPENINGS, record, commit.at)
        self.committed(commit)
        return last_hash

    def committed(self, commit: Commit) -> None:
        """Count and announce a commit that has committed."""
        metrics.EVENTS_APPENDED.inc(len(commit.events))
        if self.notifier is not None:
            self.notifier.notify(commit.table_id, commit.expected_version + len(commit.events))

    async def timekeeper_alive_at(self) -> datetime | None:
        """When a timekeeper last said it was alive (its heartbeat); None if none ever ran."""
        row = await fetch_one(self.pool, "SELECT alive_at FROM timekeeper_heartbeat WHERE id = 1")
        return None if row is None else row[0]

    async def seeds(self, table_id: str, shuffles: Sequence[int]) -> dict[int, bytes | None]:
        rows = await fetch_all(
            self.pool,
            "SELECT shuffle, seed FROM shuffle_secrets WHERE table_id = %s AND shuffle = ANY(%s)",
            (table_id, list(shuffles)),
        )
        return {n: None if seed is None else bytes(seed) for n, seed in rows}

    async def seats_for_tokens(self, digests: Sequence[bytes]) -> dict[bytes, tuple[str, int, int]]:
        """The table, seat and epoch of each seat token known, by its digest (a token
        never changes: the table says whether its epoch is still the seat's)."""
        rows = await fetch_all(
            self.pool,
            "SELECT token_hash, table_id::text, seat, epoch FROM seat_tokens"
            " WHERE token_hash = ANY(%s)",
            (list(digests),),
            prepare=True,
        )
        return {bytes(row[0]): (row[1], int(row[2]), int(row[3])) for row in rows}

    async def due_tables(
        self, at: datetime, limit: int = 200, skip: Collection[str] = ()
    ) -> list[str]:
        """Tables with a clock that expired by ``at``, the most overdue first; ``skip``:
        tables this process may not decide (a newer rules engine's)."""
        return await fetch_column(
            self.pool,
            "SELECT id::text FROM tables WHERE deadline <= %s AND NOT id = ANY(%s::uuid[])"
            " ORDER BY deadline LIMIT %s",
            (at, list(skip), limit),
            prepare=True,
        )

    async def next_deadline(self, skip: Collection[str] = ()) -> datetime | None:
        row = await fetch_one(
            self.pool,
            "SELECT min(deadline) FROM tables WHERE NOT id = ANY(%s::uuid[])",
            (list(skip),),
            prepare=True,
        )
        return None if row is None else row[0]

    async def given_back(self, table_id: str, down_since: datetime) -> bool:
        """Whether the table's turns were already given back the time since
        ``down_since``: by a recovery that a second failure cut short before its leader
        could beat again, so that the next recovery finds the same gap."""
        row = await fetch_one(
            self.pool,
            "SELECT EXISTS (SELECT 1 FROM events WHERE table_id = %s"
            " AND command->>'type' = 'extend_clocks' AND command->>'down_since' = %s)",
            (table_id, down_since.isoformat()),
        )
        return bool(row and row[0])

    async def armed_after(self, moment: datetime) -> list[str]:
        """Tables whose running clocks expire after ``moment``: those an outage that
        began then may have charged."""
        return await fetch_column(
            self.pool,
            "SELECT id::text FROM tables WHERE deadline > %s ORDER BY deadline",
            (moment,),
        )

    async def idempotent_answer(
        self, table_id: str, actor: str, key: str
    ) -> IdempotencyRecord | None:
        row = await fetch_one(
            self.pool,
            "SELECT request_hash, status, body, etag FROM idempotency_keys"
            " WHERE table_id = %s AND actor = %s AND key = %s",
            (table_id, actor, key),
        )
        if row is None:
            return None
        return IdempotencyRecord(actor, key, bytes(row[0]), int(row[1]), bytes(row[2]), row[3])

    @staticmethod
    async def record_answer(
        conn: psycopg.AsyncConnection[Any], resource: str, record: IdempotencyRecord, at: datetime
    ) -> None:
        """Keep ``record`` for ``resource`` inside the transaction held on ``conn`` (a
        tournament's append; a table's commits keep theirs in ``append_commits``). A key
        recorded already is a unique violation: the caller's transaction collides."""
        await conn.execute(
            "INSERT INTO idempotency_keys (table_id, actor, key, request_hash, status, body,"
            " etag, created_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            (
                resource,
                record.actor,
                record.key,
                record.request_hash,
                record.status,
                record.body,
                record.etag,
                at,
            ),
        )

    # --- retention (service/workers/retention.py) ----------------------------------------

    async def forget_idempotency(self, before: datetime, limit: int) -> int:
        """Delete at most ``limit`` idempotency records written before ``before``, oldest
        first; how many went. One bounded statement: a sweep never holds many rows
        locked, and rows another sweeper holds are skipped, not waited for."""
        async with self.pool.connection() as conn:
            cur = await conn.execute(
                "DELETE FROM idempotency_keys WHERE (table_id, actor, key) IN"
                " (SELECT table_id, actor, key FROM idempotency_keys WHERE created_at < %s"
                " ORDER BY created_at LIMIT %s FOR UPDATE SKIP LOCKED)",
                (before, limit),
            )
            return int(cur.rowcount)

    async def waiting_since(
        self, before: datetime, after: tuple[datetime, str] | None, limit: int
    ) -> list[tuple[datetime, str]]:
        """Tables still waiting for players that were created before ``before``, oldest
        first: ``(created_at, id)`` pairs, a page of ``limit`` after the pair ``after``."""
        since, table = after or (_EARLIEST, _NO_TABLE)
        rows = await fetch_all(
            self.pool,
            "SELECT created_at, id::text AS table_id FROM tables"
            " WHERE status = 'waiting' AND created_at < %s"
            " AND (created_at, id) > (%s, %s::uuid)"
            " ORDER BY created_at, id LIMIT %s",
            (before, since, table, limit),
        )
        return [(row[0], row[1]) for row in rows]

    async def read_stream(
        self, table_id: str, after: int = 0, limit: int = 1000, *, replica: bool = False
    ) -> list[StoredEvent]:
        rows = await fetch_all(
            self.reads if replica else self.pool,
            "SELECT table_id::text, version, position, recorded_at, actor, data::text,"
            " command::text, hash FROM events"
            " WHERE table_id = %s AND version > %s ORDER BY version LIMIT %s",
            (table_id, after, limit),
        )
        return [_stored(row) for row in rows]

    async def checkpoint(
        self, name: str, conn: psycopg.AsyncConnection[Any] | None = None
    ) -> Checkpoint:
        if conn is None:
            async with self.pool.connection() as own:
                return await self.checkpoint(name, own)
        return (await self.checkpoints([name], conn))[0]

    async def checkpoints(
        self, names: Sequence[str], conn: psycopg.AsyncConnection[Any]
    ) -> list[Checkpoint]:
        """The checkpoints of ``names``, in their order, ``(0, 0)`` for a consumer that
        has none yet: one statement for a step that serves several consumers."""
        cur = await conn.execute(
            "SELECT name, tx, position FROM consumer_checkpoints WHERE name = ANY(%s)",
            (list(names),),
        )
        found = {row[0]: (int(row[1]), int(row[2])) for row in await cur.fetchall()}
        return [found.get(name, (0, 0)) for name in names]

    async def save_checkpoint(
        self, name: str, checkpoint: Checkpoint, conn: psycopg.AsyncConnection[Any] | None = None
    ) -> None:
        sql = (
            "INSERT INTO consumer_checkpoints (name, tx, position, updated_at)"
            " VALUES (%s, %s, %s, now()) ON CONFLICT (name) DO UPDATE"
            " SET tx = excluded.tx, position = excluded.position, updated_at = now()"
        )
        if conn is not None:
            await conn.execute(sql, (name, *checkpoint))
            return
        async with self.pool.connection() as own:
            await own.execute(sql, (name, *checkpoint))

    async def games_of(self, table_ids: Sequence[str]) -> dict[str, str]:
        rows = await fetch_all(
            self.pool,
            "SELECT id::text, game FROM tables WHERE id = ANY(%s::uuid[])",
            (list(table_ids),),
        )
        return {row[0]: row[1] for row in rows}

    async def read_all(
        self, after: Checkpoint = (0, 0), limit: int = 1000
    ) -> list[tuple[int, StoredEvent]]:
        """Events of every table in global order after checkpoint ``(tx, position)``.

        Never returns a row that a transaction still in flight could precede (see the
        module docstring); each row comes with its ``tx`` for the next checkpoint.
        """
        async with self.pool.connection() as conn:
            return await read_all_on(conn, after, limit)


# Ordered by the columns, not by a bare ``tx``: that names the ``tx::text::bigint`` output
# column, which no index holds, so every read sorted all the events after the checkpoint
# (a rebuild's batch on a store of 5 million events took seconds, not milliseconds).
READ_ALL = (
    "SELECT tx::text::bigint, table_id::text, version, position, recorded_at,"
    " actor, data::text, command::text, hash FROM events"
    " WHERE (tx, position) > (%s::text::xid8, %s)"
    " AND tx < pg_snapshot_xmin(pg_current_snapshot())"
    " ORDER BY events.tx, events.position LIMIT %s"
)


async def read_all_on(
    conn: psycopg.AsyncConnection[Any], after: Checkpoint, limit: int
) -> list[tuple[int, StoredEvent]]:
    """:meth:`EventStore.read_all` on a given connection (inside its transaction)."""
    cur = await conn.execute(READ_ALL, (str(after[0]), after[1], limit))
    return [(int(row[0]), _stored(row[1:])) for row in await cur.fetchall()]


def _stored(row: Sequence[Any]) -> StoredEvent:
    """``table_id, version, position, recorded_at``, then the :data:`Recorded` columns."""
    return StoredEvent(row[0], row[1], row[2], row[3], *recorded(row[4:8]))


# How a table's and a tournament's stored events end (service.write.tournament_store):
# actor, data, command, hash. A tuple, not a dict of keywords: the relay and the
# projector decode every event through it, and keywords cost about 0.7 µs an event
# over writing the fields out, the tuple about 0.25 µs.
Recorded = tuple[str, msgspec.Raw, msgspec.Raw | None, str]


def recorded(columns: Sequence[Any]) -> Recorded:
    """``actor, data, command, hash`` as selected: the event and its command stay the JSON
    stored, for whoever reads them to decode; the chain hash in hex."""
    actor, data, command, chained = columns
    raw_command = None if command is None else msgspec.Raw(command.encode())
    return actor, msgspec.Raw(data.encode()), raw_command, bytes(chained).hex()


@contextlib.contextmanager
def collisions(resource: str) -> Iterator[None]:
    """A unique violation inside is another writer's row got there first (an append at
    the same version, a twin request's idempotency record): :class:`VersionConflict`."""
    try:
        yield
    except psycopg.errors.UniqueViolation as exc:
        metrics.CONFLICTS.inc()
        raise VersionConflict(resource) from exc


def new_table_id() -> str:
    return str(uuid.uuid4())
