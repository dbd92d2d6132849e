"""``/tournaments``: operators open tournaments, seat named players, read the standings."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import msgspec
from litestar import Controller, get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from domain import table as tables
from domain.cards import same_cards
from domain.errors import RuleCode, RuleError
from domain.registry import GAMES
from service.http.auth import Caller
from service.http.docs import errors
from service.http.schemas import (
    CreateTournament,
    SeatToken,
    StandingsPage,
    TournamentTable,
    TournamentTableCreated,
    clock_settings,
)
from service.http.tables import game_of
from service.read.models import ReadSide, Tournament
from service.write.handler import TableService
from service.write.store import new_table_id


class TournamentController(Controller):
    path = "/tournaments"
    tags = ["tournaments"]  # noqa: RUF012  (Litestar declares it as an instance attribute)

    @post(
        "/",
        operation_id="createTournament",
        summary="Open a tournament of one game (operator only)",
        status_code=201,
        responses=errors(400, 401, 403, 413, 415, 503),
        security=[{"bearer": []}],
    )
    async def create_tournament(
        self,
        data: JSONBody[CreateTournament],
        caller: NamedDependency[Caller],
        read_side: NamedDependency[ReadSide],
    ) -> Tournament:
        caller.require_operator("tournaments are run by the operator")
        game = game_of(data)
        options: dict[str, Any] = msgspec.to_builtins(data.options)
        decks = [list(d.deck) for d in data.deals] if data.deals is not None else None
        pack = GAMES[game].pack
        for index, deck in enumerate(decks or ()):
            if not same_cards(deck, pack):
                raise RuleError(
                    RuleCode.INVALID_DECK, f"deals[{index}] is not exactly the {game} pack"
                )
        clock = clock_settings(data.clock, data.on_timeout)
        tournament_id = await read_side.create_tournament(
            data.name, game, options, decks, data.first_dealer, clock
        )
        return await read_side.tournament(tournament_id)

    @get(
        "/{tournament_id:uuid}",
        operation_id="getTournament",
        summary="A tournament and its tables",
        responses=errors(400, 401, 404, 503),
        security=[{}, {"bearer": []}],
    )
    async def get_tournament(
        self,
        tournament_id: FromPath[UUID],
        caller: NamedDependency[Caller],
        read_side: NamedDependency[ReadSide],
    ) -> Tournament:
        return await read_side.tournament(str(tournament_id))

    @post(
        "/{tournament_id:uuid}/tables",
        operation_id="createTournamentTable",
        summary="Open a tournament table with its players seated (operator only)",
        description=(
            "Seats `players` in order and starts the game. The answer carries each"
            " player's seat token, for the operator to hand out. Without `deals` (or"
            " `first_dealer`) the table takes the tournament's, so that every table plays"
            " the same deals."
        ),
        status_code=201,
        responses=errors(400, 401, 403, 404, 413, 415, 503),
        security=[{"bearer": []}],
    )
    async def create_tournament_table(
        self,
        tournament_id: FromPath[UUID],
        data: JSONBody[TournamentTable],
        caller: NamedDependency[Caller],
        read_side: NamedDependency[ReadSide],
        service: NamedDependency[TableService],
    ) -> TournamentTableCreated:
        caller.require_operator("tournaments are run by the operator")
        tournament = await read_side.tournament(str(tournament_id))
        # The table's own decks and dealer, else the tournament's (duplicate deals).
        decks = [deal.get("deck", []) for deal in data.deals] if data.deals else None
        if decks is None:
            decks = await read_side.tournament_decks(tournament.id)
        first_dealer = data.first_dealer
        if first_dealer is None:
            first_dealer = tournament.first_dealer
        created = tables.create(
            new_table_id(),
            tournament.game,
            len(data.players),
            tournament.options,
            first_dealer=first_dealer,
            decks=decks,
            tournament=tournament.id,
            clock=tournament.clock,
        )
        table, tokens = await service.create(
            created, msgspec.to_builtins(data), "operator", players=list(data.players)
        )
        seats = [
            SeatToken(seat=seat, name=name, token=token)
            for seat, (name, token) in enumerate(zip(data.players, tokens, strict=True))
        ]
        return TournamentTableCreated(table=tables.view(table, "operator"), seats=seats)

    @get(
        "/{tournament_id:uuid}/standings",
        operation_id="getStandings",
        summary="Players and partnerships ranked by games won, then points or chips",
        description=(
            "Served from an asynchronous read model: `position` says how far into the"
            " store it reflects."
        ),
        responses=errors(400, 401, 404, 503),
        security=[{}, {"bearer": []}],
    )
    async def get_standings(
        self,
        tournament_id: FromPath[UUID],
        caller: NamedDependency[Caller],
        read_side: NamedDependency[ReadSide],
    ) -> StandingsPage:
        standings, position = await read_side.standings(str(tournament_id))
        return StandingsPage(position=position, standings=standings)
