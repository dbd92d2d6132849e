"""Server-Sent Events with resume: ``GET /tables/{id}/stream`` (DESIGN 7) and
``GET /tournaments/{id}/stream`` (DESIGN 14).

Every stream first catches up from Postgres (after ``Last-Event-ID``), then follows. A
table's stream follows the process's fan-out hub (service.workers.fanout): one Redis
reader of the relay's global stream for every stream of the process. A spectator's
events come from Redis as published, each encoded once for all the process's
spectators; a seat's or the operator's stream uses Redis only as a doorbell and reads its
events from Postgres, so private cards never pass through Redis. A gap in what Redis
delivers (a trimmed or restarted stream, a stream that fell behind the hub) is filled
from Postgres, and with Redis down the stream falls back to Postgres notifications.

A tournament's stream (a few public events per round) always follows the Postgres
notifications and reads what they announce from Postgres: ``NOTIFY`` reaches every
process listening on the database, so a stream served by one process sees what any
other committed, with Redis or without. Each message's ``id`` is the event's version;
``: keep-alive`` comments flow when idle, at most ``CARDROOM_KEEPALIVE_SECONDS`` apart
(the ``Cardroom-Keep-Alive`` header says how far).

Once a stream has started, its reads have the request's deadline still: a read the
database does not answer in time (frozen, down, every connection taken) sends nothing
this time, and the stream stays open and reads again at its next look (a keep-alive
later at most), so an outage neither cuts the streams off nor holds them; nothing is
passed over, since ``last`` moves on only with the messages sent. A graceful stop ends
the stream after one such read at most.
"""

from __future__ import annotations

import logging
import time
import weakref
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Annotated, Any
from uuid import UUID

import msgspec
import psycopg
from litestar import get
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, HeaderParameter, QueryParameter
from litestar.response import Stream
from litestar.types import Scope

from domain.table import ENDED
from domain.tournament.events import TableScored, TournamentFinished
from domain.tournament.model import Format
from domain.tournament.stream import Tournament, round_in_secret
from service.http.auth import Caller
from service.http.deadline import deadline_of
from service.http.dependencies import provided
from service.http.docs import TOKEN_OPTIONAL, Access, errors
from service.http.holds import Place, holds_of
from service.http.problems import ApiProblem
from service.http.schemas import StreamMessage, TournamentStreamMessage
from service.http.tables import after_version, caching_headers, load_for_caller, watchable
from service.metrics import LIVE_READS
from service.pg import within
from service.read.records import EventRecord, TournamentEventRecord
from service.read.watch import Hangup, TableWatcher
from service.workers.fanout import Hub, Published, Subscription
from service.write.handler import TableService
from service.write.store import TOURNAMENT_NOTICE
from service.write.tournament_store import TournamentStore, decode_event
from service.write.tournaments import TournamentService

log = logging.getLogger("cardroom")
KEEP_ALIVE_COMMENT = b": keep-alive\r\n\r\n"
OPENED_COMMENT = b": open\r\n\r\n"
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
    after_version("Resume after this version (for clients that cannot set headers)."),
]
OpenFor = Annotated[
    int,
    QueryParameter(
        name="timeout",
        ge=1,
        le=3600,
        description="Seconds before the server ends the stream; clients reconnect with"
        " Last-Event-ID. The stream also ends after the last event of a finished table"
        " or tournament.",
    ),
]

Record = EventRecord | TournamentEventRecord
PAGE = 500  # events per read from Postgres


@dataclass(frozen=True)
class Opening:
    """What every stream is opened with, whatever it follows: the version it resumes after
    (``Last-Event-ID``, which a reconnecting browser sends, over ``?after=``), how long it
    stays open, and the watcher of the commit notifications that wake it."""

    after: int
    timeout: int
    watcher: TableWatcher
    read_seconds: float  # the request's deadline, for each read once the stream started
    scope: Any  # the request's: the stream holds a place (service.http.holds); not a
    # Scope, which Litestar would try to convert as a dependency's field
    keep_alive: float = 15.0  # seconds between two messages at most (CARDROOM_KEEPALIVE_SECONDS)


def provide_opening(
    watcher: NamedDependency[TableWatcher],
    scope: Scope,
    last_event_id: LastEventId = None,
    after: After = None,
    timeout: OpenFor = 900,
) -> Opening:
    start = int(last_event_id) if last_event_id is not None else (after or 0)
    deadline = deadline_of(scope)
    assert deadline is not None, "every route is served under the deadline middleware"
    keep_alive = scope["app"].state.settings.keep_alive_seconds
    return Opening(start, timeout, watcher, deadline.seconds, scope, keep_alive)


