"""Offline verification of a table export: no server, no database, just the file.

Checks, in order, stopping at the first failure (which names the event, by version):

1. the file is an export: a header line, then event lines with versions 1, 2, 3 …;
2. the hash chain: every event's hash is recomputed from the previous one and the
   event's canonical bytes, and the last one is the header's ``head``;
3. the header agrees with the stream's ``table_created`` (game, seats, options, rules);
4. the rules: every batch is produced again from its command (``service.audit.rerun``) —
   seats taken, commands decided, every deck recomputed from its revealed seed or taken
   from the operator's list and checked against the commitment in its deal event; the
   clock steps, expiries and operator commands too, each at its recorded instant
   (``service.audit.liveness_rerun``);
5. the final scores: recomputed from the re-run state and compared with the export's.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

import msgspec

from domain import RULES_ENGINE_VERSION
from domain import table as tables
from domain.engine import engine_of
from domain.events import Event, GameWon, TableCreated
from domain.registry import GAMES
from projections.deals import DealRecord, deal_records
from projections.units import scoring_units
from service.audit.chain import GENESIS, canonical_bytes, chain
from service.audit.entries import Entry, Mismatch
from service.audit.format import FORMAT, EventLine, ExportHeader
from service.audit.rerun import Rerun
from service.write.codec import event_decoder

_header = msgspec.json.Decoder(ExportHeader)
_line = msgspec.json.Decoder(EventLine)


class Failure(msgspec.Struct, frozen=True):
    """The first bad event: its ``version`` (None when the header itself is bad)."""

    version: int | None
    message: str
    line: int | None = None


class Report(msgspec.Struct, kw_only=True):
    header: ExportHeader | None = None
    events: int = 0
    checks: list[str] = msgspec.field(default_factory=list)
    notes: list[str] = msgspec.field(default_factory=list)
    deals: list[DealRecord] = msgspec.field(default_factory=list)
    units: list[list[int]] = msgspec.field(default_factory=list)
    final_scores: list[int] | None = None
    table: Any = None  # the table as re-run (a tournament's verifier reads its result)
    winners: list[int] | None = None
    failure: Failure | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None


class Failed(Protocol):
    @property
    def message(self) -> str: ...


F = TypeVar("F", bound=Failed)


class Stop(Exception, Generic[F]):
    """The first failure found (a table's or a tournament's): verifying stops there, and
    the report carries it."""

    def __init__(self, failure: F) -> None:
        super().__init__(failure.message)
        self.failure = failure


def verify_file(path: str | Path, head: str | None = None) -> Report:
    with open(path, "rb") as lines:
        return verify_lines(lines, head)


def verify_lines(lines: Iterable[bytes], head: str | None = None) -> Report:
    """Verify an export given as its lines; the report says what held and what failed.

    The chain alone shows that no event changed *unless every later hash was recomputed
    too*; ``head``, the last hash as published apart from the file (say, when the game
    ended), anchors the chain so that such a forgery, or a cut-short export, fails.
    """
    report = Report()
    try:
        header, header_line, entries = _parse(lines, report)
        _check_chain(header, entries, report)
        created = _check_header(header, header_line, entries)
        report.checks.append("the header agrees with the table's table_created event")
        # The rules first: a forgery whose hashes were all recomputed is named at its
        # first bad event, as without the head, not at the last one the head disowns.
        _rerun(header, created, entries, report)
        if head is not None:
            _check_anchor(header, head.strip().lower(), report)
    except Stop as stop:
        report.failure = stop.failure
    return report


# --- 1. parsing -------------------------------------------------------------------------


def _parse(lines: Iterable[bytes], report: Report) -> tuple[ExportHeader, int, list[Entry]]:
    """The header, its line number and the events."""
    header: ExportHeader | None = None
    header_line = 0
    entries: list[Entry] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        if header is None:
            header, header_line = _parse_header(raw, number), number
            report.header = header
            continue
        entries.append(_parse_event(raw, number, len(entries) + 1, header.game))
    if header is None:
        raise Stop(Failure(None, "the file is empty: an export opens with a header line"))
    report.events = len(entries)
    return header, header_line, entries


def _parse_header(raw: bytes, number: int) -> ExportHeader:
    try:
        header = _header.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        failure = Failure(None, f"line {number} is not an export header ({FORMAT}): {exc}")
        raise Stop(failure) from None
    if header.game not in GAMES:
        raise Stop(Failure(None, f"the header names an unknown game {header.game!r}"))
    return header


def _parse_event(raw: bytes, number: int, expected: int, game: str) -> Entry:
    try:
        line = _line.decode(raw)
        data = msgspec.json.decode(line.data)
        command = msgspec.json.decode(line.command)
        if not isinstance(data, dict) or not (command is None or isinstance(command, dict)):
            raise msgspec.ValidationError("data and command must be JSON objects")
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        failure = Failure(expected, f"line {number} is not an event line: {exc}", number)
        raise Stop(failure) from None
    if line.version != expected:
        raise Stop(
            Failure(
                expected,
                f"line {number} holds version {line.version} where version {expected} belongs"
                " (an event is missing or out of order)",
                number,
            )
        )
    event: Event | None = None
    problem = None
    try:
        event = event_decoder(game).decode(line.data)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        problem = str(exc)
    return Entry(
        line=number,
        version=line.version,
        recorded_at=line.recorded_at,
        actor=line.actor,
        command=command,
        data=data,
        hash=line.hash,
        event=event,
        problem=problem,
    )


# --- 2. the hash chain ------------------------------------------------------------------


def _check_chain(header: ExportHeader, entries: list[Entry], report: Report) -> None:
    previous = GENESIS
    for entry in entries:
        canonical = canonical_bytes(
            header.table,
            entry.version,
            entry.recorded_at,
            entry,
        )
        previous = chain(previous, canonical)
        if entry.hash != previous.hex():
            raise Stop(
                Failure(
                    entry.version,
                    "its content does not match its chain hash: the event was altered"
                    + (" (or the header's table id)" if entry.version == 1 else ""),
                    entry.line,
                )
            )
    last = entries[-1].version if entries else 0
    if header.version > last:
        raise Stop(
            Failure(
                last + 1,
                f"missing: the header says the export runs to version {header.version},"
                f" the file ends at version {last}",
            )
        )
    if header.version < last:
        raise Stop(
            Failure(header.version + 1, f"the header says the export ends at {header.version}")
        )
    if header.head != previous.hex():
        raise Stop(Failure(last, "the last event's hash is not the header's head"))
    report.checks.append(
        f"{last} events, versions 1 to {last}: every chain hash recomputed, the last one"
        f" is the header's head {header.head[:16]}…"
    )


def unanchored(head: str, published: str, whose: str) -> str | None:
    """Why a chain ending at ``head`` is not the history published as ending at
    ``published`` (None when it is): a forger who rewrote the events and every hash
    after them cannot match a head published apart from the file."""
    if head == published:
        return None
    # In full: two heads may share their first characters (a head copied short).
    return (
        f"the chain ends at {head}, not at the published head {published}:"
        f" this is not the {whose} history as published"
    )


def anchored(published: str) -> str:
    """The report's line for a chain that ends at the head published apart."""
    return f"the chain ends at the published head {published[:16]}…"


