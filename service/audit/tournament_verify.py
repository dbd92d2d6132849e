"""Offline verification of a tournament export (DESIGN 14): no server, no database.

Checks, stopping at the first failure:

1. the tournament's stream: a ``tournament_header``, then events 1, 2, 3 … whose chain
   hashes are recomputed (the tournament's id in place of a table's), ending at the
   header's ``head`` (and at the head published apart, when one is given); the header's
   name, game, format and status are the stream's;
2. every table's export, through the table verifier (``service.audit.verify``): the file
   holds exactly the tables the header lists, each opened for this tournament, and they
   are the tables the stream opened: every table the rounds paired, then those the
   operator opened by hand (``table_opened``; a stream begun before API 1.11 does not
   record those, so only the paired ones are required then);
3. once the tournament has finished, its revealed seed matches the commitment in
   ``tournament_created``, and every ``round_paired`` is re-run: the pairing must follow
   from the entries, the results recorded before it and the seed — a pairing edited and
   re-chained still fails here;
4. every ``table_scored`` is the result of its table as re-run, and each table was opened
   for the tournament with the entries' names at the seats the pairing gave them; a
   finished tournament has a result for every table it paired;
5. the standings, recomputed from those results by the format's rules, and the players
   and partnerships of every table as the read model ranks them (the report lists both,
   to compare with the ones ``GET /tournaments/{id}/standings`` publishes; an open
   tournament, which records no results, has only the latter).

Lines are told apart by their top-level ``type``, never by text found anywhere in them: a
player's name may hold any words.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import msgspec

from domain.events import Event, SeatTaken
from domain.tournament import results, stream
from domain.tournament.events import RoundPaired, TableScored, TournamentCreated, TournamentEvent
from domain.tournament.model import PAIRING_RULES
from domain.tournament.standings import Standing
from domain.tournament.stream import Tournament
from projections import standings as read_model
from service.audit.chain import GENESIS, canonical_bytes, chain
from service.audit.format import TournamentEventLine, TournamentHeader
from service.audit.verify import Report, Stop, anchored, unanchored, verify_lines
from service.write.codec import event_decoder
from service.write.tournament_store import decode_event

_header = msgspec.json.Decoder(TournamentHeader)
_line = msgspec.json.Decoder(TournamentEventLine)


class TournamentFailure(msgspec.Struct, frozen=True):
    """Where the export departs: the tournament's event ``version``, or a ``table``."""

    message: str
    version: int | None = None
    table: str | None = None


class TournamentReport(msgspec.Struct, kw_only=True):
    header: TournamentHeader | None = None
    checks: list[str] = msgspec.field(default_factory=list)
    notes: list[str] = msgspec.field(default_factory=list)
    tables: dict[str, Report] = msgspec.field(default_factory=dict)
    tournament: Any = None  # the stream folded, once it verified
    standings: list[Standing] = msgspec.field(default_factory=list)  # recomputed, best first
    # Every table's players and partnerships, as the read model ranks them.
    players: list[read_model.Entrant] = msgspec.field(default_factory=list)
    partnerships: list[read_model.Entrant] = msgspec.field(default_factory=list)
    failure: TournamentFailure | None = None
    pairings_rerun: bool = True  # False while the seed is secret

    @property
    def ok(self) -> bool:
        return self.failure is None


class _Recorded(msgspec.Struct, frozen=True):
    """A stream event as the chain hash covers it."""

    version: int
    recorded_at: datetime
    actor: str
    data: Any
    command: Any
    hash: str
    event: TournamentEvent


class _Line(msgspec.Struct):
    """What tells a line apart: its top-level ``type`` (and a table header's table)."""

    type: Any = None
    table: Any = None


_kind = msgspec.json.Decoder(_Line)


def _line_of(raw: bytes) -> _Line:
    try:
        return _kind.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return _Line()  # no JSON object: the line is none of the export's


def is_tournament_export(first_line: bytes) -> bool:
    return bool(_line_of(first_line).type == "tournament_header")


def verify_tournament_lines(lines: Iterable[bytes], head: str | None = None) -> TournamentReport:
    """``head``: the stream's last hash as published apart from the file; a forger who
    rewrote the stream and its chain cannot match it."""
    report = TournamentReport()
    try:
        header, recorded, table_lines = _parse(lines, report)
        _check_chain(header, recorded, report)
        if head is not None:
            _check_anchor(header, head.strip().lower(), report)
        tables = _check_tables(header, table_lines, report)
        report.tournament = _rerun(header, recorded, tables, report)
        report.standings = _standings(report.tournament, report)
        _players(header, tables, report)
    except Stop as stop:
        report.failure = stop.failure
    except Exception as exc:  # a check given what no service wrote, past those above
        report.failure = TournamentFailure(f"the export cannot be verified ({exc!r})")
    return report


