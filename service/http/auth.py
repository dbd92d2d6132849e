"""Who is calling: the operator, a seated player, or an anonymous spectator."""

from __future__ import annotations

import hmac
from typing import Annotated, Any, Literal

import msgspec
from litestar import Request
from litestar.params import HeaderParameter

from domain.protocol import Audience
from domain.table import Table
from service.http.problems import ApiProblem
from service.logs import current_request
from service.read.loads import Batched
from service.write.handler import token_digest
from service.write.store import EventStore
from service.write.tournament_store import TournamentStore


class Caller(msgspec.Struct, frozen=True):
    kind: Literal["operator", "seat", "anonymous", "director", "entry"]
    table: str | None = None
    seat: int | None = None
    epoch: int | None = None  # the seat's epoch the token was issued for (DESIGN 10)
    tournament: str | None = None  # a director's or an entry's tournament (DESIGN 14)
    entry: str | None = None
    member: int | None = None  # which player of a partnership entry the token is

    @property
    def is_operator(self) -> bool:
        return self.kind == "operator"

    def require_operator(self, why: str) -> None:
        """401 without a token, 403 with a token that is not the operator's."""
        if self.kind == "anonymous":
            raise ApiProblem("unauthorized", f"{why}: send the operator token")
        if self.kind != "operator":
            raise ApiProblem("operator-only", why)

    def require_director(self, tournament_id: str, why: str) -> None:
        """The operator, or the director of this very tournament."""
        if self.kind == "director" and self.tournament == tournament_id:
            return
        if self.kind == "director":
            raise ApiProblem("operator-only", f"{why}: this director token is another tournament's")
        self.require_operator(why)

    def require_in_charge(self, tournament_id: str | None, why: str) -> None:
        """The operator, or the director of ``tournament_id`` (a table's tournament: the
        director acts as the operator for that tournament only, DESIGN 14)."""
        if self.kind == "director" and tournament_id is not None:
            self.require_director(tournament_id, why)
        else:
            self.require_operator(why)

    def entry_in(self, tournament_id: str) -> str:
        """The entry this caller's token stands for in ``tournament_id``."""
        if self.kind == "anonymous":
            raise ApiProblem("unauthorized", "send the entry's bearer token")
        if self.kind != "entry" or self.tournament != tournament_id or self.entry is None:
            raise ApiProblem("entry-only", "this is the entry's own: send its token")
        return self.entry

    def audience_at(self, table_id: str) -> Audience:
        """What this caller may see of ``table_id``; a seat of another table may not look."""
        if self.kind == "operator":
            return "operator"
        if self.kind == "director":
            # The director is the operator of its own tournament's tables (DESIGN 14).
            # Which tournament a table is in is known once it is read: require_current.
            return "operator"
        if self.kind == "anonymous":
            return "spectator"
        if self.table != table_id or self.seat is None:
            raise ApiProblem("wrong-seat", "this token belongs to another table")
        return self.seat

    def revoked_by(self, table: Table[Any]) -> bool:
        """A seat token is good while its seat is in the epoch it was issued for: leaving
        the seat or being replaced revokes it (DESIGN 10)."""
        seat = self.seat
        return self.kind == "seat" and seat is not None and table.epoch(seat) != self.epoch

    def require_current(self, table: Table[Any]) -> None:
        """The caller may see ``table`` as it is now: a seat token not revoked, a director
        token at its own tournament's table (403 at any other)."""
        if self.kind == "director" and table.tournament != self.tournament:
            raise ApiProblem("operator-only", "this director token is another tournament's")
        if self.revoked_by(table):
            raise ApiProblem("unauthorized", "this seat's token was revoked")

    def seat_at(self, table_id: str) -> int:
        """The seat this caller plays at ``table_id``; only seat tokens act."""
        if self.kind == "anonymous":
            raise ApiProblem("unauthorized", "send the seat's bearer token")
        if self.kind == "operator":
            raise ApiProblem("wrong-seat", "the operator does not play; use a seat token")
        if self.table != table_id or self.seat is None:
            raise ApiProblem("wrong-seat", "this token belongs to another table")
        return self.seat


def bearer_token(authorization: str) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header; None for any other form."""
    scheme, _, token = authorization.partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


class Authenticator:
    """Resolves bearer tokens; a token's table, seat and epoch never change, so their
    lookups are cached. Whether the epoch is still the seat's is the table's to say, and
    every request reads the table as committed (a revoked token fails in every process)."""

    def __init__(
        self,
        store: EventStore,
        operator_token: str,
        cache_size: int = 100_000,
        tournaments: TournamentStore | None = None,
    ) -> None:
        self.tournaments = tournaments
        self.operator_token = operator_token.encode()
        self.cache: dict[bytes, tuple[str, int, int]] = {}
        # A burst of players new to this process (a round's tables opening, a restart)
        # brings their tokens at once: their lookups share statements, two at a time at
        # most, so that a burst leaves the pool's other connections to the reads.
        self.lookups = Batched(store.seats_for_tokens, "cardroom-tokens", in_flight=2)
        self.cache_size = cache_size

    def known(self, authorization: str) -> Caller | None:
        """The caller of a token this process already knows (the operator's, or a seat's
        it has looked up before), without asking the database; None otherwise."""
        token = bearer_token(authorization)
        if token is None:
            return None
        if hmac.compare_digest(token.encode(), self.operator_token):
            return Caller("operator")
        found = self.cache.get(token_digest(token))
        return None if found is None else Caller("seat", found[0], found[1], found[2])

    async def identify(self, authorization: str | None) -> Caller:
        if authorization is None:
            return Caller("anonymous")
        token = bearer_token(authorization)
        if token is None:
            raise ApiProblem("unauthorized", "use 'Authorization: Bearer <token>'")
        if hmac.compare_digest(token.encode(), self.operator_token):
            return Caller("operator")
        digest = token_digest(token)
        found = self.cache.get(digest)
        if found is None:
            found = await self.lookups.get(digest)
            if found is None:
                return await self._tournament_caller(digest)
            if len(self.cache) >= self.cache_size:
                self.cache.clear()
            self.cache[digest] = found
        return Caller("seat", table=found[0], seat=found[1], epoch=found[2])

    async def _tournament_caller(self, digest: bytes) -> Caller:
        """A director's or an entry's token (DESIGN 14), or a 401."""
        found = None if self.tournaments is None else await self.tournaments.token(digest)
        if found is None:
            raise ApiProblem("unauthorized", "unknown token")
        tournament, entry = found
        if entry is None:
            return Caller("director", tournament=tournament)
        return Caller("entry", tournament=tournament, entry=entry.entry, member=entry.member)


CALLER = "cardroom.caller"  # where the rate limit leaves the caller it identified


async def provide_caller(
    request: Request[Any, Any, Any],
    authorization: Annotated[
        str | None, HeaderParameter(name="Authorization", include_in_schema=False)
    ] = None,
) -> Caller:
    return await caller_of(request.scope["state"], request.app.state.auth, authorization)


async def caller_of(
    request_state: dict[str, Any], auth: Authenticator, authorization: str | None
) -> Caller:
    """Who sends the request: the rate limit's finding if it made one, else the token's."""
    known: Caller | None = request_state.get(CALLER)
    if known is not None:
        return known
    caller = await auth.identify(authorization)
    if caller.seat is not None and (note := current_request()) is not None:
        note.seat, note.seat_table = caller.seat, caller.table  # for the request's log line
    return caller
