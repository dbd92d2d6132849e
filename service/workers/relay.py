"""The relay: committed events, in global order, to Redis Streams (DESIGN 7).

One relay publishes at a time: it leads while it holds a Postgres advisory lock on a
connection of its own, so a crashed leader's lock goes with its connection. It tails
the store from a checkpoint kept in Postgres, publishes a batch, then moves the
checkpoint: a relay killed between the two republishes the batch on restart (the
per-table stream refuses the repeats by entry id; the global stream may repeat them,
which its readers dedupe by table and version). Under load the checkpoint is saved every
``SAVE_EVERY`` rather than after every batch, so such a restart republishes up to that
much. With Redis down it keeps the checkpoint
where it is and retries with backoff; nothing is skipped.

Tournament events (DESIGN 14) are relayed the same way from their own table, with a
checkpoint of their own, to one stream per tournament (service.workers.streams).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import msgspec
from redis.asyncio.client import Pipeline
from redis.asyncio.cluster import ClusterPipeline, RedisCluster
from redis.exceptions import RedisError, ResponseError

from domain import table as tables
from domain.registry import GAMES
from service.read.records import EventRecord, TournamentEventRecord
from service.read.watch import TableWatcher
from service.settings import Settings
from service.workers.clients import AnyRedis, is_cluster, named_client
from service.workers.leader import pause, while_leading
from service.workers.streams import (
    GLOBAL_STREAM_LENGTH,
    STREAM_IDLE_SECONDS,
    TABLE_STREAM_LENGTH,
    entry_id,
    global_stream,
    table_stream,
    tournament_stream,
)
from service.write.codec import event_decoder
from service.write.restored import RELAY as CHECKPOINT
from service.write.restored import TOURNAMENT_RELAY as TOURNAMENT_CHECKPOINT
from service.write.store import Checkpoint, EventStore, StoredEvent
from service.write.tournament_store import StoredTournamentEvent, TournamentStore, decode_event

log = logging.getLogger("cardroom.relay")
LEADER_LOCK = 0x636172642D72656C  # "card-rel"
COALESCE = 0.003  # seconds
# A busy relay saves its checkpoint at most this often (seconds), and always before it
# waits idle: a relay killed in between republishes that much, which the streams allow.
SAVE_EVERY = 0.1
# Tournament events are read after a tournament's commit is announced, and at least this
# often (seconds): they are rare, and a read for none was one round trip every step.
TOURNAMENTS_EVERY = 1.0
# The games of tables met, kept to look each table up once: past this many, forgotten
# all at once (a lookup more per table afterwards) rather than kept for every table
# the leader ever relayed.
GAMES_KEPT = 100_000
_encode = msgspec.json.Encoder().encode
_pack = msgspec.msgpack.Encoder().encode

# Events in one call: KEYS[1] is the global stream, KEYS[i + 1] the table stream of
# entry i; ARGV[1] the entries (msgpack arrays of _Entry's fields), ARGV[2] and ARGV[3]
# the table and global streams' approximate lengths, ARGV[4] the seconds a table stream
# is kept after its last entry. A table stream refusing an entry's id already has it (a
# republished batch); any other error stops the call, as it would stop the pipeline's
# caller. redis-py packs every argument of every command in Python,
# so the pipeline of two XADDs an event was most of the relay's CPU; one call with the
# entries packed by msgspec costs a fraction of it (README, Performance).
PUBLISH = """
local entries = cmsgpack.unpack(ARGV[1])
for i, e in ipairs(entries) do
  local fields = {'table', e[1], 'version', e[2], 'position', e[3], 'type', e[4],
                  'data', e[5], 'whole', e[6]}
  -- The entry id is the version's, as streams.entry_id writes it (e[2] is text).
  local added = redis.pcall('XADD', KEYS[i + 1], 'MAXLEN', '~', ARGV[2], e[2] .. '-0',
                            unpack(fields))
  if type(added) == 'table' and added.err
      and not string.find(added.err, 'equal or smaller', 1, true) then
    return redis.error_reply(added.err)
  end
  redis.call('EXPIRE', KEYS[i + 1], ARGV[4])
  redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[3], '*', unpack(fields))