# --- 1. the stream ----------------------------------------------------------------------


def _parse(
    lines: Iterable[bytes], report: TournamentReport
) -> tuple[TournamentHeader, list[_Recorded], dict[str, list[bytes]]]:
    header: TournamentHeader | None = None
    recorded: list[_Recorded] = []
    tables: dict[str, list[bytes]] = {}
    current: list[bytes] | None = None
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        if header is None:
            try:
                header = _header.decode(raw)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                failure = TournamentFailure(f"line {number} is no tournament header: {exc}")
                raise Stop(failure) from None
            report.header = header
            continue
        line = _line_of(raw)
        if current is None and line.type == "tournament_event":
            recorded.append(_event(raw, number, len(recorded) + 1))
            continue
        if line.type == "header":
            current = tables.setdefault(str(line.table or ""), [])
        if current is None:
            raise Stop(TournamentFailure(f"line {number} is neither the stream nor a table"))
        current.append(raw)
    if header is None:
        raise Stop(TournamentFailure("the file is empty: it opens with a tournament header"))
    return header, recorded, tables


def _event(raw: bytes, number: int, expected: int) -> _Recorded:
    try:
        line = _line.decode(raw)
        event = decode_event(line.data)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        failure = TournamentFailure(f"line {number} is no tournament event: {exc}", expected)
        raise Stop(failure) from None
    if line.version != expected:
        raise Stop(TournamentFailure(f"line {number} holds version {line.version}", expected))
    return _Recorded(
        version=line.version,
        recorded_at=line.recorded_at,
        actor=line.actor,
        data=msgspec.json.decode(line.data),
        command=msgspec.json.decode(line.command),
        hash=line.hash,
        event=event,
    )


def _check_chain(
    header: TournamentHeader, recorded: list[_Recorded], report: TournamentReport
) -> None:
    previous = GENESIS
    for entry in recorded:
        canonical = canonical_bytes(header.tournament, entry.version, entry.recorded_at, entry)
        previous = chain(previous, canonical)
        if entry.hash != previous.hex():
            raise Stop(
                TournamentFailure(
                    "its content does not match its chain hash: the event was altered",
                    entry.version,
                )
            )
    last = recorded[-1].version if recorded else 0
    if last != header.version or (recorded and recorded[-1].hash != header.head):
        raise Stop(TournamentFailure(f"the stream ends at version {last}, not the header's head"))
    report.checks.append(
        f"{last} tournament events: every chain hash recomputed, the last one is the"
        f" header's head {header.head[:16]}…"
    )


def _check_anchor(header: TournamentHeader, head: str, report: TournamentReport) -> None:
    problem = unanchored(header.head, head, "tournament's")
    if problem is not None:
        raise Stop(TournamentFailure(problem, header.version))
    report.checks.append(anchored(head))


# --- 2. the tables ----------------------------------------------------------------------


class _Verified(msgspec.Struct, frozen=True):
    table: Any
    events: list[Event]


def _check_tables(
    header: TournamentHeader, table_lines: dict[str, list[bytes]], report: TournamentReport
) -> dict[str, _Verified]:
    verified: dict[str, _Verified] = {}
    unlisted = [table_id for table_id in table_lines if table_id not in header.tables]
    if unlisted:
        raise Stop(TournamentFailure("a table export the header does not list", table=unlisted[0]))
    for table_id in header.tables:
        lines = table_lines.get(table_id)
        if lines is None:
            raise Stop(TournamentFailure("missing: the table's export", table=table_id))
        table_report = verify_lines(lines)
        report.tables[table_id] = table_report
        if not table_report.ok:
            assert table_report.failure is not None
            message = f"version {table_report.failure.version}: {table_report.failure.message}"
            raise Stop(TournamentFailure(message, table=table_id))
        if table_report.table.tournament != header.tournament:
            raise Stop(
                TournamentFailure("the table was not opened for this tournament", table=table_id)
            )
        decode = event_decoder(header.game).decode
        events = [
            decode(msgspec.json.encode(msgspec.json.decode(raw)["data"])) for raw in lines[1:]
        ]
        verified[table_id] = _Verified(table_report.table, events)
    report.checks.append(
        f"{len(verified)} tables: each export verified, every event re-run through the rules,"
        " each opened for this tournament"
    )
    return verified


