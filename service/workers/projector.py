"""The projection runner: async read models, exactly once, safe to kill (DESIGN 8).

Each projection keeps its own checkpoint. One step is one transaction for all of them:
take each projection's advisory lock (``pg_try_advisory_xact_lock``: a busy projection is
skipped, not waited for), read the events after the furthest-behind checkpoint in the
store's global order (once, not once a projection), fold into each projection's
documents what lies past its own checkpoint, write the documents and the new
checkpoints, commit.
Killed anywhere, a step either happened entirely or not at all. Several runners (one per
worker process) share the work safely; a rebuild holds the same lock at session level,
so live runners stand aside while it replays from position 0.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from contextlib import suppress
from typing import Any

import msgspec
import psycopg
from psycopg_pool import AsyncConnectionPool

from service.read.catalog import PROJECTIONS, Projection
from service.read.watch import TableWatcher
from service.workers.leader import while_leading
from service.write.codec import event_decoder
from service.write.store import EventStore, StoredEvent, read_all_on

log = logging.getLogger("cardroom.projector")
_encode = msgspec.json.Encoder().encode
PAUSE = 0.05  # seconds between steps that caught up
LEADER_LOCK = 0x636172642D70726F  # "card-pro"


class Projector:
    def __init__(self, pool: AsyncConnectionPool[Any], batch: int = 500) -> None:
        self.leading = asyncio.Event()
        self.pool = pool
        self.store = EventStore(pool)
        self.batch = batch

    async def step(self) -> int:
        """Fold the next batch into every projection whose lock is free, in one
        transaction; how many events the batch held."""
        wanted = list(PROJECTIONS.values())
        async with self.pool.connection() as conn, conn.transaction():
            cur = await conn.execute(
                "SELECT pg_try_advisory_xact_lock(lock) FROM unnest(%s::bigint[])"
                " WITH ORDINALITY AS l(lock, n) ORDER BY n",
                ([p.lock for p in wanted],),
            )
            free = [p for p, (locked,) in zip(wanted, await cur.fetchall(), strict=True) if locked]
            return await self._fold_next(conn, free) if free else 0

    async def _fold_next(
        self, conn: psycopg.AsyncConnection[Any], projections: list[Projection]
    ) -> int:
        """Inside the caller's transaction, which holds the projections' locks: the next
        batch after the checkpoint furthest behind, read once for all of them (they are
        nearly always at the same one); each folds what lies past its own checkpoint and
        moves it. How many events the batch held."""
        checkpoints = await self.store.checkpoints([p.checkpoint_name for p in projections], conn)
        batch = await read_all_on(conn, min(checkpoints), self.batch)
        if not batch:
            return 0
        last = (batch[-1][0], batch[-1][1].position)
        for projection, checkpoint in zip(projections, checkpoints, strict=True):
            if checkpoint >= last:
                continue  # ahead of this batch (a rebuild finished first): nothing new
            events = [stored for tx, stored in batch if (tx, stored.position) > checkpoint]
            await self._apply(conn, projection, events)
            await self.store.save_checkpoint(projection.checkpoint_name, last, conn)
        return len(batch)

    async def _apply(
        self, conn: psycopg.AsyncConnection[Any], projection: Projection, batch: list[StoredEvent]
    ) -> None:
        keys = await self._keys(conn, projection, batch)
        docs = await self._load(conn, projection, {k for k in keys if k is not None})
        decode = event_decoder().decode
        for stored, key in zip(batch, keys, strict=True):
            if key is None:
                continue
            try:
                event = decode(stored.data)
            except msgspec.ValidationError:
                log.error("skipping unreadable event %s v%s", stored.table_id, stored.version)
                continue
            docs[key] = projection.fold(docs.get(key), key, stored, event)
        rows = [
            (projection.name, key, _encode(doc).decode(), doc.position)
            for key, doc in docs.items()
            if doc is not None
        ]
        if rows:
            await conn.cursor().executemany(
                "INSERT INTO read_models (projection, key, doc, position)"
                " VALUES (%s, %s, %s::jsonb, %s) ON CONFLICT (projection, key)"
                " DO UPDATE SET doc = excluded.doc, position = excluded.position",
                rows,
            )

    async def _keys(
        self, conn: psycopg.AsyncConnection[Any], projection: Projection, batch: list[StoredEvent]
    ) -> list[str | None]:
        if not projection.by_tournament:
            return [stored.table_id for stored in batch]
        cur = await conn.execute(
            "SELECT id::text, tournament FROM tables WHERE id = ANY(%s::uuid[])",
            (sorted({s.table_id for s in batch}),),
        )
        tournaments = {row[0]: row[1] for row in await cur.fetchall()}
        return [tournaments.get(stored.table_id) for stored in batch]

    async def _load(
        self, conn: psycopg.AsyncConnection[Any], projection: Projection, keys: set[str]
    ) -> dict[str, Any]:
        if not keys:
            return {}
        cur = await conn.execute(
            "SELECT key, doc::text FROM read_models WHERE projection = %s AND key = ANY(%s)",
            (projection.name, sorted(keys)),
        )
        return {
            key: msgspec.json.decode(doc, type=projection.doc_type)
            for key, doc in await cur.fetchall()
        }

    async def run(self, stop: asyncio.Event, watcher: TableWatcher | None = None) -> None:
        """Keep every projection caught up while this process leads, until ``stop``.

        One projector works at a time (the others stand by), so that several worker
        processes do not all wake and contend for every batch.
        """
        conninfo = self.pool.conninfo
        assert isinstance(conninfo, str), "the projector's pool is built from a URL"
        await while_leading(
            conninfo,
            LEADER_LOCK,
            stop,
            self.leading,
            lambda: self._project(stop, watcher),
            "projector",
        )

    async def _project(self, stop: asyncio.Event, watcher: TableWatcher | None) -> None:
        while not stop.is_set():
            seen = watcher.delivered if watcher is not None else 0
            try:
                done = await self.step()
            except (psycopg.Error, OSError) as exc:
                log.warning("projector lost Postgres (%s); retrying", exc)
                done = 0
                await asyncio.sleep(1.0)
            if done >= self.batch:
                continue  # a backlog: the next batch at once
            if not done and watcher is not None:
                await watcher.wait_for_any(seen, timeout=0.5)
            # Read models are asynchronous: a pause after every batch that caught up, busy
            # or not, lets a moment's commits gather into the next one, so a busy store
            # costs a step per moment rather than one per command.
            with suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=PAUSE)

    async def rebuild(
        self, projection: Projection, progress: Callable[[int, int], None] | None = None
    ) -> tuple[int, float]:
        """Replay ``projection`` from position 0; (events folded, seconds taken)."""
        async with self.pool.connection() as guard:
            # Session lock: live runners' try-locks fail until the rebuild is done.
            await guard.execute("SELECT pg_advisory_lock(%s)", (projection.lock,))
            try:
                total = await self._count_events(guard)
                started = time.monotonic()
                async with guard.transaction():
                    await guard.execute(
                        "DELETE FROM read_models WHERE projection = %s", (projection.name,)
                    )
                    await self.store.save_checkpoint(projection.checkpoint_name, (0, 0), guard)
                folded = 0
                while True:
                    async with guard.transaction():
                        count = await self._fold_next(guard, [projection])
                    if not count:
                        break
                    folded += count
                    if progress is not None:
                        progress(folded, total)
                return folded, time.monotonic() - started
            finally:
                await guard.execute("SELECT pg_advisory_unlock(%s)", (projection.lock,))

    @staticmethod
    async def _count_events(conn: psycopg.AsyncConnection[Any]) -> int:
        cur = await conn.execute("SELECT count(*) FROM events")
        row = await cur.fetchone()
        return int(row[0]) if row else 0
