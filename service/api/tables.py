"""``/tables``: create, sit down, look, act, and read the event stream."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, cast
from uuid import UUID

import msgspec
from litestar import Controller, Response, get, post
from litestar.datastructures import ResponseHeader
from litestar.di import NamedDependency
from litestar.params import FromPath, HeaderParameter, JSONBody, QueryParameter

from domain import table as tables
from domain.events import Event
from domain.protocol import Audience
from domain.table import Table
from service.api.auth import Caller
from service.api.docs import errors
from service.api.schemas import (
    ActionResult,
    Command,
    CreateTable,
    EventPage,
    EventRecord,
    SeatGranted,
    SeatNumber,
    TableView,
    TakeSeat,
)
from service.problems import ApiProblem
from service.store import new_table_id
from service.tables import TableService, etag

IfNoneMatch = Annotated[
    str | None,
    HeaderParameter(
        name="If-None-Match",
        description="An ETag from an earlier GET: answered with 304 while it is current.",
    ),
]
IfMatch = Annotated[
    str | None,
    HeaderParameter(
        name="If-Match",
        description="The ETag of the view the command was chosen from; 412 when stale.",
    ),
]
IdempotencyKey = Annotated[
    str | None,
    HeaderParameter(
        name="Idempotency-Key",
        min_length=1,
        max_length=200,
        description="Retries with the same key and body get the first answer again.",
    ),
]
After = Annotated[
    int, QueryParameter(name="after", ge=0, le=2**31 - 1, description="Events after this version.")
]
Limit = Annotated[
    int, QueryParameter(name="limit", ge=1, le=1000, description="At most this many.")
]

_VIEW_HEADERS = [
    ResponseHeader(
        name="ETag",
        description="Strong tag of this version and audience.",
        value='"1.spectator"',
        documentation_only=True,
    ),
    ResponseHeader(
        name="Cache-Control",
        description="Revalidate before reuse.",
        value="no-cache",
        documentation_only=True,
    ),
]
_encoder = msgspec.json.Encoder()
_JSON = "application/json"


def _record(version: int, at: datetime, actor: str, event: Event) -> EventRecord:
    return EventRecord(version=version, at=at, actor=actor, event=event)


def _tags(header: str | None) -> list[str] | None:
    """The entity tags of an If-Match / If-None-Match header; weak tags keep no ``W/``."""
    if header is None:
        return None
    return [t.strip().removeprefix("W/") for t in header.split(",") if t.strip()]


def _view_response(view: Any, audience: Audience, status: int = 200) -> Response[Any]:
    tag = etag(view.version, audience)
    headers = {"ETag": tag, "Cache-Control": "no-cache", "Vary": "Authorization"}
    return Response(_encoder.encode(view), status_code=status, media_type=_JSON, headers=headers)


def game_of(body: CreateTable) -> str:
    info = msgspec.inspect.type_info(type(body))
    assert isinstance(info, msgspec.inspect.StructType)
    return str(info.tag)


class TableController(Controller):
    path = "/tables"
    tags = ["tables"]  # noqa: RUF012  (Litestar declares it as an instance attribute)

    @post(
        "/",
        operation_id="createTable",
        summary="Create a table",
        description=(
            "Opens a table of `game` with `seats` seats. `first_dealer` and `deals` (decks"
            " for the table's successive deals, top card first) need the operator token."
        ),
        status_code=201,
        responses=errors(400, 401, 403),
        security=[{}, {"bearer": []}],
    )
    async def create_table(
        self,
        data: JSONBody[CreateTable],
        caller: NamedDependency[Caller],
        service: NamedDependency[TableService],
    ) -> Response[TableView]:
        operator_only = data.first_dealer is not None or data.deals is not None
        if operator_only and not caller.is_operator:
            raise ApiProblem("operator-only", "first_dealer and deals are for the operator")
        created = tables.create(
            new_table_id(),
            game_of(data),
            data.seats,
            msgspec.to_builtins(data.options),
            first_dealer=data.first_dealer,
            decks=[d.deck for d in data.deals] if data.deals else None,
            tournament=data.tournament,
        )
        actor = "operator" if caller.is_operator else "anonymous"
        table = await service.create(created, msgspec.to_builtins(data), actor)
        audience: Audience = "operator" if caller.is_operator else "spectator"
        response = _view_response(tables.view(table, audience), audience, status=201)
        response.headers["Location"] = f"/tables/{table.id}"
        return response

    @post(
        "/{table_id:uuid}/seats/{seat:int}",
        operation_id="takeSeat",
        summary="Take a seat",
        description=(
            "Seats a player and returns the seat's bearer token. When the last seat is"
            " taken the first deal happens."
        ),
        status_code=201,
        responses=errors(400, 401, 404, 409),
    )
    async def take_seat(
        self,
        table_id: FromPath[UUID],
        seat: FromPath[SeatNumber],
        data: JSONBody[TakeSeat],
        service: NamedDependency[TableService],
    ) -> SeatGranted:
        token, table = await service.take_seat(str(table_id), seat, data.name)
        return SeatGranted(table=table.id, seat=seat, token=token, version=table.version)

    @get(
        "/{table_id:uuid}",
        operation_id="getTable",
        summary="The table as the caller may see it",
        description=(
            "A seat token sees that seat's hand and legal actions; no token, a spectator's"
            " view; the operator token, everything. Send `If-None-Match` with the last"
            " ETag to get a cheap 304 while nothing changed."
        ),
        response_headers=_VIEW_HEADERS,
        responses=errors(304, 400, 401, 403, 404),
        security=[{}, {"bearer": []}],
    )
    async def get_table(
        self,
        table_id: FromPath[UUID],
        caller: NamedDependency[Caller],
        service: NamedDependency[TableService],
        if_none_match: IfNoneMatch = None,
    ) -> Response[TableView]:
        table_key = str(table_id)
        audience = caller.audience_at(table_key)
        loaded = await service.load(table_key)
        tag = etag(loaded.table.version, audience)
        wanted = _tags(if_none_match)
        if wanted is not None and (tag in wanted or "*" in wanted):
            not_modified: Response[Any] = Response(
                None, status_code=304, headers={"ETag": tag, "Cache-Control": "no-cache"}
            )
            return not_modified
        return _view_response(tables.view(loaded.table, audience), audience)

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
        response_headers=_VIEW_HEADERS,
        responses=errors(400, 401, 403, 404, 409, 412, 422),
        security=[{"bearer": []}],
    )
    async def post_action(
        self,
        table_id: FromPath[UUID],
        data: JSONBody[Command],
        caller: NamedDependency[Caller],
        service: NamedDependency[TableService],
        if_match: IfMatch = None,
        idempotency_key: IdempotencyKey = None,
    ) -> Response[ActionResult]:
        table_key = str(table_id)
        seat = caller.seat_at(table_key)

        def render(table: Table[Any], visible: list[tuple[int, str, Event]], at: datetime) -> bytes:
            game = table.rules
            events = [_record(v, at, a, tables.redact(game, e, seat)) for v, a, e in visible]
            view = tables.view(table, seat)
            return _encoder.encode(ActionResult(version=table.version, events=events, table=view))

        status, body, tag = await service.act(
            table_key,
            seat,
            data,
            if_match=_tags(if_match),
            idempotency_key=idempotency_key,
            render=render,
        )
        headers = {"ETag": tag, "Cache-Control": "no-cache"}
        # The body is an ActionResult, encoded once so that retries get the same bytes.
        answer = cast(ActionResult, body)
        return Response(answer, status_code=status, media_type=_JSON, headers=headers)

    @get(
        "/{table_id:uuid}/events",
        operation_id="listEvents",
        summary="The table's events after a version, as the caller may see them",
        responses=errors(400, 401, 403, 404),
        security=[{}, {"bearer": []}],
    )
    async def list_events(
        self,
        table_id: FromPath[UUID],
        caller: NamedDependency[Caller],
        service: NamedDependency[TableService],
        after: After = 0,
        limit: Limit = 500,
    ) -> EventPage:
        table_key = str(table_id)
        audience = caller.audience_at(table_key)
        table, stored = await service.events(table_key, audience, after, limit)
        records = [_record(s.version, s.recorded_at, s.actor, e) for s, e in stored]
        return EventPage(table=table.id, version=table.version, events=records)
