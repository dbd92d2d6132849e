"""Writing a tournament's export (DESIGN 14): its stream, then the export of every table
it opened: the tables its rounds paired, then those the operator opened for it by hand."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import msgspec

from domain.tournament.stream import fold
from service.audit.export import export_lines, line_fields
from service.audit.format import TOURNAMENT_FORMAT, TournamentEventLine, TournamentHeader
from service.refusals import TournamentNotFound
from service.write.handler import TableService
from service.write.tournament_store import TournamentStore, decode_event

_encode = msgspec.json.Encoder().encode


async def tournament_lines(
    store: TournamentStore, service: TableService, tournament_id: str
) -> AsyncIterator[bytes]:
    """The export as of now: the stream read once, then each table as of its snapshot."""
    stored = await store.read_stream(tournament_id)
    if not stored:
        raise TournamentNotFound(f"no tournament {tournament_id}")
    tournament = fold([decode_event(s.data) for s in stored])
    # The tables its rounds paired, then any the operator opened for it by hand (all of
    # an open tournament's): every table it opened, as its stream records them; for one
    # created before the stream recorded the tables opened by hand, as the store knows.
    tournament_tables = tournament.exported_tables
    if tournament_tables is None:
        paired = tournament.round_tables
        seen = set(paired)
        by_hand = [t for t in await store.tables_of(tournament_id) if t not in seen]
        tournament_tables = [*paired, *by_hand]
    header = TournamentHeader(
        format=TOURNAMENT_FORMAT,
        tournament=tournament.id,
        name=tournament.created.name,
        game=tournament.created.game,
        tournament_format=tournament.created.format,
        status=tournament.status,
        version=stored[-1].version,
        head=stored[-1].hash,
        tables=tournament_tables,
        exported_at=datetime.now(UTC),
    )
    yield _encode(header) + b"\n"
    for event in stored:
        yield _encode(TournamentEventLine(**line_fields(event))) + b"\n"
    for table_id in tournament_tables:
        loaded = await service.load(table_id)
        async for line in export_lines(service, loaded):
            yield line