def require_reached(opening: Opening, version: int) -> None:
    """404 for a stream asked to resume after a version it has not reached (another
    table's ``Last-Event-ID``, say): following it would pass over every event up to that
    version without a word. Every acknowledged version is reached in the read made first."""
    if opening.after > version:
        raise ApiProblem(
            "version-not-found",
            f"the stream is at version {version}: it cannot resume after {opening.after}",
        )


OPENING = provided(opening=provide_opening)


class Follower:
    """One client's stream of one event stream: catch up from Postgres after ``last``,
    then wait for the stream's commit notifications (``key``, as the watcher knows it)
    and catch up again. Subclasses read the pages, and may follow something faster."""

    def __init__(self, key: str, opening: Opening) -> None:
        self.key = key
        self.last = opening.after
        self.watcher = opening.watcher
        self.read_seconds = opening.read_seconds
        self.finished = False
        # The stream's place (service.http.holds), once it holds one: its waits end when
        # the client goes or a newer stream of the same client takes its place.
        self.hangup: Hangup | None = None

    def open(self) -> None:
        """Before the first catch-up."""

    def close(self) -> None:
        """After the last message."""

    async def page(self) -> tuple[list[Record], bool]:
        """Records after ``last`` (``PAGE`` at most, unless the stream is known to be
        short), and whether the stream has ended once they are sent."""
        raise NotImplementedError

    def _message(self, record: Record) -> bytes:
        self.last = record.version
        tag = type(record.event).__struct_config__.tag
        return sse_message(record.version, str(tag), _encode(record))

    async def catch_up(self) -> list[bytes]:
        """The messages after ``last``: as many whole pages as the database answers within
        the read deadline (``last`` is the last of them), the rest at the next look.

        A stream far behind (thousands opened at once on a long table, each from its
        start) once got nothing unless it read everything in one deadline: it read the
        same pages again at every event and never caught up, and its reads kept the pool
        from every other request."""
        messages: list[bytes] = []
        try:
            await within(self._read_all(messages), self.read_seconds)
        except (psycopg.OperationalError, TimeoutError) as exc:
            # The page being read is abandoned (cancelled, it passes no message on).
            log.warning("stream of %s: read %d, then no read: %s", self.key, len(messages), exc)
        return messages

    async def _read_all(self, messages: list[bytes]) -> None:
        """Into ``messages``, page by page: a page is passed on whole or not at all."""
        while True:
            records, ended = await self.page()
            messages.extend([self._message(record) for record in records])
            if len(records) < PAGE:
                self.finished = ended
                return

    async def follow(self, quiet: float) -> list[bytes]:
        """The next messages, or none after ``quiet`` seconds without any. A quiet spell
        ends with a look at Postgres too: a notification lost while the watcher
        reconnected delays a message by one keep-alive at most."""
        await self.watcher.wait_for_table(self.key, self.last, quiet, self.hangup)
        return await self.catch_up()


class TableFollower(Follower):
    """A table's stream: follows the process's fan-out hub (or, while it has no Redis,
    the commit notifications).

    A seat's stream ends once its token is revoked (the seat left or was replaced,
    DESIGN 10): every read of the seat's private events is checked against the table read
    after them, so no card dealt to the seat's next player reaches it. Until that read,
    it may still pass on public events (what any spectator sees), but not at a table
    closed to spectators, where it reads them all; reconnecting gets 401.
    """

    def __init__(
        self,
        table_id: str,
        caller: Caller,
        service: TableService,
        hub: Hub,
        opening: Opening,
        *,
        watched: bool = True,
    ) -> None:
        super().__init__(table_id, opening)
        self.table_id = table_id
        self.caller = caller
        self.audience = caller.audience_at(table_id)
        self.service = service
        self.hub = hub
        self.subscription: Subscription | None = None
        # Whether the hub's public entries may reach this stream as they are: not a
        # seat's, at a table closed to spectators (below).
        self.watched = watched

    def open(self) -> None:
        """Subscribe before the first catch-up: nothing published after it is missed."""
        self.subscription = self.hub.subscribe(self.table_id)

    def close(self) -> None:
        if self.subscription is not None:
            self.hub.unsubscribe(self.subscription)
            self.subscription = None

    async def page(self) -> tuple[list[Record], bool]:
        table, page = await self.service.events(self.table_id, self.audience, self.last, PAGE)
        if self.caller.revoked_by(table):
            return [], True
        records: list[Record] = [
            EventRecord(stored.version, stored.recorded_at, stored.actor, event)
            for stored, event in page
        ]
        last = records[-1].version if records else self.last
        ended = table.status in ENDED and last >= table.version
        return records, ended

    async def follow(self, quiet: float) -> list[bytes]:
        assert self.subscription is not None, "open() first"
        if not self.hub.live:
            # Redis is a doorbell only: without it, Postgres notifications ring instead.
            return await super().follow(quiet)
        published, lost = await self.subscription.take(quiet, self.hangup)
        if self.hangup is not None and self.hangup.ended:
            return []  # the stream ends now: nothing to read for it
        if lost or not published:
            # Entries may be missing (the hub lost Redis, or this stream fell behind), or
            # it is quiet: a cheap look at Postgres notices a finished table and any gap.
            return await self._read_postgres("lost" if lost else "quiet")
        fresh = [item for item in published if item.version > self.last]  # repeats dropped
        if not fresh:
            return []
        if self.audience != "spectator" and not (self.watched and all(i.whole for i in fresh)):
            # A seat's or the operator's events come from Postgres, private cards and all,
            # unless the relay hid nothing (a bid, a card played): then they are the same.
            # At a table closed to spectators, a seat's come from Postgres every time: its
            # plays are for its seats only, and a revoked token's stream ends at once.
            return await self._read_postgres("private")
        messages: list[bytes] = []
        for item in fresh:
            message = rendered(item)
            if item.version != self.last + 1 or item.final or message is None:
                # A gap (trimmed or restarted stream), the end, or an entry that does not
                # read as a record: Postgres has it all.
                return [*messages, *await self._read_postgres("gap")]
            messages.append(message)
            self.last = item.version
        return messages

    async def _read_postgres(self, reason: str) -> list[bytes]:
        LIVE_READS.labels(reason).inc()
        return await self.catch_up()


