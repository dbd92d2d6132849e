"""Group commit: the appends of a process's concurrent commands travel together.

A command's append used to be one statement and one transaction of its own; under load
a process paid, for every command, a pool checkout, a statement's parameters dumped by
psycopg, a round trip and a WAL flush. Here each append is queued as a JSON document;
up to ``LANES`` flushes run at once, each taking whatever is queued (at most ``MOST``) and
applying it with one call of ``append_commits`` (migration 0011) in one transaction.
When the process is quiet a commit travels alone at once, so it waits for nothing; when
it is busy, the commits that queued while a flush was on the wire share the next one.

Each commit of a batch still stands or falls alone: the function applies each inside a
block of its own, so a stale expected version undoes only that commit. Should the whole
call fail with an error the server reported (the transaction is then known undone), each
commit of the batch is sent again alone, so that only the guilty one sees the error. An
error that leaves the outcome unknown (a lost connection) reaches every commit of the
batch, as it would have reached each alone.

A commit locks its table's row (and its table's keys), and two batches in flight at once
(two lanes, or two processes) may hold commits for the same tables: a batch applies its
commits in the order of their tables' ids, so that every batch takes those locks in the
same order and none waits for another that waits for it. A deadlock Postgres breaks all
the same (with a writer of another kind) undoes the call, and its commits go alone.

Flushes run as tasks of their own, not in a caller's: a request cancelled by its
deadline stops waiting for its answer but cannot cancel a batch that carries other
requests' commits.
"""

from __future__ import annotations

import asyncio
from typing import Any, NamedTuple

import psycopg
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from service import metrics
from service.pg import fetch_all
from service.read.senders import Senders

# Flushes in flight at once. Fewer lanes make larger batches, and a batch's statement,
# transaction and WAL flush are paid once for all its commits: at 16 and 64 tables, two
# lanes answered 5-9% more commands than four, with a lower p99 (README, Performance).
# One did as well as two, but then a single slow call would hold up every commit of the
# process.
LANES = 2
# Commits per call at most: each is a subtransaction, and a transaction with more than 64
# subtransactions makes every other session's snapshot checks slower (its subtransaction
# ids no longer fit in shared memory), so a batch stays well under that.
MOST = 32

_CALL = "SELECT append_commits(%s)"
# Errors after which the server has undone the whole call, each commit may be tried alone
# (a deadlock too: Postgres rolled the transaction back).
_UNDONE = (
    psycopg.errors.IntegrityError,
    psycopg.errors.DataError,
    psycopg.errors.ProgrammingError,
    psycopg.errors.DeadlockDetected,
    psycopg.errors.SerializationFailure,
)


class Waiting(NamedTuple):
    table: str  # the commit's table: batches lock tables in the order of their ids
    commit: bytes
    done: asyncio.Future[bool]


class GroupCommit:
    """Queues encoded commits (``append_commits``' members) and applies them in batches."""

    def __init__(self, pool: AsyncConnectionPool[Any]) -> None:
        self.pool = pool
        self.waiting: list[Waiting] = []
        self.flushes = Senders(self._drain, LANES, "cardroom-group-commit")

    async def apply(self, table: str, commit: bytes) -> bool:
        """Whether ``commit`` (one encoded member, for ``table``) was applied: False when
        stale."""
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self.waiting.append(Waiting(table, commit, done))
        self.flushes.wake()
        return await done

    async def _drain(self) -> None:
        while self.waiting:
            batch, self.waiting = self.waiting[:MOST], self.waiting[MOST:]
            batch.sort(key=lambda waiting: waiting.table)
            try:
                await self._send(batch)
            except BaseException as exc:  # a stop: no caller may wait for ever
                _fail(batch, exc)
                raise

    async def _send(self, batch: list[Waiting]) -> None:
        # The members are JSON already: sent as the bytes they are (a jsonb parameter
        # whose dumps is the identity), not decoded to text for psycopg to encode again.
        document = Jsonb(b"[" + b",".join(w.commit for w in batch) + b"]", dumps=_as_is)
        try:
            rows = await fetch_all(self.pool, _CALL, (document,), prepare=True)
        except _UNDONE as exc:
            if len(batch) == 1:
                _fail(batch, exc)
                return
            for alone in batch:
                await self._send([alone])
            return
        except psycopg.Error as exc:
            _fail(batch, exc)
            return
        metrics.COMMIT_BATCHES.observe(len(batch))
        applied = {row[0] for row in rows}
        for index, waiting in enumerate(batch):
            if not waiting.done.done():
                waiting.done.set_result(index in applied)


async def apply_on(conn: psycopg.AsyncConnection[Any], commit: bytes) -> bool:
    """Whether ``commit`` (one encoded member) was applied on ``conn``, alone, inside the
    caller's transaction there: False when stale."""
    document = Jsonb(b"[" + commit + b"]", dumps=_as_is)
    cur = await conn.execute(_CALL, (document,))
    return await cur.fetchone() is not None


def _fail(batch: list[Waiting], exc: BaseException) -> None:
    for waiting in batch:
        done = waiting.done
        if done.done():
            continue
        if isinstance(exc, Exception):
            done.set_exception(exc)
        else:
            done.cancel()


def _as_is(document: bytes) -> bytes:
    return document
