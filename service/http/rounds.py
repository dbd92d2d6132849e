"""A tournament's entries and rounds (DESIGN 14): the director enters players and pairs
rounds; a player finds his table through ``/me``."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from litestar import Controller, Response, get, post
from litestar.datastructures import State
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from domain.tournament.errors import TournamentCode, TournamentError
from domain.tournament.stream import RoundState, Tournament
from service.http import sample
from service.http.auth import Caller
from service.http.dependencies import provided
from service.http.docs import created, location, token_only, token_optional
from service.http.idempotency import EntryIdempotencyKey, PairingIdempotencyKey
from service.http.polls import PRIVATE, PUBLIC, Poll, documented, provide_poll
from service.http.round_schemas import (
    EntryCreated,
    EntryInfo,
    EntryList,
    NewEntry,
    RoundInfo,
    RoundTable,
)
from service.read.models import ReadSide
from service.read.models import Tournament as TournamentInfo
from service.write.store import TOURNAMENT_NOTICE
from service.write.tournaments import MySeat, Seated, TournamentService


@dataclass(frozen=True)
class TournamentAccess:
    """What the routes that act on a tournament are given: which tournament, who asks and
    the service that acts (as ``interventions.Target`` is for a table). Each handler checks
    the caller with its own reason. The routes anyone may read take the tournament alone
    (:func:`provide_tournament`): this identifies the caller, and would refuse a token
    they let pass."""

    tournament_id: str
    caller: Caller
    tournaments: TournamentService

    @property
    def actor(self) -> str:
        """Who a tournament event names as its cause."""
        if self.caller.kind == "entry":
            return f"entry:{self.caller.entry}"
        return self.caller.kind

    def require_director(self, why: str) -> None:
        self.caller.require_director(self.tournament_id, why)


def provide_tournament_access(
    tournament_id: FromPath[UUID], caller: NamedDependency[Caller], state: State
) -> TournamentAccess:
    # The service straight from the app's state, as ``tables.provide_table_access`` takes
    # its own: one dependency after ``caller``, not two resolved side by side.
    return TournamentAccess(str(tournament_id), caller, state.tournaments)


async def provide_tournament(tournament_id: FromPath[UUID], state: State) -> Tournament:
    """The path's tournament, folded from its stream, for the routes anyone may read."""
    tournaments: TournamentService = state.tournaments
    return await tournaments.load(str(tournament_id))


