"""``/tables``: create, sit down, look, act, and read the event stream."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal
from uuid import UUID

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.datastructures import ResponseHeader
from litestar.di import NamedDependency
from litestar.params import FromPath, HeaderParameter, JSONBody, PathParameter, QueryParameter

from domain import table as tables
from domain.events import Event
from domain.protocol import Audience
from domain.registry import GAMES
from service.http import sample
from service.http.auth import Caller
from service.http.conditional import IfNoneMatch, TableWait, entity_tags, named_tags, strong_tags
from service.http.deadline import RequestDeadline, deadline_of
from service.http.dependencies import provided
from service.http.docs import location, token_only, token_optional
from service.http.holds import holds_of
from service.http.idempotency import IdempotencyKey, OpeningIdempotencyKey, SeatIdempotencyKey
from service.http.problems import ApiProblem, client_gone
from service.http.schemas import (
    TEXT,
    UUID_PATTERN,
    Command,
    CreateTable,
    EventPage,
    ScoreSheetPage,
    SeatGranted,
    TablePage,
    TakeSeat,
    clock_settings,
    same_text,
)
from service.read.models import ReadSide, Tournament
from service.read.records import ActionResult, EventRecord, TableView
from service.read.watch import TableWatcher
from service.refusals import TournamentNotFound
from service.write.handler import Answer, Loaded, TableService, etag
from service.write.store import new_table_id
from service.write.tournaments import TournamentService

IfMatch = Annotated[
    str | None,
    HeaderParameter(
        name="If-Match",
        description="The ETag of the view the command was chosen from; 412 when stale."
        " Compared strongly: a weak tag (`W/`) never matches.",
    ),
]


def after_version(description: str) -> QueryParameter:
    """The ``after`` query parameter: a version of a table's or a tournament's stream."""
    return QueryParameter(
        name="after",
        ge=0,
        le=2**31 - 1,
        schema_extra={"minimum": 0},  # Litestar leaves a falsy bound out of the document
        description=description,
    )


After = Annotated[
    int,
    after_version(
        "Events after this version. One the table has not reached answers no events; the"
        " page's `version` says where the table is (the stream answers 404 instead)."
    ),
]
SeatPath = Annotated[
    int,
    PathParameter(
        ge=0,
        le=6,
        schema_extra={"minimum": 0},  # Litestar leaves a falsy bound out
        description="The seat, 0 to the table's seats - 1.",
    ),
]
if TYPE_CHECKING:
    GameFilter = str
else:
    GameFilter = Literal[tuple(GAMES)]
StatusFilter = Literal["waiting", "playing", "finished", "aborted", "expired"]
# Listings page newest first: ``cursor`` is the ``next`` of the page before.
Cursor = Annotated[
    str | None,
    QueryParameter(
        name="cursor",
        pattern=r"^[0-9]{1,18}$(?!\n)",
        description="The `next` of the previous page.",
    ),
]
PageSize = Annotated[int, QueryParameter(name="limit", ge=1, le=200)]
Limit = Annotated[
    int, QueryParameter(name="limit", ge=1, le=1000, description="At most this many.")
]


def etag_header(description: str, audience: Audience = "spectator") -> ResponseHeader:
    """The ``ETag`` an answer declares, its example the ``audience``'s at version 1."""
    return ResponseHeader(
        name="ETag", description=description, value=etag(1, audience), documentation_only=True
    )


_TAG = etag_header(
    "Strong tag of this version and audience, and of the service's release:"
    " opaque, compare it whole (a release that changes what a view shows changes it)."
)
_REVALIDATE = ResponseHeader(
    name="Cache-Control",
    description="Revalidate before reuse: `no-cache` for a spectator, `private,"
    " no-cache` for a seat or the operator (never kept by a shared cache).",
    value="no-cache",
    documentation_only=True,
)
_VARY = ResponseHeader(
    name="Vary",
    description="`Authorization`: the answer is the audience's own (a seat's cards).",
    value="Authorization",
    documentation_only=True,
)
_VIEW_HEADERS = [_TAG, _REVALIDATE, _VARY]
# A command's answer, and the operator's after an intervention: the caller's own view.
PRIVATE_VIEW_HEADERS = [
    _TAG,
    ResponseHeader(
        name="Cache-Control",
        description="The caller's own answer: never kept by a shared cache.",
        value="private, no-cache",
        documentation_only=True,
    ),
]
_encoder = msgspec.json.Encoder()
_JSON = "application/json"


