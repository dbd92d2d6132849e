"""Scoring units: the seats that score together (a partnership) or each seat alone."""

from __future__ import annotations

from domain.registry import GAMES


def scoring_units(game_id: str, seats: int) -> list[list[int]]:
    """The seats behind each entry of a game's ``scores`` (``hand_scored``, ``game_won``)."""
    return [list(unit) for unit in GAMES[game_id].units(seats)]