class TournamentFollower(Follower):
    """A tournament's stream: short and public, read whole after ``last`` at each commit
    notification; it ends after ``tournament_finished``.

    A duplicate event's results of the round in play (``stream.round_in_secret``) wait
    until the round is complete, unless the follower runs the event (``sees_all``): the
    stream pauses before the first of them."""

    def __init__(
        self, tournament: Tournament, store: TournamentStore, opening: Opening, sees_all: bool
    ) -> None:
        super().__init__(f"{TOURNAMENT_NOTICE}{tournament.id}", opening)
        self.tournament_id = tournament.id
        self.store = store
        self.keeps_secrets = tournament.format is Format.DUPLICATE and not sees_all
        # The version of ``tournament_finished``, once known.
        self.final = tournament.version if tournament.status == "finished" else None
        self.read = self.last  # the last version read, sent or held back

    async def follow(self, quiet: float) -> list[bytes]:
        # Past what was read, not what was sent: a result held back is no news.
        await self.watcher.wait_for_table(self.key, max(self.last, self.read), quiet, self.hangup)
        return await self.catch_up()

    async def page(self) -> tuple[list[Record], bool]:
        stored = await self.store.read_stream(self.tournament_id, self.last, replica=True)
        self.read = max(self.read, stored[-1].version if stored else 0)
        secret = None
        if self.keeps_secrets and stored:
            # Folded after the read, so never older than what it read.
            secret = round_in_secret((await self.store.load(self.tournament_id))[0])
        records: list[Record] = []
        for event in stored:
            record = TournamentEventRecord(
                event.version, event.recorded_at, event.actor, decode_event(event.data)
            )
            if isinstance(record.event, TableScored) and record.event.round == secret:
                break
            if isinstance(record.event, TournamentFinished):
                self.final = record.version
            records.append(record)
        last = records[-1].version if records else self.last
        return records, self.final is not None and last >= self.final


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


def event_stream(message: type[StreamMessage], record: str, *statuses: int) -> Access:
    """A stream route's documentation: Server-Sent Events whose 200 is documented by the
    schema of one message; anyone may follow (a token may let it show more)."""
    messages = ResponseSpec(
        data_container=message,
        media_type="text/event-stream",
        description=(
            f"A stream of messages whose `data` is {record}, with `id` (the version),"
            " `event` (its type) and keep-alive comments."
        ),
        generate_examples=False,
    )
    return {
        "media_type": "text/event-stream",
        "responses": {200: messages, **errors(*statuses)},
        "security": TOKEN_OPTIONAL,
    }


@get(
    "/tables/{table_id:uuid}/stream",
    operation_id="streamTable",
    summary="Live events of a table (Server-Sent Events)",
    description=(
        "Each message is one event record as `listEvents` returns it: `id` is the version,"
        " `event` the event type. Resume with `Last-Event-ID` (or `?after=`); a version the"
        " table has not reached is 404 `version-not-found`. A seat token"
        " adds that seat's private cards, and the stream ends once that token is revoked (the"
        " seat left or was replaced): no private card of the seat's next player reaches it,"
        " though public events, which any spectator sees, may for a moment before it ends."
        " The operator, and a tournament's director at its tables, sees everything."
    ),
    tags=["tables"],
    dependencies=OPENING,
    **event_stream(StreamMessage, "an event record", 400, 401, 403, 404, 503),
)
async def stream_table(
    table_id: FromPath[UUID],
    caller: NamedDependency[Caller],
    service: NamedDependency[TableService],
    tournaments: NamedDependency[TournamentService],
    hub: NamedDependency[Hub],
    opening: NamedDependency[Opening],
) -> Stream:
    table_key = str(table_id)
    audience, loaded = await load_for_caller(caller, service, tournaments, table_key)  # 404, 401
    require_reached(opening, loaded.table.version)
    seat = isinstance(audience, int)
    watched = not seat or await watchable(loaded.table, tournaments)
    follower = TableFollower(table_key, caller, service, hub, opening, watched=watched)
    # A seat's stream carries its cards: it says so to caches, as the seat's view does.
    return stream_of(follower, opening, caller, caching_headers(audience))