def _record(version: int, at: datetime, actor: str, event: Event) -> EventRecord:
    return EventRecord(version=version, at=at, actor=actor, event=event)


def _cache(audience: Audience) -> str:
    # Views are revalidated every time; a seat's or the operator's never sit in shared caches.
    return "no-cache" if audience == "spectator" else "private, no-cache"


async def load_for_caller(
    caller: Caller, service: TableService, tournaments: TournamentService, table_key: str
) -> tuple[Audience, Loaded]:
    """What ``caller`` may see of the table, and the table from a replica: a token of
    another table is refused before the read, a revoked seat token (or a spectator of a
    table closed to them) after it."""
    audience = caller.audience_at(table_key)
    loaded = current_for(caller, await service.load(table_key, replica=True))
    await require_watchable(loaded.table, audience, tournaments)
    return audience, loaded


def current_for(caller: Caller, loaded: Loaded) -> Loaded:
    """``loaded``, once ``caller``'s seat token is known not to be revoked by it."""
    caller.require_current(loaded.table)
    return loaded


async def watchable(table: tables.Table[Any], tournaments: TournamentService) -> bool:
    """Whether spectators may watch ``table`` now (``Tournament.table_watchable``). A tag
    naming no stored tournament closes nothing: there is no event behind it whose other
    tables could learn a deal."""
    if table.tournament is None:
        return True
    try:
        tournament = await tournaments.load(table.tournament)
    except TournamentNotFound:
        return True
    over = table.status in tables.ENDED
    # Only a table that would open now asks whether another is still being played.
    in_play = (
        over and tournament.status == "finished" and await tournaments.tables_in_play(tournament.id)
    )
    return tournament.table_watchable(bool(table.decks), over, tables_in_play=in_play)


async def require_watchable(
    table: tables.Table[Any], audience: Audience, tournaments: TournamentService
) -> None:
    """401 for a spectator of a table that its tournament closes to them until it is
    over (:func:`watchable`); its seats and the operator still see it as ever."""
    if audience == "spectator" and not await watchable(table, tournaments):
        raise ApiProblem(
            "unauthorized",
            "the tables of a tournament that deals them the same cards are watched once"
            " it is over:"
            " send this table's seat token or the operator's",
        )


def _matches(loaded: Loaded, audience: Audience, wanted: list[str]) -> bool:
    return "*" in wanted or etag(loaded.table.version, audience) in wanted


async def _long_poll(version: int, access: TableAccess, wait: int) -> Loaded | None:
    """The table read once it moves past ``version``, ``wait`` seconds pass, the process
    begins a graceful stop (service.http.stopping) or a newer request of the same client
    takes this one's place (service.http.holds), whichever comes first; None, read
    nothing, if the client hangs up first (service.http.protocol).

    The commit notification wakes it at once; a re-read every few seconds covers a
    notification lost with a dropped LISTEN connection. What it answers with is always
    read after the last wait, so it is never older than a version acknowledged before.
    """
    table_id, watcher = access.table_key, access.watcher
    with holds_of(access.scope).place(access.scope, access.caller) as hangup:
        if access.deadline is not None:
            access.deadline.extend(wait)
        deadline = time.monotonic() + wait
        while True:
            remaining = deadline - time.monotonic()
            await watcher.wait_for_table(table_id, version, min(remaining, 5.0), hangup)
            if hangup.happened:
                # No read for an answer nobody gets: when a load generator's or a cell
                # network's clients drop together, their polls would read all at once.
                return None
            fresh = await access.service.load(table_id, replica=True)
            if (
                fresh.table.version != version
                or time.monotonic() >= deadline
                or watcher.released
                or hangup.superseded
            ):
                return fresh


