"""Scoring units: the seats that score together (a partnership) or each seat alone."""

from __future__ import annotations

from domain.registry import GAMES


def scoring_units(game_id: str, seats: int) -> list[list[int]]:
    """The seats behind each entry of a game's ``scores`` (``hand_scored``, ``game_won``)."""
    units = getattr(GAMES[game_id], "units", None)
    if units is not None:
        return [list(unit) for unit in units(seats)]
    return [[seat] for seat in range(seats)]
