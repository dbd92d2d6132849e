"""A tournament's entries and rounds (DESIGN 14): the director enters players and pairs
rounds; a player finds his table through ``/me``."""

from __future__ import annotations

from uuid import UUID

from litestar import Controller, get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from domain.tournament.errors import TournamentCode, TournamentError
from domain.tournament.stream import RoundState
from service.http.auth import Caller
from service.http.docs import token_only, token_optional
from service.http.round_schemas import (
    EntryCreated,
    EntryInfo,
    EntryList,
    NewEntry,
    RoundInfo,
    RoundTable,
)
from service.write.tournaments import MySeat, TournamentService


class RoundController(Controller):
    path = "/tournaments/{tournament_id:uuid}"
    tags = ("tournaments",)

    @post(
        "/entries",
        operation_id="addEntry",
        summary="Enter a player, a partnership or the computer (director)",
        description=(
            "The answer's `token` is the entry's: it finds the entry's table each round"
            " (`/me`) and can withdraw it. A late entry joins the next round."
        ),
        status_code=201,
        **token_only(400, 401, 403, 404, 409, 413, 415, 422, 503),
    )
    async def add_entry(
        self,
        tournament_id: FromPath[UUID],
        data: JSONBody[NewEntry],
        caller: NamedDependency[Caller],
        tournaments: NamedDependency[TournamentService],
    ) -> EntryCreated:
        caller.require_director(str(tournament_id), "the director enters players")
        names = data.names if data.names is not None else [data.name or "Computer"]
        if data.name is not None and data.names is not None:
            raise TournamentError(TournamentCode.WRONG_ENTRY, "give `name` or `names`, not both")
        if data.name is None and data.names is None and not data.computer:
            raise TournamentError(TournamentCode.WRONG_ENTRY, "give the entry's `name`")
        entry, token = await tournaments.enter(
            str(tournament_id), list(names), data.computer, _actor(caller)
        )
        return EntryCreated(entry=entry, token=token)

    @get(
        "/entries",
        operation_id="listEntries",
        summary="The tournament's entries, in the order they entered",
        **token_optional(400, 401, 404, 503),
    )
    async def list_entries(
        self, tournament_id: FromPath[UUID], tournaments: NamedDependency[TournamentService]
    ) -> EntryList:
        tournament = await tournaments.load(str(tournament_id))
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
        **token_only(400, 401, 403, 404, 409, 503),
    )
    async def withdraw_entry(
        self,
        tournament_id: FromPath[UUID],
        entry: FromPath[str],
        caller: NamedDependency[Caller],
        tournaments: NamedDependency[TournamentService],
    ) -> EntryInfo:
        if caller.kind != "entry":
            caller.require_director(str(tournament_id), "the director or the entry withdraws")
        elif caller.entry_in(str(tournament_id)) != entry:
            caller.require_director(str(tournament_id), "an entry withdraws only itself")
        after = await tournaments.withdraw(str(tournament_id), entry, _actor(caller))
        found = after.entries[entry]
        return EntryInfo(found.entry, list(found.names), found.computer, found.first_round, True)

    @get(
        "/me",
        operation_id="getMySeat",
        summary="Where this entry plays the current round, with the seat's token",
        **token_only(400, 401, 403, 404, 503),
    )
    async def my_seat(
        self,
        tournament_id: FromPath[UUID],
        caller: NamedDependency[Caller],
        tournaments: NamedDependency[TournamentService],
    ) -> MySeat:
        entry = caller.entry_in(str(tournament_id))
        return await tournaments.seat_of(str(tournament_id), entry)

    @post(
        "/rounds",
        operation_id="pairRound",
        summary="Pair the next round and open its tables (director)",
        status_code=201,
        **token_only(400, 401, 403, 404, 409, 503),
    )
    async def pair_round(
        self,
        tournament_id: FromPath[UUID],
        caller: NamedDependency[Caller],
        tournaments: NamedDependency[TournamentService],
    ) -> RoundInfo:
        caller.require_director(str(tournament_id), "the director pairs rounds")
        paired = await tournaments.pair_round(str(tournament_id), _actor(caller))
        return _round(paired.rounds[-1])

    @get(
        "/rounds/{number:int}",
        operation_id="getRound",
        summary="One round: its tables with the entry at each seat, and its byes",
        **token_optional(400, 401, 404, 503),
    )
    async def get_round(
        self,
        tournament_id: FromPath[UUID],
        number: FromPath[int],
        tournaments: NamedDependency[TournamentService],
    ) -> RoundInfo:
        tournament = await tournaments.load(str(tournament_id))
        if not 1 <= number <= len(tournament.rounds):
            raise TournamentError(
                TournamentCode.NO_SUCH_ROUND, f"round {number} has not been paired"
            )
        return _round(tournament.rounds[number - 1])


def _round(played: RoundState) -> RoundInfo:
    return RoundInfo(
        round=played.number,
        status="finished" if played.complete else "playing",
        tables=[RoundTable(table=t.table, seats=list(t.seats)) for t in played.tables],
        byes=list(played.byes),
        deadline=played.deadline,
    )


def _actor(caller: Caller) -> str:
    """Who a tournament event names as its cause."""
    if caller.kind == "entry":
        return f"entry:{caller.entry}"
    return caller.kind