class RoundController(Controller):
    path = "/tournaments/{tournament_id:uuid}"
    tags = ("tournaments",)
    dependencies = provided(
        access=provide_tournament_access, tournament=provide_tournament, poll=provide_poll
    )

    @post(
        "/entries",
        operation_id="addEntry",
        summary="Enter a player, a partnership or the computer (director)",
        description=(
            "The answer's `token` is the entry's: it finds the entry's table each round"
            " (`/me`) and can withdraw it. A partnership's players get one each, `token`"
            " for the first named and `partner_token` for the second: each opens its own"
            " player's seat and never the partner's hand. A late entry joins the next"
            " round. Send an `Idempotency-Key`, so that a retry after a lost answer gets"
            " the same entry and tokens rather than entering the players twice."
        ),
        status_code=201,
        **token_only(400, 401, 403, 404, 409, 413, 415, 422, 503),
    )
    async def add_entry(
        self,
        access: NamedDependency[TournamentAccess],
        data: JSONBody[NewEntry],
        idempotency_key: EntryIdempotencyKey = None,
    ) -> EntryCreated:
        access.require_director("the director enters players")
        names = data.names if data.names is not None else [data.name or "Computer"]
        if data.name is not None and data.names is not None:
            raise TournamentError(TournamentCode.WRONG_ENTRY, "give `name` or `names`, not both")
        if data.name is None and data.names is None and not data.computer:
            raise TournamentError(TournamentCode.WRONG_ENTRY, "give the entry's `name`")
        entry, tokens = await access.tournaments.enter(
            access.tournament_id,
            list(names),
            data.computer,
            access.actor,
            idempotency_key=idempotency_key,
        )
        partner_token = tokens[1] if len(tokens) > 1 else None
        return EntryCreated(entry=entry, token=tokens[0], partner_token=partner_token)

    @get(
        "/entries",
        operation_id="listEntries",
        summary="The tournament's entries, in the order they entered",
        **token_optional(400, 401, 404, 503),
    )
    async def list_entries(
        self,
        caller: NamedDependency[Caller],  # asked for: an unknown token is refused (401)
        tournament: NamedDependency[Tournament],
    ) -> EntryList:
        return EntryList(
            entries=[
                EntryInfo(e.entry, list(e.names), e.computer, e.first_round, e.withdrawn)
                for e in tournament.entries.values()
            ]
        )

    @post(
        "/entries/{entry:str}/withdraw",
        operation_id="withdrawEntry",
        summary="Withdraw an entry: paired no more, its results stand (director or entry)",
        status_code=200,
        **token_only(400, 401, 403, 404, 409, 413, 415, 503),
    )
    async def withdraw_entry(
        self, access: NamedDependency[TournamentAccess], entry: FromPath[str]
    ) -> EntryInfo:
        caller = access.caller
        if not (caller.tournament == access.tournament_id and caller.entry == entry):
            access.require_director("the director or the entry itself withdraws it")
        after = await access.tournaments.withdraw(access.tournament_id, entry, access.actor)
        found = after.entries[entry]
        return EntryInfo(found.entry, list(found.names), found.computer, found.first_round, True)

    @get(
        "/me",
        operation_id="getMySeat",
        summary="Where this entry plays the current round, with the seat's token",
        description="The entry's token (or a partnership player's own) finds its table"
        " and seat in the round in play. `token` is `null` once the seat's player left it"
        " or the director handed it on (that token answers 401 from then on); `bye` is"
        " `true` when the entry sits the round out. Between rounds, send `If-None-Match`"
        " with the last `ETag` and `?wait=30`: the answer comes as soon as the next round"
        " is paired, the seat's token changes or the tournament ends (`status`"
        " `finished`: no round follows, stop asking), else a 304.",
        response_headers=documented(PRIVATE),
        **token_only(304, 400, 401, 403, 404, 503),
    )
    async def my_seat(
        self, access: NamedDependency[TournamentAccess], poll: NamedDependency[Poll]
    ) -> Response[MySeat]:
        entry = access.caller.entry_in(access.tournament_id)
        member = access.caller.member

        async def read() -> Seated:
            return await access.tournaments.seat_of(access.tournament_id, entry, member)

        return await poll.answer(read, PRIVATE, access.caller)

    @post(
        "/rounds",
        operation_id="pairRound",
        summary="Pair the next round and open its tables (director)",
        description=(
            "Send an `Idempotency-Key`, so that a retry after a lost answer gets the round"
            " it paired rather than pairing the next one (or 409 `round-in-progress`)."
        ),
        status_code=201,
        response_headers=location(f"/tournaments/{sample.TOURNAMENT}/rounds/1"),
        **token_only(400, 401, 403, 404, 409, 413, 415, 422, 503),
    )
    async def pair_round(
        self,
        access: NamedDependency[TournamentAccess],
        idempotency_key: PairingIdempotencyKey = None,
    ) -> Response[RoundInfo]:
        access.require_director("the director pairs rounds")
        paired = await access.tournaments.pair_round(
            access.tournament_id, access.actor, idempotency_key=idempotency_key
        )
        number = paired.rounds[-1].number
        return created(
            _round(paired.rounds[-1]), f"/tournaments/{access.tournament_id}/rounds/{number}"
        )

    @post(
        "/finish",
        operation_id="finishTournament",
        summary="End the tournament now and reveal its seed (director)",
        description=(
            "A tournament in rounds ends between two rounds (409 `round-in-progress`"
            " while a table of the current one plays); the rounds not yet paired are not"
            " played, and the standings stand as they are. An open tournament ends once"
            " none of its tables is still being played (409 `tables-in-play`); from then"
            " on it opens no more tables, and spectators may watch the tables that"
            " played its decks. Either way the seed is revealed, so that the event can"
            " be verified."
        ),
        status_code=200,
        **token_only(400, 401, 403, 404, 409, 413, 415, 503),
    )
    async def finish_tournament(
        self, access: NamedDependency[TournamentAccess], read_side: NamedDependency[ReadSide]
    ) -> TournamentInfo:
        access.require_director("the director ends the tournament")
        await access.tournaments.finish(access.tournament_id, access.actor)
        return await read_side.tournament(access.tournament_id)

    @get(
        "/rounds/{number:int}",
        operation_id="getRound",
        summary="One round: its tables with the entry at each seat, and its byes",
        description="Send `If-None-Match` with the last `ETag` for a 304 while the round"
        " is unchanged, and `?wait=` to hold the request until it changes (its `status`"
        " turns `finished` when its last table ends).",
        response_headers=documented(PUBLIC),
        **token_optional(304, 400, 401, 404, 503),
    )
    async def get_round(
        self,
        tournament_id: FromPath[UUID],
        number: FromPath[int],
        state: State,
        caller: NamedDependency[Caller],  # whose place a long-poll holds
        poll: NamedDependency[Poll],
    ) -> Response[RoundInfo]:
        tournaments: TournamentService = state.tournaments

        async def read() -> tuple[RoundInfo, dict[str, int]]:
            tournament = await tournaments.load(str(tournament_id))
            if not 1 <= number <= len(tournament.rounds):
                raise TournamentError(
                    TournamentCode.NO_SUCH_ROUND, f"round {number} has not been paired"
                )
            played = tournament.rounds[number - 1]
            return _round(played), {f"{TOURNAMENT_NOTICE}{tournament.id}": tournament.version}

        return await poll.answer(read, PUBLIC, caller)


def _round(played: RoundState) -> RoundInfo:
    return RoundInfo(
        round=played.number,
        status="finished" if played.complete else "playing",
        tables=[RoundTable(table=t.table, seats=list(t.seats)) for t in played.tables],
        byes=list(played.byes),
        deadline=played.deadline,
    )
