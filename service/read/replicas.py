"""Reads from Postgres streaming replicas, never older than the primary (DESIGN 13).

The promise readers already have — a read never shows a version older than one any
process has acknowledged — is kept with replicas by comparing WAL positions, not by
trusting a lag figure:

1. After a read begins, the primary is asked for its WAL insert position
   (``pg_current_wal_insert_lsn()``, taken back to the end of the last record when it
   points just past a page header: :func:`record_end`): every commit acknowledged to
   anyone before that moment has its commit record below it. The question costs no
   table access, and the reads of a process share it exactly as they share snapshot
   loads (service.read.loads): a read waits for a question *sent after it began*, never
   one already in flight.
2. The replica is used only when its replay position (``pg_last_wal_replay_lsn()``) has
   reached that position. A snapshot a standby takes after replaying a commit record
   sees that transaction, so the read's statement — sent after the position was
   checked — sees every acknowledged commit. Replay positions only grow, so the highest
   one seen is remembered and the replica is asked again only when the primary has
   moved past it.
3. Otherwise (the replica is behind, down, frozen, or fails mid-read) the read runs on
   the primary. Reads are only reads, so running one again elsewhere is safe.

A request naming a version (``If-None-Match``, ``after``, ``Last-Event-ID``) therefore
never gets older state from a replica: that version was acknowledged before the request
was sent. And a client alternating between API processes sees versions only move
forward, whichever replica each process picks.

A checker asks each replica every ``CHECK_SECONDS`` for its replay position and
estimates its lag as the time since the primary was first seen past that position; a
replica that does not answer, is not a standby, or lags more than the bound
(``CARDROOM_REPLICA_MAX_LAG_SECONDS``) is skipped until it is back within it. ``/readyz``
reports each replica; only the primary decides readiness.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable, Coroutine
from contextlib import suppress
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from service import metrics
from service.pg import T, Work, fetch_one, request_pool
from service.read.senders import Senders

log = logging.getLogger("cardroom.replicas")
CHECK_SECONDS = 0.5
MAX_SAMPLES = 7_200  # an hour of the primary's positions, one a check
TRY_SECONDS = 0.5  # a replica that has not answered a read by then is given up for it
Clock = Callable[[], float]


def lsn(text: str) -> int:
    """A WAL position (``16/B374D848``) as a number."""
    high, _, low = text.partition("/")
    return (int(high, 16) << 32) + int(low, 16)


def replica_name(url: str) -> str:
    """``host:port/database`` of a replica's URL: what logs and ``/readyz`` show (never
    the password)."""
    parts = conninfo_to_dict(url)
    host, port = parts.get("host") or "localhost", parts.get("port") or 5432
    return f"{host}:{port}/{parts.get('dbname') or parts.get('user') or 'postgres'}"


class Replica:
    """One replica's pool and what is known of it."""

    def __init__(self, name: str, pool: AsyncConnectionPool[Any]) -> None:
        self.name = name
        self.pool = pool
        self.replayed = 0  # the highest replay position seen: replay never goes back
        self.usable = False  # until the first check finds it a current standby
        self.status = "error: not checked yet"

    def failed(self, error: BaseException) -> None:
        if self.usable:
            log.warning("replica %s skipped: %s", self.name, type(error).__name__)
        self.usable = False
        self.status = f"error: {type(error).__name__}"


# The primary's insert position, with the sizes of a WAL page and segment (initdb fixes
# both, so the question stays one round trip without a table read).
INSERTED = (
    "SELECT pg_current_wal_insert_lsn()::text, current_setting('wal_block_size')::int,"
    " pg_size_bytes(current_setting('wal_segment_size'))"
)
SHORT_PAGE_HEADER = 24  # what heads each WAL page (XLogPageHeaderData, 8-byte aligned)
LONG_PAGE_HEADER = 40  # what heads a segment's first page (XLogLongPageHeaderData)


def record_end(inserted: int, *, page: int, segment: int) -> int:
    """The end of the last WAL record, from the insert position.

    When the last record ended on a page boundary (a WAL switch ends its segment so:
    ``archive_timeout``, ``pg_switch_wal()``), the insert position points past the next
    page's header, where no record is yet. A standby's replay position stops at the
    boundary, so until the primary writes again a caught-up replica would be judged
    behind, reported lagging ever more, and not read from."""
    if inserted % segment == LONG_PAGE_HEADER:
        return inserted - LONG_PAGE_HEADER
    if inserted % page == SHORT_PAGE_HEADER:
        return inserted - SHORT_PAGE_HEADER
    return inserted


