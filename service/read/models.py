"""Queries of the read side: table listings, score sheets, tournaments and standings."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

import msgspec

from domain.events import ClockSettings
from domain.table import ENDED
from domain.tournament.model import Format
from domain.tournament.pairing import rounds_needed
from projections.scoresheet import ScoreSheet
from projections.standings import Standings
from service.pg import Source, fetch_all, fetch_one
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


class Tournament(msgspec.Struct, frozen=True, kw_only=True):
    """A tournament. ``duplicate_deals`` counts the operator decks its tables share (the
    decks themselves are never shown); ``first_dealer`` is its tables' first dealer. Every
    field is sent, so every field is required."""

    id: str
    name: str
    game: str
    options: dict[str, Any]
    tables: list[str]
    duplicate_deals: int
    first_dealer: int | None
    clock: ClockSettings | None  # every table opened in it gets this clock
    format: str
    status: str
    entry: Literal["single", "pair"]
    seats: int | None  # seats at each of its tables (rounds only)
    rounds: int | None  # how many rounds it plays; None: open, or not known yet
    round: int  # the round now paired (0 before the first)
    round_minutes: int | None
    auto_rounds: bool


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


_ENDED = ", ".join(repr(s) for s in ENDED)
# A table its tournament closes to spectators, as Tournament.table_watchable says: one that
# plays the same deals as others (a duplicate event's, or one dealt supplied decks) until
# the event is over, the table too and every other table of the event. Its version would
# tell a spectator when it moves.
#
# Written as a test of each listed row (an OR the planner cannot turn into a join), so
# that a page reads the newest rows by ``seq`` and stops at the page's end; each lookup
# has an index (migration 0016). As an anti join, a page of a hundred or more on a store
# of 300,000 tables scanned and sorted the whole relation (0.4 s; now 6 ms).
_OPEN_TO_SPECTATORS = (
    "(tables.tournament IS NULL OR tables.tournament = %s OR NOT EXISTS ("
    "SELECT 1 FROM tournaments t WHERE t.id::text = tables.tournament"
    " AND (t.format = 'duplicate' OR tables.decks IS NOT NULL)"
    f" AND NOT (t.status = 'finished' AND tables.status IN ({_ENDED})"
    " AND NOT EXISTS (SELECT 1 FROM tables o"
    f" WHERE o.tournament = tables.tournament AND o.status NOT IN ({_ENDED})))))"
)


class ReadSide:
    def __init__(self, pool: Source) -> None:
        self.pool = pool  # a replica may answer (service.read.replicas)

    async def list_tables(
        self,
        *,
        game: str | None,
        status: str | None,
        tournament: str | None,
        player: list[str] | None,
        cursor: str | None,
        limit: int,
        sees_closed: str | None = None,
    ) -> tuple[list[TableSummary], str | None]:
        """Newest first; the cursor of the next page, or None on the last one. Tables a
        tournament closes to spectators are left out but for ``sees_closed``: ``"*"``
        (the operator) or the id of the tournament whose director asks. ``player``: the
        forms of one name, any of which a table's player has."""
        filters = {"game": game, "status": status, "tournament": tournament}
        extra: list[tuple[str, Any]] = []
        relation = "tables"
        if player is not None and len(player) == 1:
            # Driven by the name's own rows (migration 0017), newest first: a page stops
            # at its end, however rare or common the name.
            relation = "table_players JOIN tables ON tables.seq = table_players.seq"
            extra.append(("table_players.player = %s", player[0]))
        elif player is not None:  # rare, a name sent decomposed: a table with both forms
            # is listed once.
            extra.append(("seq IN (SELECT seq FROM table_players WHERE player = ANY(%s))", player))
        if sees_closed != "*":
            extra.append((_OPEN_TO_SPECTATORS, sees_closed))
        columns = "id::text, game, status, version, players, tournament, created_at"
        rows, following = await self._page(relation, columns, filters, extra, cursor, limit)
        return [TableSummary(*row) for row in rows], following

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
        filters = {"game": game, "status": status, "format": format}
        columns = "id::text, name, game, format, status, created_at"
        rows, following = await self._page("tournaments", columns, filters, [], cursor, limit)
        return [TournamentSummary(*row) for row in rows], following

    async def _page(
        self,
        relation: str,
        columns: str,
        filters: dict[str, str | None],
        extra: list[tuple[str, Any]],
        cursor: str | None,
        limit: int,
    ) -> tuple[list[tuple[Any, ...]], str | None]:
        """A page of ``relation``'s rows, newest first (by ``seq``), matching every filter
        given (column = value) and every ``extra`` clause; the next page's cursor."""
        clauses: list[str] = ["TRUE"]
        params: list[Any] = []
        for column, value in filters.items():
            if value is not None:
                clauses.append(f"{column} = %s")
                params.append(value)
        for clause, value in extra:
            clauses.append(clause)
            params.append(value)
        seq = f"{relation.split()[0]}.seq"  # the first relation's, where several are joined
        if cursor is not None:
            clauses.append(f"{seq} < %s")
            params.append(decode_cursor(cursor))
        sql = (
            f"SELECT {seq}, {columns} FROM {relation} WHERE {' AND '.join(clauses)}"
            f" ORDER BY {seq} DESC LIMIT %s"
        )
        rows = await fetch_all(self.pool, sql, [*params, limit + 1])
        following = encode_cursor(rows[limit - 1][0]) if len(rows) > limit else None
        return [row[1:] for row in rows[:limit]], following

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

    async def dealt_tables(self, tournament_id: str) -> tuple[bool, bool]:
        """Whether any of the tournament's tables was dealt supplied decks, and whether
        one of those is still in play (read off each table's ``table_created``)."""
        row = await fetch_one(
            self.pool,
            "SELECT coalesce(bool_or(true), false),"
            " coalesce(bool_or(t.status <> ALL(%s)), false)"
            " FROM tables t JOIN events e ON e.table_id = t.id AND e.version = 1"
            " WHERE t.tournament = %s AND coalesce((e.data->>'supplied_decks')::int, 0) > 0",
            (list(ENDED), tournament_id),
        )
        assert row is not None
        return bool(row[0]), bool(row[1])

    async def tournament_decks(self, tournament_id: str) -> list[list[str]] | None:
        """The operator decks a tournament's tables share (operator use only)."""
        row = await fetch_one(
            self.pool, "SELECT deals::text FROM tournaments WHERE id = %s", (tournament_id,)
        )
        if row is None or row[0] is None:
            return None
        decks: list[list[str]] = msgspec.json.decode(row[0])
        return decks

    async def tournament(self, tournament_id: str, *, as_opened: bool = False) -> Tournament:
        """The tournament now; ``as_opened``, as it stood at its first version (what its
        creation answered, and a retry of that request gets again): only its tables,
        status, round and a round-robin's rounds move after that."""
        row = await fetch_one(
            self.pool,
            "SELECT id::text, name, game, options::text,"
            " ARRAY(SELECT id::text FROM tables WHERE tournament = t.id::text ORDER BY seq),"
            " coalesce(jsonb_array_length(deals), 0), first_dealer, clock::text,"
            " format, status, (SELECT data::text FROM tournament_events e"
            "  WHERE e.tournament_id = t.id AND e.version = 1),"
            " (SELECT count(*) FROM tournament_events e"
            "  WHERE e.tournament_id = t.id AND e.type = 'round_paired'),"
            " (SELECT data::text FROM tournament_events e WHERE e.tournament_id = t.id"
            "  AND e.type = 'round_paired' ORDER BY e.version LIMIT 1)"
            " FROM tournaments t WHERE id = %s",
            (tournament_id,),
        )
        if row is None:
            raise TournamentNotFound(f"no tournament {tournament_id}")
        clock = None if row[7] is None else msgspec.json.decode(row[7], type=ClockSettings)
        created = {} if row[10] is None else msgspec.json.decode(row[10])
        return Tournament(
            id=row[0],
            name=row[1],
            game=row[2],
            options=msgspec.json.decode(row[3]),
            tables=[] if as_opened else list(row[4]),
            duplicate_deals=row[5],
            first_dealer=row[6],
            clock=clock,
            format=row[8],
            status="open" if as_opened else row[9],
            entry=created.get("entry", "single"),
            seats=created.get("seats") if row[8] != "open" else None,
            rounds=_rounds(created, row[8], None if as_opened else row[12]),
            round=0 if as_opened else int(row[11]),
            round_minutes=created.get("round_minutes"),
            auto_rounds=created.get("auto_rounds", False),
        )

    async def standings(self, tournament_id: str) -> tuple[Standings, int]:
        tournament = await self.tournament(tournament_id)
        doc, position = await self._doc("standings", tournament_id)
        if doc is None:
            return Standings(tournament=tournament.id, game=tournament.game), position
        return msgspec.json.decode(doc, type=Standings), position


def _rounds(created: dict[str, Any], format: str, first_round: str | None) -> int | None:
    """How many rounds the tournament plays: as created, and for a round-robin no more
    than the Berger number of the field its first round was drawn for (as
    ``stream.Tournament.total_rounds`` counts it) once that round is paired."""
    rounds: int | None = created.get("rounds")
    if format != Format.ROUND_ROBIN or first_round is None:
        return rounds
    paired = msgspec.json.decode(first_round)
    field = {e for table in paired["tables"] for e in table["seats"]} | set(paired["byes"])
    schedule = rounds_needed(Format.ROUND_ROBIN, len(field)) or 0
    return schedule if rounds is None else min(rounds, schedule)