# --- 3 and 4. pairings and results -----------------------------------------------------


def _rerun(
    header: TournamentHeader,
    recorded: list[_Recorded],
    tables: dict[str, _Verified],
    report: TournamentReport,
) -> Tournament:
    first = recorded[0].event if recorded else None
    if not isinstance(first, TournamentCreated) or first.tournament != header.tournament:
        raise Stop(TournamentFailure("the stream does not open with its tournament_created", 1))
    if first.pairing_rules > PAIRING_RULES:
        # Re-paired by rules it does not know, every round would look forged.
        raise Stop(
            TournamentFailure(
                f"the tournament is paired by pairing rules {first.pairing_rules}, newer than"
                f" this verifier's {PAIRING_RULES}: verify it with a newer cardroom",
                1,
            )
        )
    folded = stream.start(first)
    for entry in recorded[1:]:
        with _at(entry):
            folded = stream.evolve(folded, entry.event)
    _check_described(header, folded)
    by_hand = len(header.tables) - len(folded.round_tables)
    if folded.exported_tables is None:
        report.notes.append(
            f"{by_hand} table(s) opened for the tournament by hand (an open tournament's"
            " all): its stream, begun before API 1.11, does not record those, so each one"
            " exported is verified, but one left out of the export could not be told"
        )
    else:
        report.checks.append(
            f"the export holds every table the stream opened: {len(folded.round_tables)}"
            f" paired by its rounds, {by_hand} opened by hand"
        )
    seed = bytes.fromhex(folded.seed) if folded.seed is not None else None
    if seed is not None and hashlib.sha256(seed).hexdigest() != first.seed_hash:
        raise Stop(TournamentFailure("the revealed seed is not the one committed to", None))
    tournament = stream.start(first)
    paired = scored = 0
    for entry in recorded[1:]:
        event = entry.event
        with _at(entry):
            if isinstance(event, RoundPaired):
                if seed is not None:
                    _check_pairing(tournament, event, seed, entry.version)
                    paired += 1
                for table in event.tables:
                    _check_opened(
                        tournament, event, table.table, table.seats, tables, entry.version
                    )
            if isinstance(event, TableScored):
                # Results recorded before API 1.9 have no deal_decks (their deals compare
                # in order); every later one has the key, even empty, and is held to it.
                with_decks = isinstance(entry.data, dict) and "deal_decks" in entry.data
                _check_scored(tournament, event, tables, entry.version, with_decks)
                scored += 1
            tournament = stream.evolve(tournament, event)
    if seed is None:
        report.pairings_rerun = False
        report.notes.append(
            "the tournament has not finished: its seed is still secret, so the pairings"
            " are re-run once it is revealed"
        )
    else:
        unscored = next((r for r in tournament.rounds if not r.complete), None)
        if unscored is not None:
            missing = next(t.table for t in unscored.tables if t.table not in unscored.results)
            raise Stop(
                TournamentFailure(
                    "the tournament finished with no result recorded for this table",
                    None,
                    missing,
                )
            )
        report.checks.append(
            f"the seed matches its commitment; {paired} pairings re-run from the entries,"
            " the results before them and the seed: each is exactly the one recorded"
        )
    report.checks.append(f"{scored} table results recomputed from their tables as re-run")
    return tournament


@contextmanager
def _at(entry: _Recorded) -> Iterator[None]:
    """Checks of ``entry`` that fail as its version does. The rules' and the pairing's
    code takes the stream's events as the service wrote them; given a forger's, re-chained
    (an entry of no names, a round paired out of turn), it raises where it cannot go on,
    and that is a failure of this event, not of the verifier."""
    try:
        yield
    except Stop:
        raise
    except Exception as exc:  # any: the event is the export's, not the service's
        kind = type(entry.event).__struct_config__.tag
        message = f"{kind} cannot follow the events before it ({type(exc).__name__}: {exc})"
        raise Stop(TournamentFailure(message, entry.version)) from None


def _standings(tournament: Tournament, report: TournamentReport) -> list[Standing]:
    """The standings the verified results give, ranked as the service ranks them."""
    ranked, _ = stream.ranking(tournament)
    if ranked:
        report.checks.append(
            f"standings of {len(ranked)} entries recomputed from the results by the"
            f" {tournament.format} rules (below)"
        )
    return ranked


