"""RFC 9457 problem details: every error the API returns, with a stable code and type.

One table maps causes to statuses; handlers raise :class:`ApiProblem` (or let a domain
:class:`~domain.errors.RuleError` through) and :mod:`service.http.app` renders them.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from domain.errors import MEANINGS, RuleCode

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
    "not-found": ProblemType(404, "Not found", "No such resource or route."),
    "table-not-found": ProblemType(404, "Table not found", "No table has that id."),
    "tournament-not-found": ProblemType(404, "Tournament not found", "No tournament has that id."),
    "version-not-found": ProblemType(
        404, "Version not found", "The table has not reached that version (yet)."
    ),
    "method-not-allowed": ProblemType(
        405, "Method not allowed", "The route exists; the method not."
    ),
    "version-conflict": ProblemType(
        409,
        "Version conflict",
        "Another command was recorded first; read the table again and retry.",
    ),
    "precondition-failed": ProblemType(
        412, "Precondition failed", "If-Match names a version of the table that is not current."
    ),
    "idempotency-key-reused": ProblemType(
        422,
        "Idempotency key reused",
        "The Idempotency-Key was already used with a different request body.",
    ),
    "internal-error": ProblemType(500, "Internal error", "Something failed on our side."),
    "unavailable": ProblemType(503, "Unavailable", "A dependency (the database) is not reachable."),
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

CATALOGUE: dict[str, ProblemType] = {**SERVICE_PROBLEMS, **RULE_PROBLEMS}


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