class PrimaryPosition:
    """The primary's WAL insert position, as of a question sent after each caller asked.

    At most ``in_flight`` questions at a time; callers that find them all busy wait for
    the next free one and are answered together (as service.read.loads batches loads)."""

    def __init__(self, pool: AsyncConnectionPool[Any], in_flight: int = 4) -> None:
        self.pool = pool
        self._waiting: list[asyncio.Future[int]] = []
        self._senders = Senders(self._send, in_flight, "cardroom-wal-position")

    async def current(self) -> int:
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._waiting.append(future)
        self._senders.wake()
        return await future

    async def _send(self) -> None:
        while self._waiting:
            batch, self._waiting = self._waiting, []
            try:
                row = await fetch_one(self.pool, INSERTED, prepare=True)
                assert row is not None
                position = record_end(lsn(row[0]), page=row[1], segment=row[2])
            except Exception as exc:  # every waiter of this question gets the failure
                for future in batch:
                    if not future.done():
                        future.set_exception(exc)
                continue
            except BaseException:
                for future in batch:
                    future.cancel()
                raise
            for future in batch:
                if not future.done():  # its read may have been cancelled
                    future.set_result(position)


class Replicas:
    """The read router: :meth:`run` runs a read on a replica that has replayed
    everything the primary had when the read began, else on the primary."""

    def __init__(
        self,
        primary: AsyncConnectionPool[Any],
        replicas: list[Replica],
        *,
        max_lag_seconds: float = 5.0,
        clock: Clock = time.monotonic,
    ) -> None:
        self.primary = primary
        self.replicas = replicas
        self.position = PrimaryPosition(primary)
        self.max_lag_seconds = max_lag_seconds
        self.clock = clock  # injectable: tests judge lag without waiting for it
        self._samples: deque[tuple[float, int]] = deque()  # (when, primary position)
        self._turn = 0

    @classmethod
    def connect(
        cls,
        primary: AsyncConnectionPool[Any],
        urls: tuple[str, ...],
        *,
        max_size: int,
        max_lag_seconds: float,
    ) -> Replicas:
        pools = [
            Replica(
                replica_name(url),
                request_pool(
                    url,
                    1,
                    max_size,
                    TRY_SECONDS,
                    configure=_read_committed,
                    name=f"replica-{replica_name(url)}",
                ),
            )
            for url in urls
        ]
        return cls(primary, pools, max_lag_seconds=max_lag_seconds)

    async def open(self) -> None:
        """Opens the pools without waiting for a replica (a down one is skipped), then
        checks them once."""
        for replica in self.replicas:
            await replica.pool.open(wait=False)
        with suppress(Exception):
            await self.check()

    async def close(self) -> None:
        for replica in self.replicas:
            await replica.pool.close()

    # --- reading --------------------------------------------------------------------

    def _choose(self) -> Replica | None:
        usable = [r for r in self.replicas if r.usable]
        if not usable:
            return None
        self._turn = (self._turn + 1) % len(usable)
        return usable[self._turn]

    async def run(self, work: Work[T]) -> T:
        replica = self._choose()
        if replica is None:
            metrics.READS.labels("primary").inc()
            return await self._on_primary(work)
        # Both questions go out at once, so a read waits for the slower of the two
        # round trips, not for both: the primary's position, and on the replica its
        # replay position followed, in the same round trip, by the read itself.
        position = asyncio.ensure_future(self.position.current())
        try:
            replayed, answer = await self._on_replica(replica, work)
        except (psycopg.Error, PoolTimeout, TimeoutError, NotStandby) as exc:
            replica.failed(exc)
            await position  # the primary's failure is the read's
            metrics.READS.labels("primary-replica-failed").inc()
            return await self._on_primary(work)
        except BaseException:
            position.cancel()
            raise
        replica.replayed = max(replica.replayed, replayed)
        if replayed >= await position:
            metrics.READS.labels("replica").inc()
            return answer
        metrics.READS.labels("primary-replica-behind").inc()
        return await self._on_primary(work)

    async def _on_primary(self, work: Work[T]) -> T:
        async with self.primary.connection() as conn:
            return await work(conn)

    async def _on_replica(self, replica: Replica, work: Work[T]) -> tuple[int, T]:
        """The replica's replay position, then ``work``'s answer from a snapshot taken
        after it (the statements are pipelined: one round trip)."""

        async def attempt() -> tuple[int, T]:
            # Read committed: each statement takes its own snapshot when it starts, so
            # the read's is taken after the replay position was read.
            async with replica.pool.connection() as conn, conn.pipeline():
                replaying = await conn.execute(REPLAYED, prepare=True)
                answer = await work(conn)
                row = await replaying.fetchone()
            return _position(row), answer

        return await _within(attempt(), TRY_SECONDS)

    # --- checking -------------------------------------------------------------------

    async def run_checks(self, stop: asyncio.Event) -> None:
        """Checks every replica every ``CHECK_SECONDS`` until ``stop`` is set."""
        while not stop.is_set():
            try:
                await self.check()
            except Exception as exc:  # the primary is down: reads fail there anyway
                log.debug("replica check skipped: %s", exc)
            with suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), CHECK_SECONDS)

    async def check(self) -> None:
        now = self.clock()
        self.observe(now, await self.position.current())
        await asyncio.gather(*(self._check(replica, now) for replica in self.replicas))

    def observe(self, now: float, primary: int) -> None:
        """Remembers that the primary was at ``primary`` at ``now``."""
        if not self._samples or self._samples[-1][1] != primary:
            self._samples.append((now, primary))
        # Kept: the samples within twice the bound, the newest one older than it, and
        # the first one past the replay position of the replica furthest behind, which
        # its lag is measured from: forgotten, its lag would read as twice the bound at
        # most, however far behind it is. At most MAX_SAMPLES, which bounds the memory a
        # replica that stays down holds (its lag is then "at least").
        horizon = now - 2 * self.max_lag_seconds
        needed = min((r.replayed for r in self.replicas), default=primary)
        while len(self._samples) > 1 and (
            len(self._samples) > MAX_SAMPLES
            or (self._samples[1][0] <= horizon and self._samples[1][1] <= needed)
        ):
            self._samples.popleft()

    def lag(self, now: float, replayed: int) -> float:
        """Seconds since the primary was first seen past ``replayed`` (0: caught up)."""
        for when, position in self._samples:
            if position > replayed:
                return max(0.0, now - when)
        return 0.0

    def _lag_said(self, behind: float, replayed: int) -> str:
        """The lag in words: "at least" when the primary was past ``replayed`` in the
        oldest sample kept (the replica was behind before this process began, or
        further behind than the samples reach)."""
        at_least = bool(self._samples) and self._samples[0][1] > replayed
        return f"{'at least ' if at_least else ''}{behind:.1f} s behind the primary"

    async def _check(self, replica: Replica, now: float) -> None:
        async def ask() -> int:
            async with replica.pool.connection() as conn:
                return await _replayed(conn)

        was_usable = replica.usable
        try:
            replayed = await _within(ask(), TRY_SECONDS)
        except (psycopg.Error, PoolTimeout, TimeoutError) as exc:
            replica.failed(exc)
            return
        except NotStandby:
            replica.usable = False
            replica.status = "error: not a standby (pg_is_in_recovery() is false)"
            return
        replica.replayed = max(replica.replayed, replayed)
        replica.usable, replica.status = self.judge(now, replica.replayed)
        if was_usable and not replica.usable:
            log.warning("replica %s skipped: %s", replica.name, replica.status)

    def judge(self, now: float, replayed: int) -> tuple[bool, str]:
        """Whether a replica that replayed up to ``replayed`` may be read from, and what
        ``/readyz`` says of it. One behind the first position this process saw has been
        behind since before it began, by how long nobody here knows: it is not used
        until it catches up (a healthy one, at the next check), rather than taken for
        current because no sample dates its lag yet."""
        behind = self.lag(now, replayed)
        unknown = bool(self._samples) and self._samples[0][1] > replayed
        if behind > self.max_lag_seconds or unknown:
            return False, f"lagging: {self._lag_said(behind, replayed)}"
        return True, "ok"

    def report(self) -> dict[str, str]:
        """What ``/readyz`` says of each replica."""
        return {f"replica {r.name}": r.status for r in self.replicas}