def _open_unread(access: TableAccess, audience: Audience, heard: int) -> bool:
    """Whether the caller may park a poll before the table is read, the process holding
    its snapshot at ``heard``, the version last announced: a caller that may not see the
    table must be refused before it waits, or the time of the refusal would tell it when
    the table moved. A seat token is refused at once if that snapshot shows it revoked,
    and a director's at another tournament's table (:meth:`Caller.require_current`; a
    revocation after ``heard`` wakes the poll at once); a spectator parks only at a table
    in no tournament (a tag never changes), since a tournament may close its tables to
    spectators (:func:`require_watchable`)."""
    cached = access.service.snapshots.get(access.table_key)
    if cached is None or cached.table.version != heard:
        return False
    access.caller.require_current(cached.table)
    return audience != "spectator" or cached.table.tournament is None


async def table_answer(
    access: TableAccess, if_none_match: str | None, wait: int | None
) -> Response[Any]:
    """``GET /tables/{id}``'s answer (the route's, and the view's short way's): the view,
    a 304 while ``If-None-Match`` is current, or either after a long-poll of ``wait``."""
    table_key, caller, watcher = access.table_key, access.caller, access.watcher
    wanted = entity_tags(if_none_match)
    audience = caller.audience_at(table_key)  # another table's token: 403, nothing read
    heard = watcher.versions.get(table_key)
    if (
        wait
        and named_tags(wanted)
        and heard is not None
        and etag(heard, audience) in wanted
        and _open_unread(access, audience, heard)
    ):
        # The caller holds the version this process last heard announced: a read now
        # would most likely find it unchanged, so the poll waits first and reads after
        # (a commit not announced here yet wakes it as soon as it is).
        polled = await _long_poll(heard, access, wait)
        if polled is None:
            return client_gone()
        loaded = current_for(caller, polled)
    else:
        loaded = current_for(caller, await access.service.load(table_key, replica=True))
        if wait and named_tags(wanted) and _matches(loaded, audience, wanted):
            # Refused before it parks: a spectator of a closed table would otherwise
            # learn when it moves from when the refusal comes.
            await require_watchable(loaded.table, audience, access.tournaments)
            polled = await _long_poll(loaded.table.version, access, wait)
            if polled is None:
                return client_gone()
            loaded = current_for(caller, polled)
    await require_watchable(loaded.table, audience, access.tournaments)
    tag = etag(loaded.table.version, audience)
    if wanted is not None and _matches(loaded, audience, wanted):
        not_modified: Response[Any] = Response(
            None, status_code=304, headers={"ETag": tag, **caching_headers(audience)}
        )
        return not_modified
    return _view_response(tables.view(loaded.table, audience), audience)


def caching_headers(audience: Audience) -> dict[str, str]:
    """The caching headers of what ``audience`` sees of a table."""
    return {"Cache-Control": _cache(audience), "Vary": "Authorization"}


def _view_response(view: Any, audience: Audience, status: int = 200) -> Response[Any]:
    headers = {"ETag": etag(view.version, audience), **caching_headers(audience)}
    return Response(_encoder.encode(view), status_code=status, media_type=_JSON, headers=headers)


def _answered(answer: Answer) -> Response[Any]:
    """A command's answer sent as first encoded: the bytes of an ``ActionResult``, the
    same for every retry with its Idempotency-Key."""
    headers = {"ETag": answer.etag, "Cache-Control": "private, no-cache"}
    return Response(answer.body, status_code=answer.status, media_type=_JSON, headers=headers)


def game_of(body: msgspec.Struct) -> str:
    """The game id a per-game request body is tagged with."""
    return str(type(body).__struct_config__.tag)


class _OptionsGiven(msgspec.Struct):
    options: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET


