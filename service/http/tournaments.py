"""``/tournaments``: operators open tournaments, seat named players, read the standings."""

from __future__ import annotations

import csv
import io
from typing import Annotated, Any, Literal
from uuid import UUID

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.datastructures import ResponseHeader
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody, QueryParameter

from domain import table as tables
from domain.cards import same_cards
from domain.errors import RuleCode, RuleError
from domain.registry import GAMES
from domain.tournament import stream
from domain.tournament.model import Format
from domain.tournament.standings import Placing
from domain.tournament.stream import Tournament as TournamentStream
from projections.standings import Standings
from service.http import sample
from service.http.auth import Caller
from service.http.docs import created, location, token_only, token_optional
from service.http.idempotency import TableIdempotencyKey, TournamentIdempotencyKey
from service.http.round_schemas import TournamentOpened, TournamentPage
from service.http.schemas import (
    CreateTournament,
    EntryStanding,
    RoundLine,
    SeatToken,
    StandingsPage,
    TournamentTable,
    TournamentTableCreated,
    clock_settings,
)
from service.http.tables import Cursor, GameFilter, PageSize, game_of
from service.read.models import ReadSide, Tournament
from service.write.store import new_table_id
from service.write.tournaments import TournamentService

JSON = "application/json"
CSV = "text/csv"