class NotStandby(Exception):
    """The server named as a replica is not replaying anyone's WAL."""


# NULL unless the server is a standby now: a promoted one still answers the position it
# last replayed, and would be read from as if it followed the primary.
REPLAYED = "SELECT CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn()::text END"


async def _read_committed(conn: psycopg.AsyncConnection[Any]) -> None:
    """A replica read and the replay position before it share an implicit transaction
    (one pipeline): the read's own snapshot must be taken when it starts, which only
    read committed promises, whatever the server's default isolation is."""
    await conn.execute("SET default_transaction_isolation = 'read committed'")


async def _within(attempt: Coroutine[Any, Any, T], seconds: float) -> T:
    """``attempt``'s answer, or TimeoutError after ``seconds`` without waiting for it to
    wind down: cancelling a statement to a frozen server waits on that server (the
    connection tries to finish its exchange), so the attempt is left to end in the
    background, where the connection's keepalives end it at the latest."""
    task = asyncio.ensure_future(attempt)
    try:
        done, _ = await asyncio.wait({task}, timeout=seconds)
    except BaseException:
        task.cancel()
        raise
    if not done:
        task.cancel()
        _winding_down.add(task)  # held until it ends: the loop keeps only weak references
        task.add_done_callback(_quietly)
        raise TimeoutError
    return task.result()


_winding_down: set[asyncio.Future[Any]] = set()


def _quietly(task: asyncio.Future[Any]) -> None:
    _winding_down.discard(task)
    if not task.cancelled():
        task.exception()  # retrieved: the read has gone elsewhere


async def _replayed(conn: psycopg.AsyncConnection[Any]) -> int:
    cur = await conn.execute(REPLAYED, prepare=True)
    return _position(await cur.fetchone())


def _position(row: tuple[Any, ...] | None) -> int:
    if row is None or row[0] is None:
        raise NotStandby
    return lsn(row[0])
