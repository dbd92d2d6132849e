"""Tournament streams in Postgres (DESIGN 14): appended and chained like a table's.

A tournament's stream is short (its entries, one event per round and per table) and is
read whole and folded on each use. The ``tournaments`` row carries the listing columns
and, kept out of every answer, the pairing seed and the key its seat tokens come from.
"""

from __future__ import annotations

import functools
import re
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

import msgspec
import psycopg

from domain.table import ENDED
from domain.tournament.events import TOURNAMENT_EVENTS, TournamentEvent
from domain.tournament.model import PAIRING_RULES
from domain.tournament.stream import Tournament, evolve, fold
from service.audit.chain import GENESIS, canonical_bytes, chain
from service.pg import fetch_all, fetch_column, fetch_one
from service.refusals import TournamentNotFound
from service.write.codec import event_data
from service.write.store import (
    CHANNEL,
    OPENINGS,
    TOURNAMENT_NOTICE,
    Checkpoint,
    EventStore,
    IdempotencyRecord,
    NewEvent,
    Stores,
    collisions,
    recorded,
)

_json = msgspec.json.Encoder()
decode_event = msgspec.json.Decoder(TOURNAMENT_EVENTS).decode


# More writing that must commit with a tournament's events, on the append's connection.
Also = Callable[[psycopg.AsyncConnection[Any]], Awaitable[object]]

CACHED = 1_000  # tournaments whose fold a process keeps
_KNOWN = re.compile(r"cardroom pairing-rules=([0-9]{1,4})")  # service.write.store.LISTENER_NAME
UNNAMED_RULES = 2  # what a process knew before its LISTEN connection named it (API 1.13)


class StoredTournamentEvent(msgspec.Struct, frozen=True):
    version: int
    recorded_at: datetime
    actor: str
    data: msgspec.Raw
    command: msgspec.Raw | None
    hash: str


def _stored(row: Sequence[Any]) -> StoredTournamentEvent:
    """``version, recorded_at``, then the columns of :data:`~service.write.store.Recorded`."""
    return StoredTournamentEvent(row[0], row[1], *recorded(row[2:6]))


class Secrets(msgspec.Struct, frozen=True):
    seed: bytes
    seat_key: bytes


class EntryToken(msgspec.Struct, frozen=True):
    """An entry's token, kept as its digest: ``member`` is the player of a partnership it
    belongs to (0 or 1, in the order the entry names them); None when it stands for the
    whole entry (a single entry, or a pair entered before each player had a token)."""

    digest: bytes
    entry: str
    member: int | None = None