class TournamentController(Controller):
    path = "/tournaments"
    tags = ("tournaments",)

    @post(
        "/",
        operation_id="createTournament",
        summary="Open a tournament of one game (operator only)",
        status_code=201,
        response_headers=location(f"/tournaments/{sample.TOURNAMENT}"),
        **token_only(400, 401, 403, 413, 415, 422, 503),
    )
    async def create_tournament(
        self,
        data: JSONBody[CreateTournament],
        caller: NamedDependency[Caller],
        read_side: NamedDependency[ReadSide],
        tournaments: NamedDependency[TournamentService],
        idempotency_key: TournamentIdempotencyKey = None,
    ) -> Response[TournamentOpened]:
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
        terms = stream.Terms(
            name=data.name,
            game=game,
            format=Format(data.format),
            entry=data.entry,
            seats=data.seats or GAMES[game].min_seats,
            options=options,
            rounds=data.rounds,
            clock=clock_settings(data.clock, data.on_timeout),
            round_minutes=data.round_minutes,
            auto_rounds=data.auto_rounds,
        )
        tournament_id, director = await tournaments.create(
            terms,
            decks=decks,
            first_dealer=data.first_dealer,
            # The duplicate decks are future deals: they stay out of the recorded command.
            command={k: v for k, v in msgspec.to_builtins(data).items() if k != "deals"},
            idempotency_key=idempotency_key,
        )
        # As opened, so that a retry with the request's key gets this very answer again.
        tournament = await read_side.tournament(tournament_id, as_opened=True)
        opened = TournamentOpened(**msgspec.structs.asdict(tournament), director_token=director)
        return created(opened, f"/tournaments/{tournament_id}")

    @get(
        "/",
        operation_id="listTournaments",
        summary="List tournaments, newest first",
        description="Filter by game, status and format; page with `cursor`.",
        **token_optional(400, 401, 503),
    )
    async def list_tournaments(
        self,
        caller: NamedDependency[Caller],  # asked for: an unknown token is refused (401)
        read_side: NamedDependency[ReadSide],
        game: Annotated[GameFilter | None, QueryParameter(name="game")] = None,
        status: Annotated[
            Literal["open", "playing", "finished"] | None, QueryParameter(name="status")
        ] = None,
        format: Annotated[
            Literal["open", "swiss", "round-robin", "progressive", "duplicate"] | None,
            QueryParameter(name="format"),
        ] = None,
        cursor: Cursor = None,
        limit: PageSize = 50,
    ) -> TournamentPage:
        page, following = await read_side.list_tournaments(
            game=game, status=status, format=format, cursor=cursor, limit=limit
        )
        return TournamentPage(tournaments=page, next=following)

    @get(
        "/{tournament_id:uuid}",
        operation_id="getTournament",
        summary="A tournament and its tables",
        **token_optional(400, 401, 404, 503),
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
        summary="Open a tournament table with its players seated (operator, or the director)",
        description=(
            "Seats `players` in order and starts the game. The answer carries each"
            " player's seat token, to hand out. The tournament's director may open its"
            " tables, as the operator may; another tournament's director may not (403)."
            " Without `deals` (or"
            " `first_dealer`) the table takes the tournament's, so that every table plays"
            " the same deals. Send an `Idempotency-Key`, so that a retry after a lost"
            " answer gets the same table and tokens rather than opening a second table."
        ),
        status_code=201,
        response_headers=location(f"/tables/{sample.TABLE}"),
        **token_only(400, 401, 403, 404, 409, 413, 415, 422, 503),
    )
    async def create_tournament_table(
        self,
        tournament_id: FromPath[UUID],
        data: JSONBody[TournamentTable],
        caller: NamedDependency[Caller],
        read_side: NamedDependency[ReadSide],
        tournaments: NamedDependency[TournamentService],
        idempotency_key: TableIdempotencyKey = None,
    ) -> Response[TournamentTableCreated]:
        # The director acts as the operator for its own tournament (DESIGN 14).
        caller.require_director(
            str(tournament_id), "a tournament's tables are opened by its director"
        )
        tournament = await read_side.tournament(str(tournament_id))
        # A finished tournament opens no table: its stream refuses it as the table's first
        # commit is made, after a retry of an earlier request has had its first answer.
        # The table's own decks and dealer, else the tournament's (duplicate deals).
        decks = [deal.deck for deal in data.deals] if data.deals else None
        if decks is None:
            decks = await read_side.tournament_decks(tournament.id)
        first_dealer = data.first_dealer
        if first_dealer is None:
            first_dealer = tournament.first_dealer
        new = tables.create(
            new_table_id(),
            tournament.game,
            len(data.players),
            tournament.options,
            first_dealer=first_dealer,
            decks=decks,
            tournament=tournament.id,
            clock=tournament.clock,
        )
        table, tokens = await tournaments.open_table(
            new,
            msgspec.to_builtins(data),
            caller.kind,  # who the events name, and whose idempotency keys these are
            list(data.players),
            idempotency_key=idempotency_key,
        )
        seats = [
            SeatToken(seat=seat, name=name, token=token)
            for seat, (name, token) in enumerate(zip(data.players, tokens, strict=True))
        ]
        answer = TournamentTableCreated(table=tables.view(table, "operator"), seats=seats)
        return created(answer, f"/tables/{table.id}")

    @get(
        "/{tournament_id:uuid}/standings",
        operation_id="getStandings",
        summary="Players and partnerships ranked; a tournament in rounds ranks its entries",
        description=(
            "An open tournament's players and partnerships come from an asynchronous read"
            " model: `position` says how far into the store it reflects. A tournament in"
            " rounds also ranks its `entries` from its own stream (`version`), with the"
            " tie-breaks of its format; a duplicate tournament's round in play counts once"
            " it is complete, as its tables play the same deals. While tables that play the"
            " same deals are at them (a duplicate round in play; tables dealt supplied"
            " decks, until the tournament is over and none of them plays) the read"
            " model's `standings` are empty but to the operator and the director."
            " `Accept: text/csv` gives the ranking as CSV."
        ),
        response_headers=[
            ResponseHeader(
                name="Vary",
                description="`Accept, Authorization`: JSON or CSV, and what the caller may see.",
                value="Accept, Authorization",
                documentation_only=True,
            ),
            ResponseHeader(
                name="Content-Disposition",
                description="With `Accept: text/csv` only: the CSV's file name.",
                value=f'inline; filename="standings-{sample.TOURNAMENT}.csv"',
                documentation_only=True,
                required=False,
            ),
        ],
        **token_optional(400, 401, 404, 503),
    )
    async def get_standings(
        self,
        request: Request[Any, Any, Any],
        tournament_id: FromPath[UUID],
        caller: NamedDependency[Caller],
        read_side: NamedDependency[ReadSide],
        tournaments: NamedDependency[TournamentService],
    ) -> Response[StandingsPage]:
        standings, position = await read_side.standings(str(tournament_id))
        tournament = await tournaments.load(str(tournament_id))
        runs_it = caller.is_operator or (
            caller.kind == "director" and caller.tournament == tournament.id
        )
        if not runs_it and not tournament.results_public(
            *await read_side.dealt_tables(tournament.id)
        ):
            # The read model follows every table as it scores: one table's would show
            # the players of another still at the same deals how they will fare.
            standings = Standings(tournament=tournament.id, game=tournament.created.game)
        page = StandingsPage(
            position=position,
            standings=standings,
            format=tournament.created.format,
            version=tournament.version,
            entries=ranked_entries(tournament),
        )
        if preferred(request.headers.get("accept"), [JSON, CSV]) == CSV:
            return Response(
                standings_csv(page),  # type: ignore[arg-type]
                media_type=CSV,
                headers={
                    "Content-Disposition": f'inline; filename="standings-{tournament.id}.csv"',
                    "Vary": "Accept, Authorization",
                },
            )
        return Response(page, headers={"Vary": "Accept, Authorization"})


