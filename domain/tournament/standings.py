"""Standings (DESIGN 14, RULES 5.7): points, the format's tie-breaks, then game points.

Points are 1 a win, 1/2 a draw and a bye's worth by format (``tally.bye_points``). Buchholz
sums the final points of every opponent played (a bye adds nothing); Sonneborn-Berger
sums those of the opponents beaten and half of those drawn with. Entries level on every
figure that ranks share a rank, and the next rank skips as many places.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from domain.tournament.duplicate import Matchpoints, matchpoints
from domain.tournament.model import Entrant, Format, RoundRecord, Shape
from domain.tournament.tally import Result, played, points

TIE_BREAKS: dict[Format, tuple[str, ...]] = {
    Format.SWISS: ("buchholz", "sonneborn_berger"),
    Format.ROUND_ROBIN: ("buchholz", "sonneborn_berger"),
    Format.DUPLICATE: ("matchpoints", "percentage"),
}


class RoundLine(msgspec.Struct, frozen=True):
    """One round of an entry: its table's index in the round (``None`` for a bye)."""

    round: int
    table: int | None
    opponents: list[str]
    result: Result


class Placing(msgspec.Struct, frozen=True):
    """An entry's rank and every figure that ranks it. The API's ``EntryStanding`` is a
    placing too, with its rounds' tables named by id (``service.http.schemas``)."""

    entry: str
    name: str | None
    rank: int
    points: float
    wins: int
    losses: int
    draws: int
    score: int
    buchholz: float
    sonneborn_berger: float
    matchpoints: float
    percentage: float


class Standing(Placing, frozen=True):
    rounds: list[RoundLine]


def standings(
    format: Format,
    shape: Shape,
    entrants: Sequence[Entrant],
    history: Sequence[RoundRecord],
    names: Mapping[str, str] | None = None,
) -> list[Standing]:
    """Every entry, best first. Entries that share a rank are listed in entry order."""
    lines = played(shape, history)
    total = {e.entry: points(format, lines.get(e.entry, ())) for e in entrants}
    compared = matchpoints(shape, history) if format == Format.DUPLICATE else {}
    unranked = []
    for e in entrants:
        mine = lines.get(e.entry, [])
        against = [(o, line.result) for line in mine for o in line.opponents]
        tally = compared.get(e.entry, Matchpoints())
        unranked.append(
            Standing(
                entry=e.entry,
                name=None if names is None else names.get(e.entry),
                rank=0,
                points=total[e.entry],
                wins=sum(line.result == "win" for line in mine),
                losses=sum(line.result == "loss" for line in mine),
                draws=sum(line.result == "draw" for line in mine),
                score=sum(line.score for line in mine),
                buchholz=sum((total.get(o, 0.0) for o, _ in against), 0.0),
                sonneborn_berger=sum(
                    (total.get(o, 0.0) * {"win": 1.0, "draw": 0.5}.get(r, 0.0) for o, r in against),
                    0.0,
                ),
                matchpoints=tally.earned,
                percentage=tally.percentage,
                rounds=[
                    RoundLine(ln.round, ln.table, list(ln.opponents), ln.result) for ln in mine
                ],
            )
        )

    def key(s: Standing) -> tuple[float, ...]:
        figures = (getattr(s, field) for field in TIE_BREAKS.get(format, ()))
        return (s.points, *figures, s.score)

    ordered = sorted(unranked, key=key, reverse=True)
    ranked: list[Standing] = []
    previous: tuple[float, ...] | None = None
    for place, standing in enumerate(ordered, start=1):
        rank = ranked[-1].rank if previous == key(standing) else place
        ranked.append(msgspec.structs.replace(standing, rank=rank))
        previous = key(standing)
    return ranked
