"""RFC 9457 problem details: every error the API returns, with a stable code and type.

One table maps causes to statuses, and the exception handlers below render every failure
as a problem: handlers raise :class:`ApiProblem`, the write path and the read side raise
the service's refusals (:mod:`service.refusals`), the rules raise
:class:`~domain.errors.RuleError`, and Litestar its own HTTP errors.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any

import msgspec
import psycopg
from litestar import Request, Response
from litestar.exceptions import HTTPException, NotFoundException, ValidationException
from litestar.types import ExceptionHandlersMap
from psycopg_pool import PoolTimeout

from domain.errors import MEANINGS, RuleCode, RuleError
from domain.tournament.errors import MEANINGS as TOURNAMENT_MEANINGS
from domain.tournament.errors import TournamentCode, TournamentError
from service.http.access import allow
from service.http.schemas import TEXT, UUID_PATTERN
from service.refusals import (
    ClocksRecovering,
    PreconditionFailed,
    ServiceError,
    UpgradeInProgress,
)
from service.write.handler import rule_error_context

PROBLEM_JSON = "application/problem+json"
PROBLEM_BASE = "https://cardroom.dev/problems/"


class Problem(msgspec.Struct, omit_defaults=True):
    """An RFC 9457 problem document; ``code`` is the stable machine-readable cause."""

    type: Annotated[str, msgspec.Meta(description=f"`{PROBLEM_BASE}` followed by the code.")]
    title: str
    status: int
    code: Annotated[
        str,
        msgspec.Meta(
            description="The stable cause, e.g. `not-your-turn`. Every code, its status and"
            " its meaning are listed under *Problem types* in the API description."
        ),
    ]
    detail: Annotated[str | None, msgspec.Meta(description="This occurrence, in words.")] = None
    instance: Annotated[str | None, msgspec.Meta(description="The request path.")] = None
    errors: Annotated[
        list[dict[str, Any]] | None,
        msgspec.Meta(description="For malformed requests: each failed field and why."),
    ] = None
    context: Annotated[
        dict[str, Any] | None,
        msgspec.Meta(description="Facts of the refusal, e.g. the seat to act or the high bid."),
    ] = None


class ProblemType(msgspec.Struct, frozen=True):
    status: int
    title: str
    meaning: str


# Service-level causes. Rule causes come from domain.errors and share this catalogue.
SERVICE_PROBLEMS: dict[str, ProblemType] = {
    "malformed-request": ProblemType(
        400, "Malformed request", "The body, a parameter or a header does not match the API."
    ),
    "unauthorized": ProblemType(
        401, "Unauthorized", "A bearer token is required, or the one sent is not valid."
    ),
    "wrong-seat": ProblemType(
        403, "Wrong seat", "The token is valid but does not belong to a seat at this table."
    ),
    "operator-only": ProblemType(
        403, "Operator only", "Only the operator token may do or ask for this."
    ),
    "entry-only": ProblemType(
        403,
        "Entry only",
        "Only an entry's own token (an entrant's, or a partnership player's) may ask for this.",
    ),
    "not-found": ProblemType(404, "Not found", "No such resource or route."),
    "table-not-found": ProblemType(404, "Table not found", "No table has that id."),
    "tournament-not-found": ProblemType(404, "Tournament not found", "No tournament has that id."),
    "game-not-found": ProblemType(
        404, "Game not found", "No game has that id; `GET /games` lists them."
    ),
    "version-not-found": ProblemType(
        404, "Version not found", "The table has not reached that version (yet)."
    ),
    "method-not-allowed": ProblemType(
        405, "Method not allowed", "The route exists; the method not."
    ),
    "method-not-implemented": ProblemType(
        501,
        "Method not implemented",
        "The request's method is none this server knows (`GET`, `POST`, `DELETE`, ...;"
        " methods are case-sensitive); the connection is closed.",
    ),
    "request-timeout": ProblemType(
        408,
        "Request timeout",
        "The request's body did not arrive in time (30 s); the connection is closed.",
    ),
    "version-conflict": ProblemType(
        409,
        "Version conflict",
        "Another command was recorded first; read the table again and retry.",
    ),
    "precondition-failed": ProblemType(
        412, "Precondition failed", "If-Match names a version of the table that is not current."
    ),
    "payload-too-large": ProblemType(
        413, "Payload too large", "The body is over 1 MiB; no operation takes one that large."
    ),
    "unsupported-media-type": ProblemType(
        415,
        "Unsupported media type",
        "A body must be sent as `Content-Type: application/json` (UTF-8).",
    ),
    "idempotency-key-reused": ProblemType(
        422,
        "Idempotency key reused",
        "The Idempotency-Key was already used with a different request body.",
    ),
    "rate-limited": ProblemType(
        429,
        "Rate limited",
        "Too many requests from this token or client address (or tables created from"
        " this address); retry after `Retry-After` seconds. The `RateLimit-*` fields say"
        " what is left.",
    ),
    "headers-too-large": ProblemType(
        431,
        "Request header fields too large",
        "The request line and headers are over 16 KiB together; the connection is closed.",
    ),
    "uri-too-long": ProblemType(
        414,
        "URI too long",
        "The request line alone is over 16 KiB (no path or query of this API comes near);"
        " the connection is closed.",
    ),
    "internal-error": ProblemType(500, "Internal error", "Something failed on our side."),
    "database-unavailable": ProblemType(
        503,
        "Database unavailable",
        "The database is not reachable or did not answer in time; retry after"
        " `Retry-After` seconds.",
    ),
    "server-stopping": ProblemType(
        503,
        "Server stopping",
        "The server process is stopping and its grace period ended before the request was"
        " answered; send it again (another process answers it). A command may have been"
        " recorded: resend it with the same `Idempotency-Key`.",
    ),
    "too-many-bodies": ProblemType(
        503,
        "Too many bodies at once",
        "This server process is receiving as many request bodies from this client address"
        " as it takes at once (16 by default); the request was not read. Send it again"
        " after `Retry-After` seconds, once one of the others is through.",
    ),
    "server-busy": ProblemType(
        503,
        "Server busy",
        "This process holds as many long-polls and streams as it may; retry after"
        " `Retry-After` seconds (another process may answer).",
    ),
    "upgrade-in-progress": ProblemType(
        503,
        "Upgrade in progress",
        "The service is being upgraded and the process that answered is older than the"
        " table or the tournament (a newer release created it): it changes nothing. Retry"
        " after `Retry-After` seconds; a newer process answers.",
    ),
    "clocks-recovering": ProblemType(
        503,
        "Clocks recovering",
        "The service is back from an outage and is giving every running turn the time it"
        " was down: a move in a turn on the clock waits for that. After `Retry-After` seconds"
        " read the table again (giving the time back moves its version) and send the move."
        " An operator's resume of a table on the clock waits for it too: no clock runs until"
        " a timekeeper does.",
    ),
}

_RULE_STATUS: dict[RuleCode, int] = {
    RuleCode.INVALID_OPTIONS: 400,
    RuleCode.INVALID_DECK: 400,
    RuleCode.NO_SUCH_SEAT: 404,
}

RULE_PROBLEMS: dict[str, ProblemType] = {
    code.value: ProblemType(
        _RULE_STATUS.get(code, 409), code.value.replace("-", " ").capitalize(), MEANINGS[code]
    )
    for code in RuleCode
}

_TOURNAMENT_STATUS: dict[TournamentCode, int] = {
    TournamentCode.FORMAT_DOES_NOT_FIT: 400,
    # The body is well-formed but not what this tournament takes (one name, or two).
    TournamentCode.WRONG_ENTRY: 422,
    TournamentCode.NO_SUCH_ENTRY: 404,
    TournamentCode.NO_SUCH_ROUND: 404,
}

TOURNAMENT_PROBLEMS: dict[str, ProblemType] = {
    code.value: ProblemType(
        _TOURNAMENT_STATUS.get(code, 409),
        code.value.replace("-", " ").capitalize(),
        TOURNAMENT_MEANINGS[code],
    )
    for code in TournamentCode
}

CATALOGUE: dict[str, ProblemType] = {**SERVICE_PROBLEMS, **RULE_PROBLEMS, **TOURNAMENT_PROBLEMS}


class ApiProblem(Exception):
    def __init__(
        self,
        code: str,
        detail: str | None = None,
        *,
        headers: dict[str, str] | None = None,
        **context: Any,
    ) -> None:
        super().__init__(detail or code)
        self.code = code
        self.detail = detail
        self.headers = headers or {}
        self.context = context or None

    @property
    def status(self) -> int:
        return CATALOGUE[self.code].status


def problem(
    code: str,
    detail: str | None = None,
    *,
    instance: str | None = None,
    errors: list[dict[str, Any]] | None = None,
    context: dict[str, Any] | None = None,
) -> Problem:
    kind = CATALOGUE[code]
    return Problem(
        type=PROBLEM_BASE + code,
        title=kind.title,
        status=kind.status,
        code=code,
        detail=detail,
        instance=instance,
        errors=errors,
        context=context,
    )


# --- rendering ----------------------------------------------------------------------

log = logging.getLogger("cardroom")


def _problem_response(
    request: Request[Any, Any, Any],
    code: str,
    detail: str | None,
    *,
    headers: dict[str, str] | None = None,
    errors: list[dict[str, Any]] | None = None,
    context: dict[str, Any] | None = None,
) -> Response[Any]:
    body = problem(code, detail, instance=request.url.path, errors=errors, context=context)
    if body.status == 401:
        headers = {**(headers or {}), "WWW-Authenticate": challenge(request)}
    return Response(body, status_code=body.status, media_type=PROBLEM_JSON, headers=headers)


def challenge(request: Request[Any, Any, Any]) -> str:
    """A 401's ``WWW-Authenticate`` (RFC 6750): the scheme to use, and whether the token
    sent was refused rather than missing."""
    if "authorization" in request.headers:
        return 'Bearer realm="cardroom", error="invalid_token"'
    return 'Bearer realm="cardroom"'


def on_api_problem(request: Request[Any, Any, Any], exc: ApiProblem) -> Response[Any]:
    return _problem_response(
        request, exc.code, exc.detail, headers=exc.headers, context=exc.context
    )


def on_service_error(request: Request[Any, Any, Any], exc: ServiceError) -> Response[Any]:
    headers = None
    if isinstance(exc, PreconditionFailed):
        headers = {"ETag": exc.etag}
    elif isinstance(exc, ClocksRecovering | UpgradeInProgress):
        headers = {"Retry-After": "1"}
    return _problem_response(
        request, exc.code, exc.detail, headers=headers, context=exc.context or None
    )


def on_rule_error(request: Request[Any, Any, Any], exc: RuleError) -> Response[Any]:
    return _problem_response(request, exc.code.value, exc.message, context=rule_error_context(exc))


def on_tournament_error(request: Request[Any, Any, Any], exc: TournamentError) -> Response[Any]:
    return _problem_response(request, exc.code.value, exc.message, context=exc.context or None)


_HTTP_CODES = {
    400: "malformed-request",
    401: "unauthorized",
    404: "not-found",
    405: "method-not-allowed",
    413: "payload-too-large",
    415: "unsupported-media-type",
}


# Body validation names the offending field; table settings get their own codes.
_FIELD_CODES = {
    "options": "invalid-options",
    "seats": "invalid-options",
    "first_dealer": "invalid-options",
    "deals": "invalid-deck",
}


def _validation_code(errors: list[dict[str, Any]]) -> str | None:
    for error in errors:
        key = str(error.get("key", ""))
        message = str(error.get("message", ""))
        for field, code in _FIELD_CODES.items():
            if key.split(".")[0].split("[")[0] == field or f"`$.{field}" in message:
                return code
    return None


def client_gone() -> Response[Any]:
    """What a request whose client hung up ends with: a long-poll's, or one whose client
    left while sending its body. Nobody receives it (uvicorn writes nothing to a lost
    connection); the access log and the request metrics record it under nginx's "client
    closed request", not as the service's error."""
    return Response(None, status_code=499)