def preferred(accept: str | None, offers: list[str]) -> str:
    """The offer ``accept`` ranks highest (RFC 9110 §12.5.1). Each offer takes the quality
    of the most specific range that matches it (``text/csv;q=0`` refuses CSV though
    ``*/*`` would take it); of offers alike in quality, the one named more specifically
    wins (``text/csv, */*`` is CSV), then the one named first. A range's parameters
    other than ``q`` do not keep it from matching. The first offer without Accept or when none is
    acceptable."""
    if not accept:
        return offers[0]
    ranges = [_media_range(part) for part in accept.split(",") if part.strip()]
    best, best_rank = offers[0], (0.0, -1, 0)
    for offer in offers:
        kind, _, sub = offer.partition("/")
        matching = [
            (r[2], r[3], -place)
            for place, r in enumerate(ranges)
            if r[0] in ("*", kind) and r[1] in ("*", sub)
        ]
        if not matching:
            continue
        specificity, quality, place = max(matching)
        if (quality, specificity, place) > best_rank and quality > 0:
            best, best_rank = offer, (quality, specificity, place)
    return best


def _media_range(text: str) -> tuple[str, str, int, float]:
    """One range of an Accept header: its type, subtype, how specific it is (``*/*`` 0,
    ``text/*`` 1, ``text/csv`` 2) and its quality."""
    media, *params = (p.strip() for p in text.split(";"))
    kind, _, sub = media.lower().partition("/")
    quality = 1.0
    for param in params:
        name, _, value = param.partition("=")
        if name.strip().lower() == "q":
            try:
                quality = min(max(float(value), 0.0), 1.0)
            except ValueError:
                quality = 0.0
    specificity = 0 if kind == "*" else 1 if sub in ("*", "") else 2
    return kind, sub or "*", specificity, quality


def ranked_entries(tournament: TournamentStream) -> list[EntryStanding]:
    """The entries ranked by the format's rules, each round's table named by its id."""
    ranked, ids = stream.ranking(tournament)
    entries = []
    for s in ranked:
        # The figures as the domain ranked them; the API names each round's table by its
        # id.
        placing = {f: getattr(s, f) for f in Placing.__struct_fields__}
        rounds = [
            RoundLine(
                line.round,
                None if line.table is None else ids[line.round - 1][line.table],
                line.opponents,
                line.result,
            )
            for line in s.rounds
        ]
        withdrawn = tournament.entries[s.entry].withdrawn
        entries.append(EntryStanding(**placing, rounds=rounds, withdrawn=withdrawn))
    return entries


def standings_csv(page: StandingsPage) -> str:
    """The ranking as CSV: a tournament in rounds ranks its entries, an open one its
    players (partnerships follow as rows of their own)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    if page.entries:
        fields = [f for f in EntryStanding.__struct_fields__ if f != "rounds"]
        writer.writerow(fields)
        for entry in page.entries:
            writer.writerow([_cell(getattr(entry, f)) for f in fields])
        return out.getvalue()
    writer.writerow(["kind", "name", "played", "won", "score"])
    for kind, ranked in (
        ("player", page.standings.players),
        ("partnership", page.standings.partnerships),
    ):
        for entrant in ranked:
            row = [kind, entrant.name, entrant.played, entrant.won, entrant.score]
            writer.writerow([_cell(value) for value in row])
    return out.getvalue()


def _cell(value: object) -> object:
    """A text cell as a spreadsheet will show it, never run: a name that begins as a
    formula does (``=HYPERLINK(...)``) is quoted with an apostrophe (OWASP's advice)."""
    if isinstance(value, str) and value.startswith(("=", "+", "-", "@", "\t", "\r")):
        return "'" + value
    return value
