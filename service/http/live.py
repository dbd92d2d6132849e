"""``GET /tables/{id}/stream``: Server-Sent Events with resume (DESIGN 7).

The stream first catches up from Postgres (after ``Last-Event-ID``), then follows the
process's fan-out hub (service.workers.fanout): one Redis reader of the relay's global
stream for every stream of the process. A spectator's events come from Redis as
published, each encoded once for all the process's spectators; a seat's or the
operator's stream uses Redis only as a doorbell and reads its events from Postgres, so
private cards never pass through Redis. A gap in what Redis delivers (a trimmed or
restarted stream, a stream that fell behind the hub) is filled from Postgres, and with
Redis down the stream falls back to Postgres notifications. Each message's ``id`` is the
event's version; ``: keep-alive`` comments flow when idle.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Annotated
from uuid import UUID

import msgspec
from litestar import get
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, HeaderParameter, QueryParameter
from litestar.response import Stream

from domain.protocol import Audience
from service.http.auth import Caller
from service.http.docs import errors
from service.http.schemas import StreamMessage
from service.read.records import EventRecord
from service.read.watch import TableWatcher
from service.workers.fanout import Hub, Published, Subscription
from service.write.handler import TableService

KEEP_ALIVE = 15.0
KEEP_ALIVE_COMMENT = b": keep-alive\r\n\r\n"
# What Litestar's ServerSentEvent sets; no proxy may buffer or cache the stream.
STREAM_HEADERS = {
    "Cache-Control": "no-cache",
    "Connection": "keep-alive",
    "X-Accel-Buffering": "no",
}
_encode = msgspec.json.Encoder().encode
_decode_record = msgspec.json.Decoder(EventRecord).decode

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
    """One client's stream: catch up from Postgres, then follow the process's fan-out hub
    (or, while it has no Redis, the commit notifications)."""

    def __init__(
        self,
        table_id: str,
        audience: Audience,
        after: int,
        service: TableService,
        hub: Hub,
        watcher: TableWatcher,
    ) -> None:
        self.table_id = table_id
        self.audience = audience
        self.last = after
        self.service = service
        self.hub = hub
        self.watcher = watcher
        self.finished = False
        self.subscription: Subscription | None = None

    def open(self) -> None:
        """Subscribe before the first catch-up: nothing published after it is missed."""
        self.subscription = self.hub.subscribe(self.table_id)

    def close(self) -> None:
        if self.subscription is not None:
            self.hub.unsubscribe(self.subscription)
            self.subscription = None

    def _message(self, record: EventRecord) -> bytes:
        self.last = record.version
        tag = type(record.event).__struct_config__.tag
        return sse_message(record.version, str(tag), _encode(record))

    async def catch_up(self) -> list[bytes]:
        messages = []
        while True:
            table, page = await self.service.events(self.table_id, self.audience, self.last, 500)
            for stored, event in page:
                record = EventRecord(stored.version, stored.recorded_at, stored.actor, event)
                messages.append(self._message(record))
            if len(page) < 500:
                self.finished = (
                    table.status in ("finished", "aborted", "expired")
                    and self.last >= table.version
                )
                return messages

    async def follow(self, quiet: float) -> list[bytes]:
        """The next messages, or none after ``quiet`` seconds without any."""
        assert self.subscription is not None, "open() first"
        if not self.hub.live:
            # Redis is a doorbell only: without it, Postgres notifications ring instead.
            if await self.watcher.wait_for_table(self.table_id, self.last, quiet):
                return await self.catch_up()
            return []
        published, lost = await self.subscription.take(quiet)
        if lost or not published:
            # Entries may be missing (the hub lost Redis, or this stream fell behind), or
            # it is quiet: a cheap look at Postgres notices a finished table and any gap.
            return await self.catch_up()
        fresh = [item for item in published if item.version > self.last]  # repeats dropped
        if not fresh:
            return []
        if self.audience != "spectator":
            # A seat's or the operator's events come from Postgres, private cards and all.
            return await self.catch_up()
        messages: list[bytes] = []
        for item in fresh:
            message = rendered(item)
            if item.version != self.last + 1 or item.final or message is None:
                # A gap (trimmed or restarted stream), the end, or an entry that does not
                # read as a record: Postgres has it all.
                return [*messages, *await self.catch_up()]
            messages.append(message)
            self.last = item.version
        return messages


def sse_message(version: int, event: str, data: bytes) -> bytes:
    """One message on the wire; ``data`` is compact JSON, so one line."""
    return b"id: %d\r\nevent: %s\r\ndata: %s\r\n\r\n" % (version, event.encode(), data)


def rendered(item: Published) -> bytes | None:
    """The spectator's message for a published entry, made once for all streams of the
    process (None if the entry does not read as the event record of its version)."""
    if item.rendered is None:
        try:
            record = _decode_record(item.data)
        except msgspec.DecodeError:
            record = None
        if record is None or record.version != item.version:
            item.rendered = b""
        else:
            tag = type(record.event).__struct_config__.tag
            item.rendered = sse_message(record.version, str(tag), _encode(record))
    return item.rendered or None


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
    hub: NamedDependency[Hub],
    watcher: NamedDependency[TableWatcher],
    last_event_id: LastEventId = None,
    after: After = None,
    timeout: OpenFor = 900,
) -> Stream:
    table_key = str(table_id)
    audience = caller.audience_at(table_key)
    loaded = await service.load(table_key)  # 404 before the stream starts
    caller.require_current(loaded.table)
    start = int(last_event_id) if last_event_id is not None else (after or 0)
    follower = Follower(table_key, audience, start, service, hub, watcher)
    # The messages are written here (sse_message) rather than by Litestar's
    # ServerSentEvent, so that a published event is encoded once for all its streams.
    return Stream(
        _messages(follower, timeout),
        media_type="text/event-stream",
        headers=STREAM_HEADERS,
    )


async def _messages(follower: Follower, timeout: float) -> AsyncIterator[bytes]:
    deadline = time.monotonic() + timeout
    follower.open()
    try:
        messages = await follower.catch_up()
        if messages:
            yield b"".join(messages)
        while not follower.finished and (remaining := deadline - time.monotonic()) > 0:
            messages = await follower.follow(min(KEEP_ALIVE, remaining))
            yield b"".join(messages) if messages else KEEP_ALIVE_COMMENT
    finally:
        follower.close()