# Litestar's word for a body whose client left before sending all of it, raised as a 500.
_LEFT_MID_BODY = "client disconnected prematurely"


# What the API's patterns mean, said in words where the validator would quote the pattern.
_PATTERNS_IN_WORDS = {
    TEXT: "visible text: no control, bidi, zero-width or other invisible character, no"
    " space first or last, and no variation selector first",
    UUID_PATTERN: "a UUID (8-4-4-4-12 hexadecimal digits)",
}


def _in_words(message: Any) -> Any:
    if not isinstance(message, str):
        return message
    for pattern, words in _PATTERNS_IN_WORDS.items():
        message = message.replace(f"`str` matching regex {pattern!r}", words)
    return message


def _header_name(parameter: str) -> str:
    """A header parameter's name on the wire (``idempotency_key`` is ``Idempotency-Key``),
    the name a client knows it by, where Litestar reports the handler's parameter."""
    return "-".join(w.upper() if w == "id" else w.capitalize() for w in parameter.split("_"))


def _reported(error: dict[str, Any]) -> dict[str, Any]:
    """A validation error as the client is told it: the message in words, a header by
    its own name."""
    error = {**error, "message": _in_words(error.get("message"))}
    if error.get("source") == "header" and isinstance(error.get("key"), str):
        error["key"] = _header_name(error["key"])
    return error


