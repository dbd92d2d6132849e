"""The read models the projector keeps: each one's name, document type and fold.

The folds themselves are pure (``projections/``); the projector (``service.workers``)
runs them and the read side (``service.read.models``) reads their documents and
checkpoints.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec

from domain.events import Event
from projections import scoresheet, standings
from service.write.restored import READ_MODEL_PREFIX
from service.write.store import StoredEvent

Fold = Callable[[Any, str, StoredEvent, Event], Any]


@dataclass(frozen=True)
class Projection:
    """A read model: which document an event touches and how it folds into it."""

    name: str
    doc_type: type[msgspec.Struct]
    by_tournament: bool  # keyed by the table's tournament instead of the table
    fold: Fold

    @functools.cached_property
    def lock(self) -> int:  # asked for at every projector step
        digest = hashlib.sha256(f"cardroom-projection:{self.name}".encode()).digest()
        return int.from_bytes(digest[:8], "big", signed=True)

    @property
    def checkpoint_name(self) -> str:
        return f"{READ_MODEL_PREFIX}{self.name}"


def _fold_sheet(doc: Any, key: str, stored: StoredEvent, event: Event) -> Any:
    return scoresheet.fold(doc, event, stored.version, stored.position)


def _fold_standings(doc: Any, key: str, stored: StoredEvent, event: Event) -> Any:
    current = doc if doc is not None else standings.Standings(tournament=key)
    return standings.fold(current, stored.table_id, event, stored.position)


PROJECTIONS: dict[str, Projection] = {
    p.name: p
    for p in (
        Projection(scoresheet.NAME, scoresheet.ScoreSheet, False, _fold_sheet),
        Projection(standings.NAME, standings.Standings, True, _fold_standings),
    )
}
