"""A deal's result as every game records it: points per scoring unit, and running scores."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from domain.events import Contract, HandScored, ScoreItem


def points_by_unit(items: Iterable[ScoreItem], units: int) -> list[int]:
    """What ``items`` give each of ``units`` units (sides or seats, as the game scores)."""
    points = [0] * units
    for item in items:
        points[item.unit] += item.points
    return points


def hand_scored(
    deal: int,
    items: list[ScoreItem],
    changes: list[int],
    before: Sequence[int],
    contract: Contract | None = None,
) -> HandScored:
    """The deal's ``hand_scored``: the running scores are ``before`` plus ``changes``."""
    scores = [b + c for b, c in zip(before, changes, strict=True)]
    return HandScored(deal=deal, items=items, changes=changes, scores=scores, contract=contract)