def on_http_exception(request: Request[Any, Any, Any], exc: HTTPException) -> Response[Any]:
    if exc.status_code == 500 and exc.detail == _LEFT_MID_BODY:
        return client_gone()
    errors = None
    code = None
    if isinstance(exc, ValidationException) and isinstance(exc.extra, list):
        errors = [_reported(e) for e in exc.extra if isinstance(e, dict)]
        code = _validation_code(errors)
    code = code or _HTTP_CODES.get(exc.status_code)
    detail = exc.detail
    if errors:
        # The generic "Validation failed" says less than the first error it carries.
        first = errors[0]
        where = first.get("key")
        detail = f"{where}: {first.get('message')}" if where else str(first.get("message"))
    if code is None:
        code = "internal-error" if exc.status_code >= 500 else "malformed-request"
    if isinstance(exc, NotFoundException):
        detail = "no such route"
    headers = dict(exc.headers or {})
    methods = headers.pop("allow", None) or headers.pop("Allow", None)
    if methods is not None:  # a 405: HEAD is answered wherever GET is
        headers["Allow"] = allow(m.strip() for m in methods.split(","))
    return _problem_response(request, code, detail, headers=headers, errors=errors)


def on_unavailable(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    log.warning("database unavailable: %s", exc)
    return _problem_response(
        request,
        "database-unavailable",
        "the database is not reachable",
        headers={"Retry-After": "1"},
    )


def on_unexpected(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    log.exception("unhandled error on %s %s", request.method, request.url.path)
    return _problem_response(request, "internal-error", "unexpected error")


EXCEPTION_HANDLERS: ExceptionHandlersMap = {
    ApiProblem: on_api_problem,
    ServiceError: on_service_error,
    RuleError: on_rule_error,
    TournamentError: on_tournament_error,
    HTTPException: on_http_exception,
    PoolTimeout: on_unavailable,
    psycopg.OperationalError: on_unavailable,
    Exception: on_unexpected,
}