class TournamentStore(Stores):
    # Its caches are made on first use, so the store is built as Stores is.
    @functools.cached_property
    def _folded(self) -> OrderedDict[str, tuple[Tournament, bytes]]:
        """The last fold of recent tournaments: committed versions only, so any process's
        later appends are simply the events after it."""
        return OrderedDict()

    @functools.cached_property
    def _secrets(self) -> dict[str, Secrets]:
        """What ``secrets`` read, by tournament."""
        return {}

    async def create(
        self,
        created: NewEvent,
        at: datetime,
        *,
        director_hash: bytes,
        secrets: Secrets,
        decks: list[list[str]] | None,
        first_dealer: int | None,
        idempotency: IdempotencyRecord | None = None,
    ) -> None:
        """The tournament's row and its first event, in one transaction, with the
        request's idempotency record when it has one (:class:`VersionConflict` when a
        twin request recorded the same key first)."""
        data = created.data
        row = (
            data["tournament"],
            data["name"],
            data["game"],
            _json.encode(data["options"]).decode(),
            None if decks is None else _json.encode(decks).decode(),
            first_dealer,
            None if data.get("clock") is None else _json.encode(data["clock"]).decode(),
            data["format"],
            director_hash,
            secrets.seed,
            secrets.seat_key,
        )
        with collisions(data["tournament"]):
            async with self.pool.connection() as conn, conn.transaction():
                await conn.execute(
                    "INSERT INTO tournaments (id, name, game, options, deals, first_dealer,"
                    " clock, format, status, director_hash, seed, seat_key) VALUES"
                    " (%s, %s, %s, %s::jsonb, %s::jsonb, %s, %s::jsonb, %s, 'open', %s, %s, %s)",
                    row,
                )
                await self._append(conn, data["tournament"], 0, GENESIS, [created], at, "open")
                if idempotency is not None:
                    await EventStore.record_answer(conn, OPENINGS, idempotency, at)
        self._announce(data["tournament"], 1)

    async def load(self, tournament_id: str) -> tuple[Tournament, bytes]:
        """The tournament as committed when this call began, and the chain hash of its
        last event.

        Postgres is asked every time, for the events after the version this process
        folded last (another process may have appended since): players poll ``/me`` and
        the standings, and a stream of thousands of entries is folded once, not per
        request."""
        cached = self._folded.get(tournament_id)
        after = cached[0].version if cached is not None else 0
        stored = await self.read_stream(tournament_id, after)
        if cached is not None and not stored:
            return cached
        if not stored:
            raise TournamentNotFound(f"no tournament {tournament_id}")
        events = [decode_event(s.data) for s in stored]
        if cached is None:
            tournament = fold(events)
        else:
            tournament = cached[0]
            for event in events:
                tournament = evolve(tournament, event)
        loaded = (tournament, bytes.fromhex(stored[-1].hash))
        self._folded[tournament_id] = loaded
        self._folded.move_to_end(tournament_id)
        if len(self._folded) > CACHED:
            self._folded.popitem(last=False)
        return loaded

    async def read_stream(
        self, tournament_id: str, after: int = 0, *, replica: bool = False
    ) -> list[StoredTournamentEvent]:
        """The tournament's events after version ``after``, in order; ``replica``: a
        replica may answer (never older than the primary)."""
        rows = await fetch_all(
            self.reads if replica else self.pool,
            "SELECT version, recorded_at, actor, data::text, command::text, hash"
            " FROM tournament_events WHERE tournament_id = %s AND version > %s"
            " ORDER BY version",
            (tournament_id, after),
        )
        return [_stored(row) for row in rows]

    async def read_all(
        self, after: Checkpoint = (0, 0), limit: int = 500
    ) -> list[tuple[Checkpoint, str, StoredTournamentEvent]]:
        """Every tournament's events in commit order after checkpoint ``(tx, position)``,
        below the horizon :meth:`EventStore.read_all` keeps (a late commit is never
        skipped); each with its checkpoint and its tournament."""
        rows = await fetch_all(
            self.pool,
            "SELECT version, recorded_at, actor, data::text, command::text, hash,"
            " tx::text::bigint, position, tournament_id::text FROM tournament_events"
            " WHERE (tx, position) > (%s::text::xid8, %s)"
            " AND tx < pg_snapshot_xmin(pg_current_snapshot())"
            # The columns, not the bigint output column ``tx`` (service.write.store.READ_ALL).
            " ORDER BY tournament_events.tx, tournament_events.position LIMIT %s",
            (str(after[0]), after[1], limit),
        )
        return [((int(row[6]), int(row[7])), row[8], _stored(row)) for row in rows]

    async def append(
        self,
        tournament: Tournament,
        previous_hash: bytes,
        events: Sequence[TournamentEvent],
        actor: str,
        command: dict[str, Any] | None,
        at: datetime,
        *,
        after: Tournament,
        round_tables: Sequence[tuple[str, int]] = (),
        entry_tokens: Sequence[EntryToken] = (),
        idempotency: IdempotencyRecord | None = None,
        also: Also | None = None,
    ) -> None:
        """Append ``events`` after ``tournament.version``; :class:`VersionConflict` if
        another append got there first (or another request with the same idempotency
        key). With them, in the same transaction: the tables a round opens, the digests
        of a new entry's tokens, the request's idempotency record, and what ``also``
        writes on the transaction's connection (a table opened by hand, with its
        ``table_opened``)."""
        new = [NewEvent(event_data(e), actor, command) for e in events]
        with collisions(tournament.id):
            async with self.pool.connection() as conn, conn.transaction():
                await self._append(
                    conn, tournament.id, tournament.version, previous_hash, new, at, after.status
                )
                if round_tables:
                    await conn.cursor().executemany(
                        "INSERT INTO round_tables (table_id, tournament_id, round)"
                        " VALUES (%s, %s, %s)",
                        [(table, tournament.id, number) for table, number in round_tables],
                    )
                if entry_tokens:
                    await conn.cursor().executemany(
                        "INSERT INTO entry_tokens (token_hash, tournament_id, entry, member)"
                        " VALUES (%s, %s, %s, %s)",
                        [(t.digest, tournament.id, t.entry, t.member) for t in entry_tokens],
                    )
                if also is not None:
                    await also(conn)
                if idempotency is not None:
                    await EventStore.record_answer(conn, tournament.id, idempotency, at)
        self._announce(tournament.id, tournament.version + len(events))

    async def _append(
        self,
        conn: psycopg.AsyncConnection[Any],
        tournament_id: str,
        expected: int,
        previous: bytes,
        events: Sequence[NewEvent],
        at: datetime,
        status: str,
    ) -> None:
        rows = []
        for offset, event in enumerate(events, start=1):
            version = expected + offset
            previous = chain(previous, canonical_bytes(tournament_id, version, at, event))
            command = None if event.command is None else _json.encode(event.command).decode()
            rows.append(
                (
                    tournament_id,
                    version,
                    event.data["type"],
                    _json.encode(event.data).decode(),
                    event.actor,
                    command,
                    at,
                    previous,
                )
            )
        await conn.cursor().executemany(
            "INSERT INTO tournament_events (tournament_id, version, type, data, actor, command,"
            " recorded_at, hash) VALUES (%s, %s, %s, %s::jsonb, %s, %s::jsonb, %s, %s)",
            rows,
        )
        new_version = expected + len(events)
        cur = await conn.execute(
            "UPDATE tournaments SET version = %s, last_hash = %s, status = %s"
            " WHERE id = %s AND version = %s",
            (new_version, previous, status, tournament_id, expected),
        )
        if cur.rowcount != 1:
            raise psycopg.errors.UniqueViolation("the tournament moved on")

    def _announce(self, tournament_id: str, version: int) -> None:
        """Tell the streams of every process, once the transaction has committed: a
        version announced before its commit (which may yet fail) would wake them to a
        version that is not there, over and over."""
        if self.notifier is not None:
            self.notifier.notify(f"{TOURNAMENT_NOTICE}{tournament_id}", version)

    async def pairing_rules_known(self) -> int:
        """The latest pairing rules every running process knows: a new tournament is
        created under them. While a rolling update runs, a process of the older release
        may pair the tournament's rounds; by rules it does not know it would pair them
        otherwise than the tournament's own, and ``cardroom verify`` would fail the event.

        Each process's LISTEN connection names the rules it knows (``LISTENER_NAME``); one
        of a release before they were named (1.13 and earlier) knows rules 2."""
        names = await fetch_column(
            self.pool,
            "SELECT application_name FROM pg_stat_activity"
            " WHERE datname = current_database() AND query = %s",
            (f"LISTEN {CHANNEL}",),
        )
        known = [_KNOWN.fullmatch(name) for name in names]
        return min([PAIRING_RULES, *(int(found[1]) if found else UNNAMED_RULES for found in known)])

    async def secrets(self, tournament_id: str) -> Secrets:
        """A tournament's seed and seat key; they never change, so a process keeps them
        (``/me`` is polled, and each answer derives a seat token from the key)."""
        known = self._secrets.get(tournament_id)
        if known is not None:
            return known
        row = await fetch_one(
            self.pool, "SELECT seed, seat_key FROM tournaments WHERE id = %s", (tournament_id,)
        )
        if row is None or row[0] is None:
            raise TournamentNotFound(f"no tournament {tournament_id}")
        found = Secrets(seed=bytes(row[0]), seat_key=bytes(row[1]))
        if len(self._secrets) >= CACHED:
            self._secrets.clear()
        self._secrets[tournament_id] = found
        return found

    async def duplicate_deals(
        self, tournament_id: str
    ) -> tuple[list[list[str]] | None, int | None]:
        """The operator's decks and first dealer for every table (duplicate play)."""
        row = await fetch_one(
            self.pool,
            "SELECT deals::text, first_dealer FROM tournaments WHERE id = %s",
            (tournament_id,),
        )
        if row is None or row[0] is None:
            return None, None if row is None else row[1]
        decks: list[list[str]] = msgspec.json.decode(row[0])
        return decks, row[1]

    async def token(self, digest: bytes) -> tuple[str, EntryToken | None] | None:
        """The tournament a director or entry token belongs to, and for an entry's token
        the entry (and player) it stands for."""
        row = await fetch_one(
            self.pool,
            "SELECT tournament_id::text, entry, member FROM entry_tokens WHERE token_hash = %s"
            " UNION ALL SELECT id::text, NULL, NULL FROM tournaments WHERE director_hash = %s",
            (digest, digest),
        )
        if row is None:
            return None
        return row[0], None if row[1] is None else EntryToken(digest, row[1], row[2])

    async def tables_to_open(self, limit: int = 100) -> list[tuple[str, str]]:
        """``(tournament, table)`` of paired tables not created yet."""
        rows = await fetch_all(
            self.pool,
            "SELECT r.tournament_id::text, r.table_id::text FROM round_tables r"
            " LEFT JOIN tables t ON t.id = r.table_id WHERE t.id IS NULL LIMIT %s",
            (limit,),
        )
        return [(row[0], row[1]) for row in rows]

    async def tables_to_score(
        self, limit: int = 100, passed_over: Sequence[str] = ()
    ) -> list[tuple[str, str]]:
        """``(tournament, table)`` of round tables that ended and are not recorded yet,
        those that ended first first, less the ``passed_over`` ones."""
        rows = await fetch_all(
            self.pool,
            "SELECT r.tournament_id::text, r.table_id::text FROM round_tables r"
            " JOIN tables t ON t.id = r.table_id"
            " WHERE NOT r.scored AND t.status = ANY(%s)"
            " AND NOT r.table_id = ANY(%s::uuid[]) ORDER BY t.updated_at LIMIT %s",
            (list(ENDED), list(passed_over), limit),
        )
        return [(row[0], row[1]) for row in rows]

    async def tables_of(self, tournament_id: str) -> list[str]:
        """Every table tagged with the tournament, in the order they were opened."""
        return await fetch_column(
            self.pool,
            "SELECT id::text FROM tables WHERE tournament = %s ORDER BY seq",
            (tournament_id,),
        )

    async def tables_in_play(self, tournament_id: str) -> int:
        """How many of the tables tagged with the tournament have not ended."""
        row = await fetch_one(
            self.pool,
            "SELECT count(*) FROM tables WHERE tournament = %s AND status <> ALL(%s)",
            (tournament_id, list(ENDED)),
        )
        return int(row[0]) if row else 0

    async def mark_scored(self, table_ids: Sequence[str]) -> None:
        async with self.pool.connection() as conn:
            await conn.execute(
                "UPDATE round_tables SET scored = true WHERE table_id = ANY(%s::uuid[])",
                (list(table_ids),),
            )

    async def to_pair(
        self, limit: int = 100, passed_over: Mapping[str, int] | None = None
    ) -> list[tuple[str, int]]:
        """``(tournament, version)`` of tournaments with ``auto_rounds`` playing whose
        every paired table is recorded, oldest first: they may be due their next round.
        ``passed_over`` (tournament: version) leaves out those still at that version."""
        skipped = [f"{t}:{v}" for t, v in (passed_over or {}).items()]
        rows = await fetch_all(
            self.pool,
            "SELECT t.id::text, t.version FROM tournaments t WHERE t.status = 'playing'"
            " AND NOT (t.id::text || ':' || t.version) = ANY(%s)"
            " AND EXISTS (SELECT 1 FROM tournament_events e WHERE e.tournament_id = t.id"
            " AND e.version = 1 AND (e.data->>'auto_rounds')::boolean)"
            " AND NOT EXISTS (SELECT 1 FROM round_tables r"
            " WHERE r.tournament_id = t.id AND NOT r.scored) ORDER BY t.seq LIMIT %s",
            (skipped, limit),
        )
        return [(row[0], row[1]) for row in rows]
