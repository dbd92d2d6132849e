"""Queries of the read side: table listings, score sheets, tournaments and standings."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

import msgspec
from psycopg_pool import AsyncConnectionPool

from domain.events import ClockSettings
from projections.scoresheet import ScoreSheet
from projections.standings import Standings
from service.pg import fetch_all, fetch_one
from service.read.catalog import PROJECTIONS
from service.refusals import TournamentNotFound


class TableSummary(msgspec.Struct, frozen=True):
    id: str
    game: str
    status: str
    version: int
    players: list[str]
    tournament: str | None
    created_at: datetime


class Tournament(msgspec.Struct, frozen=True):
    """A tournament. ``duplicate_deals`` counts the operator decks its tables share (the
    decks themselves are never shown); ``first_dealer`` is its tables' first dealer."""

    id: str
    name: str
    game: str
    options: dict[str, Any]
    tables: list[str]
    duplicate_deals: int = 0
    first_dealer: int | None = None
    clock: ClockSettings | None = None  # every table opened in it gets this clock
    format: str = "open"
    status: str = "open"
    entry: Literal["single", "pair"] = "single"
    seats: int | None = None  # seats at each of its tables (rounds only)
    rounds: int | None = None  # how many rounds it plays; None: open, or not known yet
    round: int = 0  # the round now paired (0 before the first)
    round_minutes: int | None = None
    auto_rounds: bool = False


class TournamentSummary(msgspec.Struct, frozen=True):
    id: str
    name: str
    game: str
    format: str
    status: str
    created_at: datetime


def encode_cursor(seq: int) -> str:
    # Opaque to clients (the API documents only "pass `next` back"); a plain number so
    # that every cursor the schema admits is one the API can serve.
    return str(seq)


def decode_cursor(cursor: str) -> int:
    return int(cursor)


class ReadSide:
    def __init__(self, pool: AsyncConnectionPool[Any]) -> None:
        self.pool = pool

    async def list_tables(
        self,
        *,
        game: str | None,
        status: str | None,
        tournament: str | None,
        player: str | None,
        cursor: str | None,
        limit: int,
    ) -> tuple[list[TableSummary], str | None]:
        """Newest first; the cursor of the next page, or None on the last one."""
        clauses: list[str] = ["TRUE"]
        params: list[Any] = []
        for column, value in (("game", game), ("status", status), ("tournament", tournament)):
            if value is not None:
                clauses.append(f"{column} = %s")
                params.append(value)
        if player is not None:
            clauses.append("%s = ANY(players)")
            params.append(player)
        if cursor is not None:
            clauses.append("seq < %s")
            params.append(decode_cursor(cursor))
        sql = (
            "SELECT seq, id::text, game, status, version, players, tournament, created_at"
            f" FROM tables WHERE {' AND '.join(clauses)} ORDER BY seq DESC LIMIT %s"
        )
        rows = await fetch_all(self.pool, sql, [*params, limit + 1])
        page = [TableSummary(*row[1:]) for row in rows[:limit]]
        more = len(rows) > limit
        return page, encode_cursor(rows[limit - 1][0]) if more else None

    async def list_tournaments(
        self,
        *,
        game: str | None,
        status: str | None,
        format: str | None,
        cursor: str | None,
        limit: int,
    ) -> tuple[list[TournamentSummary], str | None]:
        """Newest first; the cursor of the next page, or None on the last one."""
        clauses: list[str] = ["TRUE"]
        params: list[Any] = []
        for column, value in (("game", game), ("status", status), ("format", format)):
            if value is not None:
                clauses.append(f"{column} = %s")
                params.append(value)
        if cursor is not None:
            clauses.append("seq < %s")
            params.append(decode_cursor(cursor))
        sql = (
            "SELECT seq, id::text, name, game, format, status, created_at"
            f" FROM tournaments WHERE {' AND '.join(clauses)} ORDER BY seq DESC LIMIT %s"
        )
        rows = await fetch_all(self.pool, sql, [*params, limit + 1])
        page = [TournamentSummary(*row[1:]) for row in rows[:limit]]
        more = len(rows) > limit
        return page, encode_cursor(rows[limit - 1][0]) if more else None

    async def _doc(self, projection: str, key: str) -> tuple[bytes | None, int]:
        """A read model document and the position its projection has reached."""
        name = PROJECTIONS[projection].checkpoint_name
        row = await fetch_one(
            self.pool,
            "SELECT (SELECT doc::text FROM read_models WHERE projection = %s AND key = %s),"
            " (SELECT position FROM consumer_checkpoints WHERE name = %s)",
            (projection, key, name),
        )
        assert row is not None
        return (row[0].encode() if row[0] else None), int(row[1] or 0)

    async def scoresheet(self, table_id: str, game: str) -> tuple[ScoreSheet, int]:
        doc, position = await self._doc("scoresheet", table_id)
        if doc is None:  # the projection has not reached this table yet
            return ScoreSheet(table=table_id, game=game, units=[], players=[]), position
        return msgspec.json.decode(doc, type=ScoreSheet), position

    async def tournament_decks(self, tournament_id: str) -> list[list[str]] | None:
        """The operator decks a tournament's tables share (operator use only)."""
        row = await fetch_one(
            self.pool, "SELECT deals::text FROM tournaments WHERE id = %s", (tournament_id,)
        )
        if row is None or row[0] is None:
            return None
        decks: list[list[str]] = msgspec.json.decode(row[0])
        return decks

    async def tournament(self, tournament_id: str) -> Tournament:
        row = await fetch_one(
            self.pool,
            "SELECT id::text, name, game, options::text,"
            " ARRAY(SELECT id::text FROM tables WHERE tournament = t.id::text ORDER BY seq),"
            " coalesce(jsonb_array_length(deals), 0), first_dealer, clock::text,"
            " format, status, (SELECT data::text FROM tournament_events e"
            "  WHERE e.tournament_id = t.id AND e.version = 1),"
            " (SELECT count(*) FROM tournament_events e"
            "  WHERE e.tournament_id = t.id AND e.type = 'round_paired')"
            " FROM tournaments t WHERE id = %s",
            (tournament_id,),
        )
        if row is None:
            raise TournamentNotFound(f"no tournament {tournament_id}")
        clock = None if row[7] is None else msgspec.json.decode(row[7], type=ClockSettings)
        created = {} if row[10] is None else msgspec.json.decode(row[10])
        return Tournament(
            row[0],
            row[1],
            row[2],
            msgspec.json.decode(row[3]),
            list(row[4]),
            row[5],
            row[6],
            clock,
            format=row[8],
            status=row[9],
            entry=created.get("entry", "single"),
            seats=created.get("seats") if row[8] != "open" else None,
            rounds=created.get("rounds"),
            round=int(row[11]),
            round_minutes=created.get("round_minutes"),
            auto_rounds=created.get("auto_rounds", False),
        )

    async def standings(self, tournament_id: str) -> tuple[Standings, int]:
        tournament = await self.tournament(tournament_id)
        doc, position = await self._doc("standings", tournament_id)
        if doc is None:
            return Standings(tournament=tournament.id, game=tournament.game), position
        return msgspec.json.decode(doc, type=Standings), position
