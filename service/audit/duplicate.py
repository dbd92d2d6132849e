"""Duplicate deals: how each operator deck went at each table of a tournament (pure).

A deck is identified by its commitment (the SHA-256 of the deck's text), so "the same
deal" means the very same card order, whichever way it reached the table (the
tournament's decks or a table's own). Only operator decks are compared: a shuffled deal
is played at one table only.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from domain.events import Contract, Event, SeatTaken, TableCreated
from projections.deals import Outcome, deal_records
from projections.units import scoring_units


class TableDeal(msgspec.Struct, frozen=True, kw_only=True):
    """One table's play of a deal. ``changes`` and ``scores`` (the running totals after
    the deal) are per scoring unit: ``units`` lists each unit's seats."""

    table: str
    players: list[str | None]
    units: list[list[int]]
    version: int
    dealer: int
    outcome: Outcome
    contract: Contract | None
    declarer: str | None
    changes: list[int]
    scores: list[int]


class DuplicateDeal(msgspec.Struct, frozen=True, kw_only=True):
    """One operator deck, dealt as the ``deal``-th deal at each of ``tables``."""

    deal: int
    commitment: str
    tables: list[TableDeal]


class DuplicateReport(msgspec.Struct, frozen=True, kw_only=True):
    """Deal by deal, each table's contract, result and scores for the same cards.

    ``decks`` is how many decks the tournament itself holds for its tables.
    """

    tournament: str
    game: str
    decks: int
    deals: list[DuplicateDeal]


# The only events the report needs: the rest of a table's stream is never read.
EVENT_TYPES = (
    "table_created",
    "seat_taken",
    "cards_dealt",
    "seed_revealed",
    "deal_thrown_in",
    "hand_scored",
    "chips_settled",
)


def compare(
    tournament: str,
    game: str,
    decks: int,
    streams: Sequence[tuple[str, list[tuple[int, Event]]]],
) -> DuplicateReport:
    """``streams``: each table's id and its events (those of ``EVENT_TYPES`` suffice)."""
    groups: dict[tuple[int, str], list[TableDeal]] = {}
    for table_id, events in streams:
        players: list[str | None] = []
        units: list[list[int]] = []
        for _, event in events:
            match event:
                case TableCreated(seats=seats):
                    players = [None] * seats
                    units = scoring_units(event.game, seats)
                case SeatTaken(seat=seat, name=name):
                    players[seat] = name
        for record in deal_records(events):
            if not record.supplied:
                continue
            contract = record.contract
            groups.setdefault((record.deal, record.commitment), []).append(
                TableDeal(
                    table=table_id,
                    players=players,
                    units=units,
                    version=record.version,
                    dealer=record.dealer,
                    outcome=record.outcome,
                    contract=contract,
                    declarer=None if contract is None else players[contract.seat],
                    changes=record.changes,
                    scores=record.scores,
                )
            )
    ordered = sorted(groups.items(), key=lambda item: item[0][0])  # stable: first seen first
    return DuplicateReport(
        tournament=tournament,
        game=game,
        decks=decks,
        deals=[
            DuplicateDeal(deal=deal, commitment=commitment, tables=plays)
            for (deal, commitment), plays in ordered
        ],
    )
