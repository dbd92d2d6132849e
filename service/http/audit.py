"""Audit endpoints for the operator: export a table, replay it, compare duplicate deals."""

from __future__ import annotations

from typing import Annotated, Any, cast
from uuid import UUID

import anyio
import msgspec
from litestar import Controller, get
from litestar.datastructures import ResponseHeader
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, QueryParameter
from litestar.response import Stream
from psycopg_pool import AsyncConnectionPool

from domain import table as tables
from service.audit.duplicate import DuplicateReport, compare
from service.audit.export import export_lines
from service.audit.format import NDJSON, ExportLine, TournamentExportLine
from service.audit.queries import tournament_streams
from service.audit.render import render_tournament
from service.audit.tournament_export import tournament_lines
from service.audit.tournament_verify import verify_tournament_lines
from service.http.auth import Caller
from service.http.docs import TOKEN_ONLY, Access, errors
from service.http.problems import ApiProblem
from service.read.models import ReadSide
from service.read.records import EventRecord, TableView
from service.write.codec import event_decoder
from service.write.handler import TableService
from service.write.tournaments import TournamentService

# Answers that show every hand (or how a deal went at tables still to play it): no cache,
# not even the operator tool's own on disk, keeps them, as none keeps an export.
SHOWS_HIDDEN_CARDS: dict[str, Any] = {
    "response_headers": [
        ResponseHeader(
            name="Cache-Control",
            value="private, no-store",
            description="`private, no-store`: no cache keeps it, since it shows hidden cards.",
        )
    ],
    "responses": errors(400, 401, 403, 404, 503),
}

Version = Annotated[
    int,
    QueryParameter(
        name="version",
        ge=1,
        le=2**31 - 1,
        description="The version to replay up to, 1 to the table's current version.",
    ),
]


class ReplayStep(msgspec.Struct, frozen=True):
    """The table as the operator sees it just after ``version``: the fold of its first
    ``version`` events. ``event`` is the event at ``version``; ``latest`` the table's
    current version, the last one that can be replayed."""

    version: int
    latest: int
    event: EventRecord
    table: TableView


class Verification(msgspec.Struct, frozen=True):
    """A tournament's export as of now, checked as `cardroom verify` checks it: ``ok``,
    the first failure (``null`` when intact) and the report the command prints."""

    ok: bool
    failure: str | None
    report: str


EXPORTS = "exports are for the operator, or the tournament's director"


def _export(line: Any) -> Access:
    """An export's answer: newline-delimited JSON, its 200 documented by the schema of one
    line (which the document then gives as ``x-itemSchema``, service.http.document)."""
    lines = ResponseSpec(
        data_container=cast(Any, line),
        media_type=NDJSON,
        description="One JSON object per line, tagged by `type`.",
        generate_examples=False,
    )
    return {"media_type": NDJSON, "responses": {200: lines, **errors(400, 401, 403, 404, 503)}}