def _tournament_options(joined: Tournament, asked: msgspec.Struct, body: bytes) -> dict[str, Any]:
    """The options of a table opened in ``joined``: the tournament's, which every table of
    it plays by (its standings compare them). A body that names options must name the
    tournament's (as in force: an option left out is its default)."""
    if msgspec.json.decode(body, type=_OptionsGiven).options is not msgspec.UNSET:
        theirs = msgspec.convert(joined.options, type(asked))
        if tables.in_force(asked) != tables.in_force(theirs):
            raise ApiProblem(
                "invalid-options",
                f"tournament {joined.id} plays with options of its own: leave out `options`",
            )
    return joined.options


def seat_name(asked: str | None, computer: bool, seat: int) -> str:
    """The name a seat is taken or handed over under (``interventions.replace_seat``): the
    one asked for, else the computer's or the seat's own."""
    return asked or ("Computer" if computer else f"Player {seat + 1}")


@dataclass(frozen=True, slots=True)
class TableAccess:
    """What the hot table routes (the view, its 304, a command, the events) are given: which
    table (the path's id), who asks, and the services that answer them.

    One dependency rather than three: Litestar resolves a handler's two or more
    dependencies of the same depth concurrently, in an anyio task group of their own,
    which cost about 60 µs a request more than one (measured in-process) — a tenth of a
    304's CPU — for providers that only read the app's state. A chain (this one after
    ``caller``) is resolved one by one, as cheaply as a single dependency."""

    table_key: str
    caller: Caller
    service: TableService
    tournaments: TournamentService
    watcher: TableWatcher
    scope: Any  # the request's: a long-poll holds a place for it (service.http.holds)
    deadline: RequestDeadline | None  # the request's, which a long-poll extends by its wait


def provide_table_access(
    request: Request[Any, Any, Any], table_id: FromPath[UUID], caller: NamedDependency[Caller]
) -> TableAccess:
    # ``caller`` alone before it, this alone after: two batches of one, no task group.
    return table_access(request.scope, str(table_id), caller)


def table_access(scope: Any, table_key: str, caller: Caller) -> TableAccess:
    state = scope["app"].state
    return TableAccess(
        table_key,
        caller,
        state.service,
        state.tournaments,
        state.watcher,
        scope,
        deadline_of(scope),
    )


