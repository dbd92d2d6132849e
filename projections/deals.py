"""A table's deals, one record each: how it was dealt and how it ended (a pure fold).

The verifier's report prints these and the duplicate-deal report compares them across a
tournament's tables. A table's k-th deal takes the operator's k-th deck while they last
(``domain.table.supplied_deck``), so ``deal`` here counts deals, thrown-in ones included,
and is the index that lines up one deck across tables.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.events import (
    CardsDealt,
    Contract,
    DealThrownIn,
    Event,
    HandScored,
    SeedRevealed,
    TableCreated,
)
from domain.pinochle.events import ChipsSettled

Outcome = Literal["scored", "thrown_in", "in_play"]


class DealRecord(msgspec.Struct, kw_only=True):
    """One deal of a table: its deck, its dealer, its contract and what it scored.

    ``changes`` and ``scores`` are per scoring unit (a seat or a partnership, as the game
    scores; chips for chip tables); ``scores`` are the running totals after the deal.
    """

    deal: int
    shuffle: int
    version: int
    dealer: int
    commitment: str
    supplied: bool
    seed: str | None = None
    outcome: Outcome = "in_play"
    contract: Contract | None = None
    changes: list[int] = msgspec.field(default_factory=list)
    scores: list[int] = msgspec.field(default_factory=list)


class DealTally:
    """Folds a table's events, in version order, into its deal records."""

    def __init__(self) -> None:
        self.supplied_decks = 0
        self.deals: list[DealRecord] = []
        self._by_shuffle: dict[int, DealRecord] = {}

    def add(self, version: int, event: Event) -> None:
        current = self.deals[-1] if self.deals else None
        match event:
            case TableCreated(supplied_decks=supplied):
                self.supplied_decks = supplied
            case CardsDealt():
                record = DealRecord(
                    deal=len(self.deals) + 1,
                    shuffle=event.shuffle,
                    version=version,
                    dealer=event.dealer,
                    commitment=event.commitment,
                    supplied=len(self.deals) < self.supplied_decks,
                )
                self.deals.append(record)
                self._by_shuffle[event.shuffle] = record
            case SeedRevealed(shuffle=shuffle, seed=seed) if shuffle in self._by_shuffle:
                self._by_shuffle[shuffle].seed = seed
            case DealThrownIn() if current is not None:
                current.outcome = "thrown_in"
            case HandScored() if current is not None:
                _score(current, event.changes, event.scores, event.contract)
            case ChipsSettled() if current is not None and event.reason != "kitty_shared":
                # Sharing out the kitty settles the table, not the deal.
                if event.reason != "thrown_in":
                    current.outcome = "scored"
                _score(current, event.changes, event.scores, event.contract, chips=True)


def _score(
    record: DealRecord,
    changes: list[int],
    scores: list[int],
    contract: Contract | None,
    chips: bool = False,
) -> None:
    if not chips:
        record.outcome = "scored"
    if record.changes and len(record.changes) == len(changes):
        record.changes = [a + b for a, b in zip(record.changes, changes, strict=True)]
    else:
        record.changes = list(changes)
    record.scores = list(scores)
    record.contract = contract or record.contract


def deal_records(events: list[tuple[int, Event]]) -> list[DealRecord]:
    tally = DealTally()
    for version, event in events:
        tally.add(version, event)
    return tally.deals
