"""The operator's hands on a table (DESIGN 10): replace a seat's player, abort, pause and
resume. Each is an event in the table's stream, re-run by the offline verifier."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any
from uuid import UUID

from litestar import Controller, Response, post
from litestar.di import NamedDependency
from litestar.params import FromPath, HeaderParameter, JSONBody

from domain import table as tables
from domain.table import Table
from service.http.auth import Caller
from service.http.conditional import strong_tags
from service.http.dependencies import provided
from service.http.docs import TOKEN_ONLY, errors
from service.http.schemas import AbortTable, ReplaceSeat, SeatHandedOver
from service.http.tables import PRIVATE_VIEW_HEADERS, SeatPath, etag_header, seat_name
from service.read.records import TableView
from service.write import interventions
from service.write.handler import TableService, etag

OperatorIfMatch = Annotated[
    str | None,
    HeaderParameter(
        name="If-Match",
        description="Optional: the ETag of the operator's view the intervention was decided"
        " on (as the view and every intervention answer it); 412 with the current ETag when the"
        " table has moved on since. Compared strongly: a weak tag (`W/`) never matches.",
    ),
]

# Every intervention answers 200 and is refused for the same reasons; pause, resume and
# abort answer with the table as the operator sees it.
_ANSWERED: dict[str, Any] = {
    "status_code": 200,
    "responses": errors(400, 401, 403, 404, 409, 412, 413, 415, 503),
}
_ANSWERS_THE_TABLE = {**_ANSWERED, "response_headers": PRIVATE_VIEW_HEADERS}
_OPERATOR_TAG = etag_header(
    "The tag of the operator's view at the version that handed the seat over:"
    " the `If-Match` of a next intervention decided on this answer.",
    "operator",
)


def _operator_view(table: Table[Any]) -> Response[TableView]:
    return Response(
        tables.view(table, "operator"),
        headers={"ETag": etag(table.version, "operator"), "Cache-Control": "private, no-cache"},
    )


@dataclass(frozen=True)
class Target:
    """What each intervention is given: the table it acts on, who asks and the service
    that acts. Each handler checks the caller with its own reason."""

    table_id: str
    caller: Caller
    service: TableService
    if_match: list[str] | None  # strong tags; None: no precondition

    async def require_in_charge(self, why: str) -> None:
        """The operator, or the director of the table's tournament (DESIGN 14: the director
        acts as the operator for that tournament only; the table records ``operator``)."""
        tournament = None
        if self.caller.kind == "director":
            tournament = (await self.service.load(self.table_id)).table.tournament
        self.caller.require_in_charge(tournament, why)


def provide_target(
    table_id: FromPath[UUID],
    caller: NamedDependency[Caller],
    service: NamedDependency[TableService],
    if_match: OperatorIfMatch = None,
) -> Target:
    return Target(str(table_id), caller, service, strong_tags(if_match))


class InterventionController(Controller):
    path = "/tables"
    tags = ("operator",)
    security = TOKEN_ONLY  # the operator's, or the director's of the table's tournament
    dependencies = provided(target=provide_target)

    @post(
        "/{table_id:uuid}/seats/{seat:int}/replace",
        operation_id="replaceSeat",
        summary="Give a seat to another player or the computer (operator, or the director)",
        description=(
            "The seat's old token stops working (401) from this version on; the answer"
            " carries the new player's token (`null` when the computer takes the seat)."
            " Works on a seat whose player is present, absent or gone."
        ),
        response_headers=[_OPERATOR_TAG],
        **_ANSWERED,
    )
    async def replace_seat(
        self, target: NamedDependency[Target], seat: SeatPath, data: JSONBody[ReplaceSeat]
    ) -> Response[SeatHandedOver]:
        await target.require_in_charge("only the operator replaces a player")
        name = seat_name(data.name, data.computer, seat)
        table, token = await interventions.replace_seat(
            target.service,
            target.table_id,
            seat,
            name,
            by_computer=data.computer,
            if_match=target.if_match,
        )
        return Response(
            SeatHandedOver(table=table.id, seat=seat, token=token, version=table.version),
            headers={"ETag": etag(table.version, "operator")},
        )

    @post(
        "/{table_id:uuid}/abort",
        operation_id="abortTable",
        summary="Stop a table for good (operator, or the director)",
        description=(
            "The table's status becomes `aborted`: it takes no further command and counts"
            " in no standings. Aborting it again is a 409 `table-aborted`."
        ),
        **_ANSWERS_THE_TABLE,
    )
    async def abort_table(
        self, target: NamedDependency[Target], data: JSONBody[AbortTable]
    ) -> Response[TableView]:
        await target.require_in_charge("only the operator aborts a table")
        return _operator_view(
            await interventions.abort(target.service, target.table_id, data.reason, target.if_match)
        )

    @post(
        "/{table_id:uuid}/pause",
        operation_id="pauseTable",
        summary="Stop the clocks and hold every command (operator, or the director)",
        description=(
            "Until `resume`, commands are refused with 409 `table-paused` and no clock"
            " runs; a turn in progress keeps the time it had left. Paused while no"
            " timekeeper runs, the running turns first get that outage back."
        ),
        **_ANSWERS_THE_TABLE,
    )
    async def pause_table(self, target: NamedDependency[Target]) -> Response[TableView]:
        await target.require_in_charge("only the operator pauses a table")
        return _operator_view(
            await interventions.pause(target.service, target.table_id, target.if_match)
        )

    @post(
        "/{table_id:uuid}/resume",
        operation_id="resumeTable",
        summary="Restart a paused table's clocks (operator, or the director)",
        description=(
            "Each running turn goes on with the time it had left. A table on the clock"
            " while no timekeeper runs: 503 `clocks-recovering`, no clock would be kept."
        ),
        **_ANSWERS_THE_TABLE,
    )
    async def resume_table(self, target: NamedDependency[Target]) -> Response[TableView]:
        await target.require_in_charge("only the operator resumes a table")
        return _operator_view(
            await interventions.resume(target.service, target.table_id, target.if_match)
        )
