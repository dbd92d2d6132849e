"""The service's refusals, each with the stable code of its problem type.

The write path and the read side raise these; only the HTTP layer knows how a refusal is
answered (``service.http.problems`` maps each to an RFC 9457 problem with its status).
"""

from __future__ import annotations

from typing import Any, ClassVar


class ServiceError(Exception):
    code: ClassVar[str]

    def __init__(self, detail: str, **context: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.context = context


class TableNotFound(ServiceError):
    code = "table-not-found"


class TournamentNotFound(ServiceError):
    code = "tournament-not-found"


class CommandConflict(ServiceError):
    """Other commands were recorded first, beyond what a retry resolves."""

    code = "version-conflict"


class PreconditionFailed(ServiceError):
    """``If-Match`` names a version that is not current; ``etag`` is the current one."""

    code = "precondition-failed"

    def __init__(self, detail: str, *, etag: str, **context: Any) -> None:
        super().__init__(detail, **context)
        self.etag = etag


class ClocksRecovering(ServiceError):
    """A move after its seat's deadline while no timekeeper has run for longer than a
    handover takes: the service is back from an outage, and the time it was down is
    about to be given back to every running turn (DESIGN 10). Retry in a second."""

    code = "clocks-recovering"


class UpgradeInProgress(ServiceError):
    """The table was created under a newer rules engine than this process knows, or the
    tournament under newer pairing rules: during a rolling upgrade an older process
    answered. Deciding by its older rules would record events that the table's or the
    tournament's own rules do not give (and that ``cardroom verify`` fails), so it decides
    nothing; a newer process will. Retry in a second."""

    code = "upgrade-in-progress"


class IdempotencyKeyReused(ServiceError):
    code = "idempotency-key-reused"


class TokenRevoked(ServiceError):
    """The seat was left or given to another player since this token was issued."""

    code = "unauthorized"
