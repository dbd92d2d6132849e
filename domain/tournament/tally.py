"""What each entry played so far, read from the finished rounds (RULES 5.2).

Pairing (who has met whom, who has had a bye, which side an entry sat) and the standings
read the same lines, so the two can never count a round differently.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

import msgspec

from domain.tournament.field import table_entries
from domain.tournament.model import Format, RoundRecord, Seating, Shape

Result = Literal["win", "loss", "draw", "bye"]

RESULT_POINTS: dict[Result, float] = {"win": 1.0, "draw": 0.5, "loss": 0.0}


class Played(msgspec.Struct, frozen=True):
    """One round of one entry: its table's index in the round (``None`` for a bye), the
    entries it played against, its result, the first seat it held and its game points."""

    round: int
    table: int | None
    opponents: tuple[str, ...]
    result: Result
    seat: int | None = None
    score: int = 0


def bye_points(format: Format) -> float:
    """A bye scores as a win where byes go to one entry a round (swiss, round-robin), as
    half a win where entries sit out in turn (progressive, duplicate)."""
    return 1.0 if format in (Format.SWISS, Format.ROUND_ROBIN) else 0.5


def points(format: Format, lines: Iterable[Played]) -> float:
    # 0.0, not 0, for no lines: the standings show every entry's points alike.
    return sum(
        (
            bye_points(format) if line.result == "bye" else RESULT_POINTS[line.result]
            for line in lines
        ),
        0.0,
    )


def opponents(shape: Shape, seating: Seating) -> dict[str, tuple[str, ...]]:
    """Who each entry at the table plays against: the other side, or everyone else at a
    table without sides (a partner is not an opponent)."""
    entries = table_entries(seating)
    if len(entries) == 2:  # the common case of the two-sided formats, kept quick
        return {entries[0]: (entries[1],), entries[1]: (entries[0],)}
    if shape.sides is None:
        return {own: tuple(e for e in entries if e != own) for own in entries}
    side_of = dict(zip(seating.seats, shape.sides, strict=True))
    return {own: tuple(e for e in entries if side_of[e] != side_of[own]) for own in entries}


def played(shape: Shape, history: Sequence[RoundRecord]) -> dict[str, list[Played]]:
    """Every entry's rounds, in order. An aborted table counts nowhere: it is left out."""
    lines: dict[str, list[Played]] = {}
    for record in history:
        number = record.pairing.round
        tables = zip(record.pairing.tables, record.results, strict=True)
        for index, (seating, result) in enumerate(tables):
            if result.aborted:
                continue
            for entry, against in opponents(shape, seating).items():
                seat = seating.seats.index(entry)
                line = Played(
                    round=number,
                    table=index,
                    opponents=against,
                    result=result.outcomes[seat],
                    seat=seat,
                    score=result.scores[seat],
                )
                lines.setdefault(entry, []).append(line)
        for entry in record.pairing.byes:
            bye = Played(round=number, table=None, opponents=(), result="bye")
            lines.setdefault(entry, []).append(bye)
    return lines


def byes(lines: Iterable[Played]) -> int:
    return sum(line.result == "bye" for line in lines)