def _players(
    header: TournamentHeader, tables: dict[str, _Verified], report: TournamentReport
) -> None:
    """The players and partnerships ranked across the verified tables, folded by the
    read model's own code from their events (position aside, as the service has them)."""
    folded = read_model.Standings(tournament=header.tournament)
    for table_id, verified in tables.items():
        for event in verified.events:
            folded = read_model.fold(folded, table_id, event, 0)
    report.players, report.partnerships = folded.players, folded.partnerships
    if folded.players:
        finished = sum(1 for result in folded.tables.values() if result.finished)
        report.checks.append(
            f"players and partnerships recomputed from the {finished} finished tables'"
            " events (below)"
        )


def _check_described(header: TournamentHeader, folded: Tournament) -> None:
    """The header describes the stream: a report shows the header's words, and the
    tables it lists, whose exports follow, begin with every table the rounds paired (any
    after those the operator opened for the tournament by hand)."""
    created = folded.created
    said = (header.name, header.game, header.tournament_format, header.status)
    found = (created.name, created.game, created.format, folded.status)
    if said != found:
        raise Stop(
            TournamentFailure(
                f"the header says {' / '.join(map(str, said))}, the stream"
                f" {' / '.join(map(str, found))}",
                None,
            )
        )
    paired = folded.round_tables
    if header.tables[: len(paired)] != paired:
        raise Stop(
            TournamentFailure(
                f"the header lists tables {header.tables}; the stream's rounds paired {paired}",
                None,
            )
        )
    opened = folded.exported_tables
    if opened is not None and header.tables != opened:
        missing = [t for t in opened if t not in header.tables]
        stray = [t for t in header.tables if t not in opened]
        if missing:
            failure = TournamentFailure(
                "missing: a table the stream opened for the tournament", None, missing[0]
            )
        elif stray:
            failure = TournamentFailure(
                "a table the stream never opened for the tournament", None, stray[0]
            )
        else:
            failure = TournamentFailure(
                "the header does not list the tables the stream opened once each and in"
                f" order: {opened}",
                None,
            )
        raise Stop(failure)


def _check_pairing(tournament: Tournament, event: RoundPaired, seed: bytes, version: int) -> None:
    entrants = stream.entrants_of(tournament)
    history = stream.history_of(tournament)
    again = stream.pair_round(tournament, entrants, history, seed, event.round)
    seats = [list(s.seats) for s in again.tables]
    if seats != [t.seats for t in event.tables] or list(again.byes) != event.byes:
        raise Stop(
            TournamentFailure(
                f"round {event.round} is not the pairing that follows from the recorded"
                f" results and the seed: it should seat {seats} with byes {list(again.byes)}",
                version,
            )
        )
    if stream.inputs_digest(entrants, history, event.round) != event.inputs:
        raise Stop(TournamentFailure(f"round {event.round}'s inputs digest differs", version))


def _check_opened(
    tournament: Tournament,
    event: RoundPaired,
    table_id: str,
    seats: list[str],
    tables: dict[str, _Verified],
    version: int,
) -> None:
    found = tables[table_id]  # every table paired is exported: the header lists them all
    table = found.table
    expected = stream.seat_names(tournament, seats)
    if table.tournament != tournament.id or table.ends_at != event.deadline:
        raise Stop(TournamentFailure("the table was not opened for this round", version, table_id))
    first_names = [e.name for e in found.events if isinstance(e, SeatTaken)]
    if first_names[: len(expected)] != expected:
        raise Stop(
            TournamentFailure(
                f"the table seats {first_names[: len(expected)]}, the pairing {expected}",
                version,
                table_id,
            )
        )


def _check_scored(
    tournament: Tournament,
    event: TableScored,
    tables: dict[str, _Verified],
    version: int,
    with_decks: bool,
) -> None:
    found = tables.get(event.table)
    played = tournament.round_of(event.table)
    if found is None or played is None:
        raise Stop(TournamentFailure("a result for a table not in the export", version))
    seats = next(t.seats for t in played.tables if t.table == event.table)
    rules = tournament.created.results_rules
    result, reason = results.table_result(found.table, seats, found.events, rules)
    if (
        list(result.outcomes) != event.outcomes
        or list(result.scores) != event.scores
        or result.aborted != event.aborted
        or reason != event.reason
        or [list(d) for d in result.deal_scores] != event.deal_scores
        or (with_decks and list(result.deal_decks) != event.deal_decks)
    ):
        raise Stop(
            TournamentFailure(
                f"the recorded result is not the table's: it ended {reason},"
                f" {list(result.outcomes)} with {list(result.scores)}",
                version,
                event.table,
            )
        )