end
return #entries
"""


# Redis runs a script whole, holding every other client meanwhile: a backlog's batch of
# 500 events took it 8-22 ms in one call. Calls of this many take about an eighth of that.
PER_CALL = 64


class _Entry(msgspec.Struct, array_like=True):
    """One event's stream entry: its fields in order (an array in the script's batch),
    as the text Redis stores. Numbers go as text too: Lua's are doubles, which would
    write a large version or position inexactly."""

    table: str
    version: str
    position: str
    type: str
    data: str  # the EventRecord as JSON (text: the script's msgpack has no bytes)
    whole: str


def is_repeat(error: Exception) -> bool:
    """Redis refused an entry id it already has: the event was published before."""
    return isinstance(error, ResponseError) and "equal or smaller" in str(error)


class PacedCheckpoint:
    """The relay's position in the store, saved at most every ``SAVE_EVERY`` seconds
    while it moves (:meth:`advance`), and whenever asked (:meth:`save`) if it moved."""

    def __init__(self, store: EventStore, position: Checkpoint) -> None:
        self.store = store
        self.position = self.saved = position
        self.saved_at = time.monotonic()

    async def advance(self, position: Checkpoint) -> None:
        self.position = position
        if time.monotonic() - self.saved_at >= SAVE_EVERY:
            await self.save()

    async def save(self) -> None:
        if self.position != self.saved:
            await self.store.save_checkpoint(CHECKPOINT, self.position)
            self.saved, self.saved_at = self.position, time.monotonic()


class Relay:
    def __init__(
        self,
        store: EventStore,
        redis: AnyRedis,
        prefix: str,
        conninfo: str,
        watcher: TableWatcher | None = None,
        batch: int = 500,
    ) -> None:
        self.store = store
        self.tournaments = TournamentStore(store.pool)
        self.redis = redis
        self.prefix = prefix
        self.conninfo = conninfo
        self.watcher = watcher
        self.batch = batch
        self.games: dict[str, str] = {}
        self.leading = asyncio.Event()
        self.published = 0
        # A script may name keys of one slot only, so a cluster keeps the pipeline.
        self._publish_script = (
            None if isinstance(redis, RedisCluster) else redis.register_script(PUBLISH)
        )

    async def run(self, stop: asyncio.Event) -> None:
        """Lead when possible, relay while leading, until ``stop`` is set."""
        await while_leading(
            self.conninfo,
            LEADER_LOCK,
            stop,
            self.leading,
            lambda: self._relay(stop),
            "relay",
        )

    async def _relay(self, stop: asyncio.Event) -> None:
        checkpoint = PacedCheckpoint(self.store, await self.store.checkpoint(CHECKPOINT))
        tournaments = await self.store.checkpoint(TOURNAMENT_CHECKPOINT)
        looked_at = time.monotonic()
        heard = -1  # tournament notices when tournament events were last read: none yet
        failures = 0
        while not stop.is_set():
            seen = self.watcher.delivered if self.watcher is not None else 0
            batch = await self.store.read_all(checkpoint.position, limit=self.batch)
            more: list[tuple[Checkpoint, str, StoredTournamentEvent]] = []
            if self._tournaments_due(heard, looked_at):
                heard, looked_at = self._tournament_notices(), time.monotonic()
                more = await self.tournaments.read_all(tournaments, limit=self.batch)
                if len(more) == self.batch:
                    heard = -1  # a backlog: read on at the next step
            if not batch and not more:
                await checkpoint.save()  # idle: what was published is saved before waiting
                await self._idle(stop, seen)
                continue
            try:
                if batch:
                    await self.publish([event for _, event in batch])
                    await checkpoint.advance((batch[-1][0], batch[-1][1].position))
                if more:
                    await self.publish_tournaments(more)
                    tournaments = more[-1][0]
                    await self.store.save_checkpoint(TOURNAMENT_CHECKPOINT, tournaments)
            except RedisError as exc:
                failures += 1
                delay = min(5.0, 0.05 * 2**failures)
                log.warning("Redis unavailable (%s); retrying in %.2fs", exc, delay)
                await pause(stop, delay)
                continue
            failures = 0
            if len(batch) < self.batch and len(more) < self.batch:
                # Caught up: as after an idle look, a moment gathers the next commits of a
                # busy store into one batch rather than a step per command.
                await asyncio.sleep(COALESCE)
        await checkpoint.save()  # stopped: a successor starts where this one ended

    def _tournament_notices(self) -> int:
        return self.watcher.tournaments_delivered if self.watcher is not None else 0

    def _tournaments_due(self, heard: int, looked_at: float) -> bool:
        """Whether to read tournament events at this step: a tournament's commit was
        announced since the last read, or ``TOURNAMENTS_EVERY`` passed (a notice lost
        with a dropped LISTEN connection), or there is no watcher to announce them."""
        return (
            self.watcher is None
            or self._tournament_notices() != heard
            or time.monotonic() - looked_at >= TOURNAMENTS_EVERY
        )

    async def _idle(self, stop: asyncio.Event, seen: int) -> None:
        if self.watcher is not None:
            await self.watcher.wait_for_any(seen, timeout=0.5)
            # A moment more gathers the commits of a busy instant into one batch.
            await asyncio.sleep(COALESCE)
        else:
            await pause(stop, 0.05)

    async def publish(self, batch: list[StoredEvent]) -> None:
        unknown = {e.table_id for e in batch} - self.games.keys()
        if unknown:
            if len(self.games) + len(unknown) > GAMES_KEPT:
                self.games.clear()
                unknown = {e.table_id for e in batch}
            self.games.update(await self.store.games_of(sorted(unknown)))
        decode = event_decoder().decode
        entries: list[_Entry] = []
        for stored in batch:
            game = GAMES.get(self.games.get(stored.table_id, ""))
            try:
                event = decode(stored.data)
            except msgspec.ValidationError:
                event = None
            if game is None or event is None:
                # Not an event of a known table: what is public in it cannot be known,
                # so nothing is published (and the relay does not stall on it).
                log.error("skipping unreadable event %s v%s", stored.table_id, stored.version)
                continue
            public = tables.redact(game, event, "spectator")
            record = EventRecord(stored.version, stored.recorded_at, stored.actor, public)
            entries.append(
                _Entry(
                    table=stored.table_id,
                    version=str(stored.version),
                    position=str(stored.position),
                    type=str(type(public).__struct_config__.tag),
                    data=_encode(record).decode(),
                    # Nothing hidden from spectators: every audience sees this very
                    # record, so a seat's stream need not read it from Postgres
                    # (service.http.live).
                    whole="1" if public == event else "0",
                )
            )
        if entries:
            await self._send(entries)
        self.published += len(batch)

    async def _send(self, entries: list[_Entry]) -> None:
        """Each entry to its table's stream, under its version's id, and to the global
        stream: in script calls of ``PER_CALL`` entries on a single Redis, as one
        pipeline on a cluster."""
        streams = [table_stream(self.prefix, e.table) for e in entries]
        if self._publish_script is not None:
            for start in range(0, len(entries), PER_CALL):
                part = slice(start, start + PER_CALL)
                keys = [global_stream(self.prefix), *streams[part]]
                args: list[bytes | int] = [
                    _pack(entries[part]),
                    TABLE_STREAM_LENGTH,
                    GLOBAL_STREAM_LENGTH,
                    STREAM_IDLE_SECONDS,
                ]
                await self._publish_script(keys=keys, args=args)
            return
        pipe = self.redis.pipeline(transaction=False)
        for stream, entry in zip(streams, entries, strict=True):
            fields: dict[Any, Any] = msgspec.structs.asdict(entry)
            pipe.xadd(
                stream,
                fields,
                id=entry_id(int(entry.version)),
                maxlen=TABLE_STREAM_LENGTH,
                approximate=True,
            )
            pipe.expire(stream, STREAM_IDLE_SECONDS)
            pipe.xadd(
                global_stream(self.prefix), fields, maxlen=GLOBAL_STREAM_LENGTH, approximate=True
            )
        await _execute(pipe)

    async def publish_tournaments(
        self, batch: list[tuple[Checkpoint, str, StoredTournamentEvent]]
    ) -> None:
        """Tournament events (as ``TournamentStore.read_all`` reads them) to their
        tournaments' streams. They are public as stored: no token is ever in them, and
        the seed only once ``tournament_finished`` reveals it."""
        pipe = self.redis.pipeline(transaction=False)
        for (_, position), tournament_id, stored in batch:
            try:
                event = decode_event(stored.data)
            except msgspec.ValidationError:
                log.error(
                    "skipping unreadable event of tournament %s v%s", tournament_id, stored.version
                )
                continue
            record = TournamentEventRecord(stored.version, stored.recorded_at, stored.actor, event)
            fields: dict[Any, Any] = {
                "tournament": tournament_id,
                "version": stored.version,
                "position": position,
                "type": type(event).__struct_config__.tag,
                "data": _encode(record),
            }
            stream = tournament_stream(self.prefix, tournament_id)
            pipe.xadd(
                stream,
                fields,
                id=entry_id(stored.version),
                maxlen=TABLE_STREAM_LENGTH,
                approximate=True,
            )
            pipe.expire(stream, STREAM_IDLE_SECONDS)
        await _execute(pipe)


async def _execute(pipe: Pipeline | ClusterPipeline) -> None:
    """Send a pipeline of XADDs; an entry Redis already has (a republished batch) is fine."""
    for result in await pipe.execute(raise_on_error=False):
        if isinstance(result, Exception) and not is_repeat(result):
            raise result


async def run_standalone(settings: Settings) -> None:
    """``cardroom relay``: the relay alone, until the process is stopped."""
    from psycopg_pool import AsyncConnectionPool

    assert settings.database_url and settings.redis_url
    async with AsyncConnectionPool(
        settings.database_url, min_size=1, max_size=3, kwargs={"autocommit": True}
    ) as pool:
        cluster = await is_cluster(settings.redis_url, settings.redis_cluster)
        redis = named_client(
            settings.redis_url,
            settings.redis_prefix,
            "relay",
            timeout=5.0,
            retries=1,
            cluster=cluster,
        )
        watcher = TableWatcher(settings.database_url)
        await watcher.start()
        relay = Relay(
            EventStore(pool), redis, settings.redis_prefix, settings.database_url, watcher
        )
        try:
            await relay.run(asyncio.Event())
        finally:
            await watcher.stop()
            await redis.aclose()
