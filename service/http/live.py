"""``GET /tables/{id}/stream``: Server-Sent Events with resume (DESIGN 7).

The stream first catches up from Postgres (after ``Last-Event-ID``), then follows the
table's Redis stream, where the relay publishes the public form of each event. A
spectator's events come from Redis as published; a seat's or the operator's stream uses
Redis only as a doorbell and reads its events from Postgres, so private cards never pass
through Redis. A gap in what Redis returns (a trimmed or restarted stream) is filled
from Postgres, and with Redis down the stream falls back to Postgres notifications.
Each message's ``id`` is the event's version; ``: keep-alive`` comments flow when idle.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Annotated, Any
from uuid import UUID

import msgspec
from litestar import get
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, HeaderParameter, QueryParameter
from litestar.response import ServerSentEvent, ServerSentEventMessage
from redis.asyncio import Redis
from redis.exceptions import RedisError

from domain.protocol import Audience
from service.http.auth import Caller
from service.http.docs import errors
from service.http.schemas import StreamMessage
from service.read.records import EventRecord
from service.read.watch import TableWatcher
from service.settings import Settings
from service.workers.streams import entry_id, table_stream, version_of
from service.write.handler import TableService

KEEP_ALIVE = 15.0
_encode = msgspec.json.Encoder().encode

LastEventId = Annotated[
    str | None,
    HeaderParameter(
        name="Last-Event-ID",
        pattern=r"^[0-9]{1,9}$(?!\n)",
        description="The last version received; the stream resumes after it.",
    ),
]
After = Annotated[
    int | None,
    QueryParameter(
        name="after",
        ge=0,
        le=2**31 - 1,
        schema_extra={"minimum": 0},  # Litestar leaves a falsy bound out of the document
        description="Resume after this version (for clients that cannot set headers).",
    ),
]
OpenFor = Annotated[
    int,
    QueryParameter(
        name="timeout",
        ge=1,
        le=3600,
        description="Seconds before the server ends the stream; clients reconnect with"
        " Last-Event-ID. The stream also ends after the last event of a finished table.",
    ),
]


class Follower:
    """One client's stream: catch up from Postgres, then follow Redis or notifications."""

    def __init__(
        self,
        table_id: str,
        audience: Audience,
        after: int,
        service: TableService,
        redis: Redis,
        watcher: TableWatcher,
        prefix: str,
    ) -> None:
        self.table_id = table_id
        self.audience = audience
        self.last = after
        self.service = service
        self.redis = redis
        self.watcher = watcher
        self.key = table_stream(prefix, table_id)
        self.finished = False

    def _message(self, record: EventRecord) -> ServerSentEventMessage:
        self.last = record.version
        tag = type(record.event).__struct_config__.tag
        return ServerSentEventMessage(
            data=_encode(record).decode(), event=str(tag), id=record.version
        )

    async def catch_up(self) -> list[ServerSentEventMessage]:
        messages = []
        while True:
            table, page = await self.service.events(self.table_id, self.audience, self.last, 500)
            for stored, event in page:
                record = EventRecord(stored.version, stored.recorded_at, stored.actor, event)
                messages.append(self._message(record))
            if len(page) < 500:
                self.finished = (
                    table.status in ("finished", "aborted") and self.last >= table.version
                )
                return messages

    async def follow(self, quiet: float) -> list[ServerSentEventMessage]:
        """The next messages, or none after ``quiet`` seconds without any."""
        try:
            found: Any = await self.redis.xread(
                {self.key: entry_id(self.last)}, count=100, block=max(1, int(quiet * 1000))
            )
        except RedisError:
            # Redis is a doorbell only: without it, Postgres notifications ring instead.
            if await self.watcher.wait_for_table(self.table_id, self.last, quiet):
                return await self.catch_up()
            return []
        entries: list[tuple[bytes, dict[bytes, bytes]]] = _entries(found)
        if not entries:
            # Quiet: a cheap look at Postgres notices a finished table (and any gap).
            return await self.catch_up()
        if self.audience != "spectator":
            return await self.catch_up()
        messages: list[ServerSentEventMessage] = []
        for entry, fields in entries:
            if version_of(entry) != self.last + 1 or fields[b"type"] == b"game_won":
                # A gap (trimmed or restarted stream), or the end: Postgres has it all.
                return [*messages, *await self.catch_up()]
            record = msgspec.json.decode(fields[b"data"], type=EventRecord)
            messages.append(self._message(record))
        return messages


def _entries(found: Any) -> Any:
    """The entries of XREAD's answer for one stream (RESP2 list or RESP3 map)."""
    if not found:
        return []
    if isinstance(found, dict):
        return next(iter(found.values()))[0]
    return found[0][1]


@get(
    "/tables/{table_id:uuid}/stream",
    operation_id="streamTable",
    summary="Live events of a table (Server-Sent Events)",
    description=(
        "Each message is one event record as `listEvents` returns it: `id` is the version,"
        " `event` the event type. Resume with `Last-Event-ID` (or `?after=`). A seat token"
        " adds that seat's private cards; the operator sees everything."
    ),
    tags=["tables"],
    media_type="text/event-stream",
    responses={
        200: ResponseSpec(
            data_container=StreamMessage,
            media_type="text/event-stream",
            description=(
                "A stream of messages whose `data` is an event record, with `id` (the"
                " version), `event` (its type) and keep-alive comments."
            ),
            generate_examples=False,
        ),
        **errors(400, 401, 403, 404, 503),
    },
    security=[{}, {"bearer": []}],
)
async def stream_table(
    table_id: FromPath[UUID],
    caller: NamedDependency[Caller],
    service: NamedDependency[TableService],
    redis: NamedDependency[Redis],
    watcher: NamedDependency[TableWatcher],
    settings: NamedDependency[Settings],
    last_event_id: LastEventId = None,
    after: After = None,
    timeout: OpenFor = 900,
) -> ServerSentEvent:
    table_key = str(table_id)
    audience = caller.audience_at(table_key)
    loaded = await service.load(table_key)  # 404 before the stream starts
    caller.require_current(loaded.table)
    start = int(last_event_id) if last_event_id is not None else (after or 0)
    follower = Follower(table_key, audience, start, service, redis, watcher, settings.redis_prefix)
    return ServerSentEvent(_messages(follower, timeout), headers={"Cache-Control": "no-cache"})


async def _messages(follower: Follower, timeout: float) -> AsyncIterator[Any]:
    deadline = time.monotonic() + timeout
    for message in await follower.catch_up():
        yield message
    while not follower.finished and (remaining := deadline - time.monotonic()) > 0:
        messages = await follower.follow(min(KEEP_ALIVE, remaining))
        if not messages:
            yield ServerSentEventMessage(data=None, comment="keep-alive")
        for message in messages:
            yield message
