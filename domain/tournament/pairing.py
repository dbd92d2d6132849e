"""The one entry point of tournament pairing (DESIGN 14, RULES 5).

``pair`` is a pure function of the format, the game's table shape, the entries, the
finished rounds and the tournament's seed: the verifier re-runs it from an export and must
get the same tables. Each format lives in its own module; this one checks the inputs,
says which formats fit which games, and dispatches.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.tournament import berger
from domain.tournament.duplicate import pair_duplicate
from domain.tournament.field import Inputs, check_round
from domain.tournament.model import PAIRING_RULES, Entrant, Format, Pairing, RoundRecord, Shape
from domain.tournament.progressive import pair_progressive
from domain.tournament.swiss import pair_swiss

TWO_SIDED = (Format.SWISS, Format.ROUND_ROBIN)


def fits(format: Format, shape: Shape) -> str | None:
    """Why ``format`` does not fit a game of this ``shape`` (``None`` if it does). The
    message starts with the field to blame, ``format`` or ``entry`` (RULES 5.1)."""
    sides = shape.sides or ()
    two_sides = sorted(set(sides)) == [0, 1]
    if shape.entry_seats == 2 and not (two_sides and sides.count(0) == sides.count(1) == 2):
        return "entry: pair entries need a partnership game (two seats a side)"
    if format in TWO_SIDED:
        if not two_sides:
            return f"format: {format} needs a game of two sides"
        if shape.entries_per_table != 2:
            return f"entry: {format} needs one entry a side; use pair entries in this game"
    if format == Format.PROGRESSIVE:
        if shape.entry_seats != 1:
            return "entry: progressive moves single players; use single entries"
        if shape.entries_per_table < 3:
            return f"format: progressive needs tables of three or more, not {shape.seats}"
    if format == Format.DUPLICATE and shape.entries_per_table < 2:
        return "format: duplicate needs two entries or more at a table"
    return None


def rounds_needed(format: Format, entrants: int) -> int | None:
    """How many rounds the format takes for a field of ``entrants`` (round-robin: every
    pair meets once); ``None`` where the director chooses."""
    return berger.rounds_needed(entrants) if format == Format.ROUND_ROBIN else None


def pair(
    format: Format,
    shape: Shape,
    entrants: Sequence[Entrant],
    history: Sequence[RoundRecord],
    seed: bytes,
    round: int,
    *,
    rules: int = PAIRING_RULES,
) -> Pairing:
    """The tables and byes of ``round`` (numbered from 1) after the finished rounds
    ``history`` (in order), by the pairing ``rules`` of that version. Withdrawn entries
    are never paired; an entry joins in its ``first_round``. Raises ``ValueError`` for a
    format that does not fit the shape, a history that is not rounds 1..round-1, or a
    round-robin round past its last."""
    problem = fits(format, shape)
    if problem is not None:
        raise ValueError(problem)
    check_round(history, round)
    formats = {
        Format.SWISS: pair_swiss,
        Format.ROUND_ROBIN: berger.pair_round_robin,
        Format.PROGRESSIVE: pair_progressive,
        Format.DUPLICATE: pair_duplicate,
    }
    if format in formats:
        return formats[format](Inputs(shape, entrants, history, seed, round, rules))
    raise ValueError("format: an open tournament has no pairing; the operator opens tables")
