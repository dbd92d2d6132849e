"""The verifier's report as text: what was played, each check, each deal, the verdict."""

from __future__ import annotations

import unicodedata
from typing import Any

import msgspec

from domain import RULES_ENGINE_VERSION
from domain.tournament.model import Format
from domain.tournament.standings import TIE_BREAKS
from projections.deals import DealRecord
from projections.standings import Entrant
from service.audit.tournament_verify import TournamentFailure, TournamentReport
from service.audit.verify import Report


def render(report: Report) -> str:
    lines: list[str] = ["Cardroom export verification", ""]
    header = report.header
    if header is not None:
        players = "  ".join(f"{p.seat}: {p.name or '-'}" for p in header.players)
        lines += [
            f"table     {header.table}",
            f"game      {header.game}, {header.seats} seats, options {_json(header.options)}"
            + (f", tournament {header.tournament}" if header.tournament else ""),
            f"rules     engine {header.rules_version} (verifier {RULES_ENGINE_VERSION})",
            f"players   {players}",
            f"exported  {header.exported_at:%Y-%m-%d %H:%M:%S} UTC, {header.status}"
            f" at version {header.version}",
            "",
        ]
    lines.append("checks")
    lines += [f"  ok    {check}" for check in report.checks]
    if report.failure is not None:
        lines.append(f"  FAIL  {_where(report)}: {report.failure.message}")
    if report.deals:
        lines += ["", *_deal_table(report)]
    if report.notes:
        lines += ["", "notes", *(f"  - {note}" for note in report.notes)]
    lines.append("")
    if report.failure is None:
        lines.append("RESULT: OK — the export is intact and every event follows from the rules")
    else:
        lines.append(f"RESULT: FAILED at {_where(report)}")
    return _text(lines)


def _text(lines: list[str]) -> str:
    """The report's lines, each shown as one line whatever the file put in it. An export
    is a file nobody need trust, and a name in it may hold a newline or a terminal's
    control sequence: a forged "RESULT: OK" line, or the real verdict made invisible
    (``ESC [8m``). Such characters are written as escapes (``\\n``, ``\\x1b``, ``\\u202e``)."""
    return "".join(_shown(line) + "\n" for line in lines)


def _shown(line: str) -> str:
    if line.isprintable():
        return line
    return "".join(
        c if c.isprintable() or unicodedata.category(c) == "Zs" else ascii(c)[1:-1] for c in line
    )


def _json(value: Any) -> str:
    return msgspec.json.encode(value).decode()


def _where(report: Report) -> str:
    failure = report.failure
    assert failure is not None
    where = "the header" if failure.version is None else f"version {failure.version}"
    return where + (f" (line {failure.line})" if failure.line is not None else "")


def _deal_table(report: Report) -> list[str]:
    over = report.header is not None and report.header.status not in ("waiting", "playing")
    units = [
        "seats " + "+".join(str(s) for s in unit) if len(unit) > 1 else f"seat {unit[0]}"
        for unit in report.units
    ]
    rows = [
        ("deal", "version", "dealer", "deck", "contract", "change", "scores"),
        *(_deal_row(deal, over) for deal in report.deals),
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    title = "deals (change and scores per " + ", ".join(units) + ")"
    lines = [title]
    for row in rows:
        lines.append("  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
    return [line.rstrip() for line in lines]


def _deal_row(deal: DealRecord, over: bool) -> tuple[str, ...]:
    """One deal's row; ``over``: the table has ended (its last deal, if unscored, with it)."""
    if deal.supplied:
        deck = "operator deck"
    elif deal.seed:
        deck = f"seed {deal.seed[:12]}…"
    else:
        deck = "seed not revealed"
    if deal.outcome == "thrown_in":
        contract = "thrown in"
    elif deal.outcome == "in_play":
        # Not scored: still in play, or cut short by a forfeit, a resignation or an abort.
        contract = "not played out" if over else "in play"
    elif deal.contract is not None:
        made = "made" if deal.contract.made else "set"
        contract = f"seat {deal.contract.seat} {deal.contract.amount} {made}"
    else:
        contract = "-"
    return (
        str(deal.deal),
        str(deal.version),
        str(deal.dealer),
        deck,
        contract,
        " ".join(f"{c:+d}" for c in deal.changes),
        " ".join(str(s) for s in deal.scores),
    )


def render_tournament(report: TournamentReport) -> str:
    """A tournament export's verification: its stream's checks, each table's verdict."""
    lines: list[str] = ["Cardroom tournament export verification", ""]
    header = report.header
    if header is not None:
        lines += [
            f"tournament  {header.tournament} ({header.name})",
            f"game        {header.game}, {header.tournament_format}, {len(header.tables)} tables",
            f"exported    {header.exported_at:%Y-%m-%d %H:%M:%S} UTC, {header.status}"
            f" at version {header.version}",
            "",
        ]
    lines.append("checks")
    lines += [f"  ok    {check}" for check in report.checks]
    failure = report.failure
    if failure is not None:
        lines.append(f"  FAIL  {_tournament_where(failure)}: {failure.message}")
    if report.standings:
        lines += ["", "standings", *_standing_lines(report)]
    for title, entrants in (("players", report.players), ("partnerships", report.partnerships)):
        if entrants:
            lines += ["", title, *_entrant_lines(entrants)]
    if report.notes:
        lines += ["", "notes", *(f"  - {note}" for note in report.notes)]
    lines.append("")
    if failure is None and report.pairings_rerun:
        lines.append("RESULT: OK — the stream is intact, every pairing and result follows")
    elif failure is None:
        lines.append(
            "RESULT: OK so far — the stream is intact and every result follows; the"
            " pairings are not re-run until the seed is revealed"
        )
    else:
        lines.append(f"RESULT: FAILED at {_tournament_where(failure)}")
    return _text(lines)


def _tournament_where(failure: TournamentFailure) -> str:
    where = []
    if failure.version is not None:
        where.append(f"tournament version {failure.version}")
    if failure.table is not None:
        where.append(f"table {failure.table}")
    return ", ".join(where) or "the export"


def _entrant_lines(entrants: list[Entrant]) -> list[str]:
    """One line a player or partnership in the published order (games won, then score,
    then name): tables played and won, score."""
    return [f"  {e.name}  played {e.played}  won {e.won}  score {e.score}" for e in entrants]


def _standing_lines(report: TournamentReport) -> list[str]:
    """One line an entry: rank, name, points, wins-losses-draws, game points and the
    format's tie-breaks, in the order they rank by."""
    header = report.header
    format = Format(header.tournament_format) if header is not None else Format.OPEN
    breaks = TIE_BREAKS.get(format, ())
    lines = []
    for s in report.standings:
        figures = "".join(f"  {field} {getattr(s, field):g}" for field in breaks)
        lines.append(
            f"  {s.rank:>3}  {s.name or s.entry}  {s.points:g} pts"
            f"  {s.wins}-{s.losses}-{s.draws}{figures}  score {s.score}"
        )
    return lines