class AuditController(Controller):
    path = "/"
    tags = ("audit",)
    security = TOKEN_ONLY  # every route is the operator's (some a tournament director's too)

    @get(
        "/tables/{table_id:uuid}/export",
        operation_id="exportTable",
        summary="Export a table for audit: every event with its chain hash (operator)",
        description=(
            "Newline-delimited JSON: a `header` line (game, options, rules-engine version,"
            " seats and players, the last version and its chain hash), then one `event`"
            " line per version, exactly as stored: time, actor, the command that caused its"
            " batch, the event and its SHA-256 chain hash. Seeds appear in `seed_revealed`"
            " events, which are written only once a deal is over. `cardroom verify FILE`"
            " checks an export offline. Operator only, or the director of the table's"
            " tournament."
        ),
        **_export(ExportLine),
    )
    async def export_table(
        self,
        table_id: FromPath[UUID],
        caller: NamedDependency[Caller],
        service: NamedDependency[TableService],
    ) -> Stream:
        if caller.kind != "director":  # a director's right depends on the table
            caller.require_operator(EXPORTS)
        loaded = await service.load(str(table_id))  # 404 before the stream starts
        caller.require_in_charge(loaded.table.tournament, EXPORTS)
        name = f"table-{loaded.table.id}-v{loaded.table.version}.ndjson"
        return Stream(
            export_lines(service, loaded),
            media_type=NDJSON,
            headers={
                "Content-Disposition": f'attachment; filename="{name}"',
                "Cache-Control": "private, no-store",
            },
        )

    @get(
        "/tournaments/{tournament_id:uuid}/export",
        operation_id="exportTournament",
        summary="Export a tournament for audit: its stream, then every table's export",
        description=(
            "Newline-delimited JSON: a `tournament_header` line, one `tournament_event` line"
            " per event of the tournament's own stream (entries, pairings, tables opened by"
            " hand, results; chained like a table's), then the export of every table it"
            " opened (its rounds' tables, then those the operator opened for it by hand,"
            " in the order of their `table_opened`), each starting with its `header` line."
            " `cardroom verify FILE` re-checks every table, re-runs every pairing from the"
            " recorded results and the revealed seed, and recomputes the standings"
            " (operator or the tournament's director)."
        ),
        **_export(TournamentExportLine),
    )
    async def export_tournament(
        self,
        tournament_id: FromPath[UUID],
        caller: NamedDependency[Caller],
        service: NamedDependency[TableService],
        tournaments: NamedDependency[TournamentService],
    ) -> Stream:
        caller.require_director(str(tournament_id), EXPORTS)
        tournament = await tournaments.load(str(tournament_id))  # 404 before the stream
        name = f"tournament-{tournament.id}-v{tournament.version}.ndjson"
        return Stream(
            tournament_lines(tournaments.store, service, tournament.id),
            media_type=NDJSON,
            headers={
                "Content-Disposition": f'attachment; filename="{name}"',
                "Cache-Control": "private, no-store",
            },
        )

    @get(
        "/tables/{table_id:uuid}/replay",
        operation_id="replayTable",
        summary="The table as it stood at a version (operator)",
        description=(
            "The operator's view of the table folded from its first `version` events, and"
            " the event at that version: step `version` from 1 to `latest` to watch the"
            " game unfold, every hand shown. Operator only, or the director of the table's"
            " tournament."
        ),
        **SHOWS_HIDDEN_CARDS,
    )
    async def replay_table(
        self,
        table_id: FromPath[UUID],
        version: Version,
        caller: NamedDependency[Caller],
        service: NamedDependency[TableService],
    ) -> ReplayStep:
        why = "replays are for the operator, or the table's tournament director"
        if caller.kind != "director":  # a director's right depends on the table
            caller.require_operator(why)
        table_key = str(table_id)
        latest = (await service.load(table_key)).table
        caller.require_in_charge(latest.tournament, why)
        if version > latest.version:
            raise ApiProblem(
                "version-not-found",
                f"table {table_key} is at version {latest.version}",
                version=latest.version,
            )
        stored = await service.store.read_stream(table_key, 0, version)
        decode = event_decoder(latest.game).decode
        events = [decode(s.data) for s in stored]
        table = tables.fold(events)
        last = stored[-1]
        return ReplayStep(
            version=version,
            latest=latest.version,
            event=EventRecord(last.version, last.recorded_at, last.actor, events[-1]),
            table=tables.view(table, "operator"),
        )

    @get(
        "/tournaments/{tournament_id:uuid}/deals",
        operation_id="getTournamentDeals",
        summary="Duplicate deals: each operator deck as played at each table (operator)",
        description=(
            "Deal by deal, every table that was dealt the same operator deck (the same"
            " commitment), with its dealer, contract, result and running scores. Computed"
            " from the events when asked, so it is exact as soon as a deal is scored."
            " The operator's, or the tournament's director's: a table still to play a deal"
            " must not learn how it went."
        ),
        **SHOWS_HIDDEN_CARDS,
    )
    async def tournament_deals(
        self,
        tournament_id: FromPath[UUID],
        caller: NamedDependency[Caller],
        read_side: NamedDependency[ReadSide],
        pool: NamedDependency[AsyncConnectionPool[Any]],
    ) -> DuplicateReport:
        caller.require_director(str(tournament_id), "deal comparisons are for the operator")
        tournament = await read_side.tournament(str(tournament_id))
        streams = await tournament_streams(pool, tournament.game, tournament.tables)
        return compare(tournament.id, tournament.game, tournament.duplicate_deals, streams)

    @get(
        "/tournaments/{tournament_id:uuid}/verification",
        operation_id="verifyTournament",
        summary="Verify a tournament's export now, as `cardroom verify` does (operator)",
        description=(
            "Exports the tournament as `GET /tournaments/{id}/export` would and runs the"
            " offline verifier over it in the service: every table's chain, rules and"
            " decks, every pairing re-run, every result and the standings (entries, players"
            " and partnerships) recomputed. The answer is the"
            " verdict and the report `cardroom verify` prints; a tournament still in play"
            " is checked as far as it has gone. For the console's tournament page; an"
            " auditor who does not trust the service runs `cardroom verify` on the export"
            " himself (operator or the tournament's director)."
        ),
        **SHOWS_HIDDEN_CARDS,
    )
    async def verify_tournament(
        self,
        tournament_id: FromPath[UUID],
        caller: NamedDependency[Caller],
        service: NamedDependency[TableService],
        tournaments: NamedDependency[TournamentService],
    ) -> Verification:
        caller.require_director(str(tournament_id), "verification is for the operator")
        tournament = await tournaments.load(str(tournament_id))
        lines = [line async for line in tournament_lines(tournaments.store, service, tournament.id)]
        # The verifier is pure CPU work: off the event loop, so other requests go on.
        report = await anyio.to_thread.run_sync(verify_tournament_lines, lines)
        return Verification(
            ok=report.ok,
            failure=report.failure.message if report.failure else None,
            report=render_tournament(report),
        )