@get(
    "/tournaments/{tournament_id:uuid}/stream",
    operation_id="streamTournament",
    summary="Live events of a tournament (Server-Sent Events)",
    description=(
        "Each message is one event of the tournament's stream (entries, pairings, tables"
        " opened by hand, results, the end): `id` is the version, `event` the event type,"
        " `data` the event record (`version`, `at`, `actor`, `event`). Resume with"
        " `Last-Event-ID` (or `?after=`); a version the tournament has not reached is 404"
        " `version-not-found`."
        " Public: a tournament's events carry no token. The stream ends after"
        " `tournament_finished`. A duplicate tournament's results of the round in play"
        " (`table_scored`) wait until the round is complete, as every table of it plays"
        " the same deals; its director and the operator see them as they come."
    ),
    tags=["tournaments"],
    dependencies=OPENING,
    **event_stream(TournamentStreamMessage, "a tournament event record", 400, 401, 404, 503),
)
async def stream_tournament(
    tournament_id: FromPath[UUID],
    caller: NamedDependency[Caller],  # the director's or operator's token shows more
    tournaments: NamedDependency[TournamentService],
    opening: NamedDependency[Opening],
) -> Stream:
    tournament = await tournaments.load(str(tournament_id))  # 404 before the stream starts
    require_reached(opening, tournament.version)
    sees_all = caller.is_operator or (
        caller.kind == "director" and caller.tournament == tournament.id
    )
    follower = TournamentFollower(tournament, tournaments.store, opening, sees_all)
    return stream_of(follower, opening, caller)


def stream_of(
    follower: Follower,
    opening: Opening,
    caller: Caller | None,
    caching: Mapping[str, str] | None = None,
) -> Stream:
    """The stream's response, its place held from now (service.http.holds): 503
    ``server-busy`` now if the process holds all it may."""
    place = holds_of(opening.scope).take(opening.scope, caller)
    messages = _messages(follower, opening, place)
    # Given back when the stream ends, or when its iterator goes unstarted (its client
    # gone before the answer began), which runs no ``finally``.
    weakref.finalize(messages, place.release)
    # The interval lets a client tell a dead connection from a quiet table: one that
    # hears nothing for a few of them reconnects with Last-Event-ID (the console does).
    every = {"Cardroom-Keep-Alive": f"{opening.keep_alive:g}"}
    # The messages are written here (sse_message) rather than by Litestar's
    # ServerSentEvent, so that a published event is encoded once for all its streams.
    return Stream(
        messages,
        media_type="text/event-stream",
        headers={**STREAM_HEADERS, **every, **(caching or {})},
    )


async def _messages(follower: Follower, opening: Opening, place: Place) -> AsyncIterator[bytes]:
    deadline = time.monotonic() + opening.timeout
    hangup = follower.hangup = place.hangup
    follower.open()
    try:
        # A first chunk at once, a comment if there is nothing to catch up on: a proxy
        # passes the stream on, the client knows it is open, and a HEAD (answered once
        # this is written, access._headless) ends between two reads, not inside one.
        messages = await follower.catch_up()
        yield b"".join(messages) if messages else OPENED_COMMENT
        # Each wait ends in a look at Postgres, which may take its whole deadline (a
        # database that does not answer): the wait leaves it that time, so that two
        # chunks are never more than the keep-alive apart (they were keep-alive plus the
        # deadline, 16.5 s, while the database was frozen).
        follower.read_seconds = min(follower.read_seconds, opening.keep_alive / 2)
        # Once a graceful stop begins (the watcher is released) the stream ends: its
        # client resumes at another process from its Last-Event-ID
        # (service.http.stopping); so does one whose place a newer one took.
        while (
            not follower.finished
            and not follower.watcher.released
            and not hangup.ended
            and (remaining := deadline - time.monotonic()) > 0
        ):
            quiet = min(opening.keep_alive, remaining) - follower.read_seconds
            messages = await follower.follow(max(quiet, 0.0))
            yield b"".join(messages) if messages else KEEP_ALIVE_COMMENT
    finally:
        follower.close()
        place.release()