def _check_anchor(header: ExportHeader, head: str, report: Report) -> None:
    problem = unanchored(header.head, head, "table's")
    if problem is not None:
        raise Stop(Failure(header.version, problem))
    report.checks.append(anchored(head))


# --- 3. the header ----------------------------------------------------------------------


def _check_header(header: ExportHeader, line: int, entries: list[Entry]) -> TableCreated:
    if not entries:
        raise Stop(Failure(1, "missing: the export holds no events"))
    created = entries[0].event
    if not isinstance(created, TableCreated):
        found = entries[0].data.get("type")
        raise Stop(
            Failure(1, f"a table's stream opens with table_created, not {found}", entries[0].line)
        )
    for field in ("table", "game", "seats", "options", "rules_version", "tournament"):
        ours, theirs = getattr(header, field), getattr(created, field)
        if ours != theirs:
            raise Stop(
                Failure(
                    None,
                    f"the header's {field} {ours!r} is not table_created's {theirs!r}",
                    line,
                )
            )
    return created


# --- 4 and 5. the rules and the scores --------------------------------------------------


def _rerun(
    header: ExportHeader, created: TableCreated, entries: list[Entry], report: Report
) -> None:
    engine = engine_of(created.rules_version)
    if engine is None:
        raise Stop(
            Failure(1, f"{created.rules_version!r} is no rules engine version", entries[0].line)
        )
    current = engine_of(RULES_ENGINE_VERSION)
    assert current is not None
    if engine > current:
        raise Stop(
            Failure(
                1,
                f"the table was played under rules engine {created.rules_version}, newer than"
                f" this verifier's {RULES_ENGINE_VERSION}: verify it with a newer cardroom",
                entries[0].line,
            )
        )
    if created.rules_version != RULES_ENGINE_VERSION:
        report.notes.append(
            f"the table was played under rules engine {created.rules_version}; this"
            f" verifier runs engine {RULES_ENGINE_VERSION}"
        )
    report.units = scoring_units(created.game, created.seats)
    rerun = Rerun(entries)
    try:
        table = rerun.run()
        report.table = table
    except Mismatch as mismatch:
        report.deals = _deals(entries[: mismatch.version - 1])
        line = entries[mismatch.version - 1].line if mismatch.version <= len(entries) else None
        raise Stop(Failure(mismatch.version, mismatch.message, line)) from None
    report.deals = _deals(entries)
    counts = rerun.counts
    report.checks.append(
        f"{counts.seats_taken} seats taken and {counts.commands} commands re-run through the"
        f" rules (engine {created.rules_version}): all {len(entries)} events are exactly"
        " what they give"
    )
    if counts.clock_steps or counts.table_commands:
        report.checks.append(
            f"{counts.clock_steps} clock steps and {counts.table_commands} timekeeper and"
            " operator commands re-run at their recorded instants, each clock step timing"
            " the seat that acted"
        )
    shuffles = counts.seeded + counts.supplied + len(counts.in_play)
    report.checks.append(
        f"{shuffles} shuffles: {counts.seeded} decks recomputed from their revealed seeds,"
        f" {counts.supplied} operator decks, each matching its commitment"
        + (
            f"; {len(counts.in_play)} deal in play, dealt again from its own cards"
            if counts.in_play
            else ""
        )
    )
    for shuffle_no, version in counts.in_play:
        report.notes.append(
            f"shuffle {shuffle_no} (version {version}) was still in play when the table was"
            " exported: its seed is revealed only when the deal ends, so whether the seed"
            " shuffles this deck, and the commitment, cannot be checked yet (the cards"
            " dealt are exactly the pack, and the rules deal them as exported)"
        )
    _final(header, table, entries, report)


def _final(header: ExportHeader, table: Any, entries: list[Entry], report: Report) -> None:
    view = tables.view(table, "operator")
    report.final_scores = list(view.scores)
    won = [e for e in entries if isinstance(e.event, GameWon)]
    if won:
        last = won[-1]
        assert isinstance(last.event, GameWon)
        report.winners = list(last.event.winners)
        if list(last.event.scores) != report.final_scores:
            raise Stop(
                Failure(
                    last.version,
                    f"game_won says {last.event.scores}; the re-run state scores"
                    f" {report.final_scores}",
                    last.line,
                )
            )
    # Seat by seat, as the export writes them: names in seat order alone let a header
    # seat two players at one seat, or at seats the table has not.
    seated = [(p.seat, p.name) for p in header.players]
    if seated != list(enumerate(table.names)) or header.status != table.status:
        raise Stop(
            Failure(None, "the header's players or status are not what the events make them")
        )
    report.checks.append(
        f"final scores recomputed: {report.final_scores}"
        + (f", winners {report.winners}" if won else f" ({table.status})")
    )


def _deals(entries: list[Entry]) -> list[DealRecord]:
    return deal_records([(e.version, e.event) for e in entries if e.event is not None])
