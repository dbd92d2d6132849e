"""``GET /me``: who the request's bearer token speaks for, so that a client holding a
token (an app restoring a session, the console's sign-in) learns what it stands for
without trying what it may do."""

from __future__ import annotations

from litestar import Response, get
from litestar.datastructures import ResponseHeader
from litestar.di import NamedDependency

from service.http.auth import Caller
from service.http.docs import token_only
from service.http.problems import ApiProblem
from service.http.schemas import TokenHolder
from service.write.handler import TableService

# It names tables and tournaments to its bearer alone: no cache keeps it.
CACHE_CONTROL = "private, no-store"


@get(
    "/me",
    operation_id="getTokenHolder",
    summary="Who this bearer token is: the operator, a director, a seat or an entry",
    description=(
        "Answers with the token's `kind` and what it is for: a seat's table and seat, an"
        " entry's or a director's tournament. A seat token that was revoked (its player"
        " left the seat, or the operator or the director handed it on) answers 401, as"
        " it does everywhere; an unknown token, or none, 401 too."
    ),
    tags=["tokens"],
    response_headers=[
        ResponseHeader(
            name="Cache-Control",
            description="`private, no-store`: no cache keeps who a token is.",
            value=CACHE_CONTROL,
            documentation_only=True,
        )
    ],
    **token_only(400, 401, 503),
)
async def token_holder(
    caller: NamedDependency[Caller], service: NamedDependency[TableService]
) -> Response[TokenHolder]:
    if caller.kind == "anonymous":
        raise ApiProblem("unauthorized", "send a bearer token to learn who it is")
    if caller.kind == "seat" and caller.table is not None:
        caller.require_current((await service.load(caller.table)).table)
    holder = TokenHolder(caller.kind, caller.table, caller.seat, caller.tournament, caller.entry)
    return Response(holder, headers={"Cache-Control": CACHE_CONTROL})