class TableController(Controller):
    path = "/tables"
    tags = ("tables",)
    dependencies = provided(access=provide_table_access)

    @post(
        "/",
        operation_id="createTable",
        summary="Create a table",
        description=(
            "Opens a table of `game` with `seats` seats. `first_dealer`, `deals` (decks"
            " for the table's successive deals, top card first) and `tournament` need the"
            " operator token, or with `tournament` that tournament's director's. A"
            " tournament's table plays by the tournament's options: leave `options` out"
            " (or name the same ones); its clock is the tournament's unless `clock` is"
            " given. Send an `Idempotency-Key`, so that a retry after a lost answer gets"
            " the same table rather than opening a second one."
        ),
        status_code=201,
        response_headers=[*location(f"/tables/{sample.TABLE}"), *_VIEW_HEADERS],
        **token_optional(400, 401, 403, 404, 409, 413, 415, 422, 503),
    )
    async def create_table(
        self,
        data: JSONBody[CreateTable],
        caller: NamedDependency[Caller],
        service: NamedDependency[TableService],
        read_side: NamedDependency[ReadSide],
        tournaments: NamedDependency[TournamentService],
        request: Request[Any, Any, Any],
        idempotency_key: OpeningIdempotencyKey = None,
    ) -> Response[TableView]:
        if data.tournament is not None:
            # The director acts as the operator for its own tournament (DESIGN 14).
            caller.require_director(
                str(data.tournament), "tournament tables count in the standings"
            )
        elif data.first_dealer is not None or data.deals is not None:
            caller.require_operator("first_dealer and deals are for the operator")
        in_charge = caller.is_operator or (
            data.tournament is not None and caller.kind == "director"
        )
        tournament, tournament_clock = None, None
        options: dict[str, Any] = msgspec.to_builtins(data.options)
        if data.tournament is not None:
            joined = await read_side.tournament(str(data.tournament))
            if joined.game != game_of(data):
                raise ApiProblem("invalid-options", f"tournament {joined.id} plays {joined.game}")
            options = _tournament_options(joined, data.options, await request.body())
            tournament, tournament_clock = joined.id, joined.clock
        created = tables.create(
            new_table_id(),
            game_of(data),
            data.seats,
            options,
            first_dealer=data.first_dealer,
            decks=[d.deck for d in data.deals] if data.deals else None,
            tournament=tournament,
            clock=clock_settings(data.clock, data.on_timeout) or tournament_clock,
        )
        actor = caller.kind if in_charge else "anonymous"
        command = msgspec.to_builtins(data)
        if tournament is None:
            table = await service.open(created, command, actor, idempotency_key=idempotency_key)
        else:  # recorded in the tournament's stream too, in the same transaction
            table, _ = await tournaments.open_table(
                created, command, actor, [], idempotency_key=idempotency_key
            )
        audience: Audience = "operator" if in_charge else "spectator"
        response = _view_response(tables.view(table, audience), audience, status=201)
        response.headers["Location"] = f"/tables/{table.id}"
        return response

    @post(
        "/{table_id:uuid}/seats/{seat:int}",
        operation_id="takeSeat",
        summary="Take a seat",
        description=(
            "Seats a player and returns the seat's bearer token. With `computer: true`"
            " the computer plays the seat, and `token` is `null`: nobody plays for it or"
            " sees its hand. On a tournament table, seating the computer or"
            " taking over a seat its player left needs the operator's token (or the"
            " tournament director's). When the last seat is taken the first deal happens."
            " Send an `Idempotency-Key`, so that a retry after a lost answer gets the same"
            " token rather than `seat-taken`."
        ),
        status_code=201,
        **token_optional(400, 401, 403, 404, 409, 413, 415, 422, 503),
    )
    async def take_seat(
        self,
        table_id: FromPath[UUID],
        seat: SeatPath,
        data: JSONBody[TakeSeat],
        caller: NamedDependency[Caller],
        service: NamedDependency[TableService],
        idempotency_key: SeatIdempotencyKey = None,
    ) -> SeatGranted:
        def allowed(table: tables.Table[Any]) -> None:
            if table.tournament is not None and (data.computer or seat in table.vacant):
                # Who sits there plays for the seat's entry, and counts in the standings:
                # the computer, or a newcomer taking over a seat its player left.
                why = "the computer" if data.computer else "a seat its player left"
                caller.require_director(table.tournament, f"{why} counts in the standings")

        name = seat_name(data.name, data.computer, seat)
        seated = await service.take_seat(
            str(table_id),
            seat,
            name,
            computer=data.computer,
            allowed=allowed,
            idempotency_key=idempotency_key,
        )
        return SeatGranted(
            table=str(table_id), seat=seat, token=seated.token, version=seated.version
        )

    @get(
        "/{table_id:uuid}",
        operation_id="getTable",
        summary="The table as the caller may see it",
        description=(
            "A seat token sees that seat's hand and legal actions; no token, a spectator's"
            " view; the operator token, and a tournament director's at its tournament's"
            " tables, everything. Send `If-None-Match` with the last ETag to get a cheap"
            " 304 while nothing changed."
        ),
        response_headers=_VIEW_HEADERS,
        **token_optional(304, 400, 401, 403, 404, 503),
    )
    async def get_table(
        self,
        access: NamedDependency[TableAccess],
        if_none_match: IfNoneMatch = None,
        wait: TableWait = None,
    ) -> Response[TableView]:
        return await table_answer(access, if_none_match, wait)

    @get(
        "/",
        operation_id="listTables",
        summary="List tables, newest first",
        description=(
            "Filter by game, status, tournament and player; page with `cursor`. A table"
            " its tournament closes to spectators (one that plays the same deals as"
            " others, until the event and the table are over) is listed only to the"
            " operator and that tournament's director."
        ),
        **token_optional(400, 401, 503),
    )
    async def list_tables(
        self,
        caller: NamedDependency[Caller],
        read_side: NamedDependency[ReadSide],
        game: Annotated[GameFilter | None, QueryParameter(name="game")] = None,
        status: Annotated[StatusFilter | None, QueryParameter(name="status")] = None,
        tournament: Annotated[
            str | None, QueryParameter(name="tournament", pattern=UUID_PATTERN)
        ] = None,
        player: Annotated[
            str | None, QueryParameter(name="player", min_length=1, max_length=40, pattern=TEXT)
        ] = None,
        cursor: Cursor = None,
        limit: PageSize = 50,
    ) -> TablePage:
        page, following = await read_side.list_tables(
            game=game,
            status=status,
            # Ids are stored lower-case; the pattern takes either case, as UUIDs are read.
            tournament=None if tournament is None else tournament.lower(),
            # Either form: a name is stored composed, but was stored as sent before 1.20.1.
            player=None if player is None else sorted({player, same_text(player)}),
            cursor=cursor,
            limit=limit,
            # An entry's token is a player's: only a director's opens his event's tables.
            sees_closed="*"
            if caller.is_operator
            else caller.tournament
            if caller.kind == "director"
            else None,
        )
        return TablePage(tables=page, next=following)

    @get(
        "/{table_id:uuid}/scoresheet",
        operation_id="getScoreSheet",
        summary="The table's score sheet: a row per deal and the running totals",
        description=(
            "Served from an asynchronous read model: `position` says how far into the"
            " store it reflects, and `sheet.version` which table version."
        ),
        **token_optional(400, 401, 403, 404, 503),
    )
    async def get_scoresheet(
        self,
        table_id: FromPath[UUID],
        caller: NamedDependency[Caller],
        service: NamedDependency[TableService],
        tournaments: NamedDependency[TournamentService],
        read_side: NamedDependency[ReadSide],
    ) -> ScoreSheetPage:
        table_key = str(table_id)
        _, loaded = await load_for_caller(caller, service, tournaments, table_key)
        table = loaded.table
        sheet, position = await read_side.scoresheet(table_key, table.game)
        return ScoreSheetPage(position=position, table_version=table.version, sheet=sheet)

    @post(
        "/{table_id:uuid}/actions",
        operation_id="postAction",
        summary="Send one command for the caller's seat",
        description=(
            "The command is one of the `legal_actions` of the seat's view (a card choice"
            " filled in with the cards picked). Answers with the new version, the events"
            " the command caused and the seat's new view."
        ),
        status_code=200,
        response_headers=PRIVATE_VIEW_HEADERS,
        **token_only(400, 401, 403, 404, 409, 412, 413, 415, 422, 503),
    )
    async def post_action(
        self,
        access: NamedDependency[TableAccess],
        data: JSONBody[Command],
        if_match: IfMatch = None,
        idempotency_key: IdempotencyKey = None,
    ) -> Response[ActionResult]:
        caller = access.caller
        answer = await access.service.act(
            access.table_key,
            caller.seat_at(access.table_key),
            data,
            if_match=strong_tags(if_match),
            idempotency_key=idempotency_key,
            epoch=caller.epoch,
        )
        return _answered(answer)

    @get(
        "/{table_id:uuid}/events",
        operation_id="listEvents",
        summary="The table's events after a version, as the caller may see them",
        response_headers=[_REVALIDATE, _VARY],
        **token_optional(400, 401, 403, 404, 503),
    )
    async def list_events(
        self, access: NamedDependency[TableAccess], after: After = 0, limit: Limit = 500
    ) -> Response[EventPage]:
        caller = access.caller
        audience = caller.audience_at(access.table_key)
        table, stored = await access.service.events(access.table_key, audience, after, limit)
        caller.require_current(table)
        await require_watchable(table, audience, access.tournaments)
        records = [_record(s.version, s.recorded_at, s.actor, e) for s, e in stored]
        page = EventPage(table=table.id, version=table.version, events=records)
        # A seat's events hold its cards: like its view, never kept by a shared cache.
        return Response(page, headers=caching_headers(audience))
