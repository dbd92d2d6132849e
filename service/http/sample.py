"""A sample table for the OpenAPI examples: real documents, not hand-written ones.

One Forty-Five table is played to its end through the domain, as the service plays it
(chance steps settled with seeded shuffles and committed seeds, revealed when spent), by
the bot's random choices from a fixed seed. The documents the API would answer at chosen
moments — views per audience, an action's result, event records, the score sheet and the
standings — are kept as JSON values. Ids, names, tokens and times are fixed, so the
OpenAPI document stays byte-stable; when the rules change, the examples follow.
"""

from __future__ import annotations

import hashlib
import random
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any

import msgspec

from domain import liveness
from domain import table as tables
from domain.commands import PlayerCommand
from domain.events import CardsDealt, Event, HandScored
from domain.protocol import SYSTEM, Audience, Chance
from domain.table import Table
from projections import scoresheet, standings
from service.audit.chain import GENESIS, canonical_bytes, chain
from service.choices import choose, pick_index
from service.read.records import EventRecord
from service.write.store import NewEvent

TABLE = "5f0c7e2a-3b1d-4c8e-9a6f-2d4b8e1c7a93"
TOURNAMENT = "0c3e8f4a-7d21-4b6e-8f90-1a2b3c4d5e6f"
NAMES = ("Ann", "Bob", "Cid", "Dee")
TOKEN = "q3Vb8rKx0mYl6T2pZc9NfW4hJ7sEa1GdUoRiXnLkPtM"
START = datetime(2026, 3, 1, 19, 30, tzinfo=UTC)
_COMMAND = msgspec.json.Decoder(PlayerCommand)


def at(version: int) -> datetime:
    return START + timedelta(seconds=4 * version)


def json(value: Any) -> Any:
    """A struct as the JSON value the API sends."""
    return msgspec.to_builtins(value)


class Sample(msgspec.Struct, kw_only=True):
    """The table's events (version, actor, event) and the tables at chosen moments."""

    events: list[tuple[int, str, Event]] = msgspec.field(default_factory=list)
    created: Any = None  # just created, nobody seated
    first_turn: Any = None  # dealt: the first seat to act in the auction
    before_bid: Any = None  # the first bid of the game: the table before it and after
    after_bid: Any = None
    choice: Any = None  # a seat is offered a card choice (the exchange)
    scored: Any = None  # right after the second deal is scored
    final: Any = None

    def record(self, table: Table[Any], events: list[Event], actor: str) -> Table[Any]:
        """``table`` after a seat's ``events`` and the chance steps they lead to."""
        return self.settle(self._append(table, events, actor))

    def settle(self, table: Table[Any]) -> Table[Any]:
        """Reveal spent seeds and deal, until a seat is to act (``domain.table.settle``)."""
        for step in tables.settle(table, _Seeded()):
            table = self._append(table, step.events, SYSTEM)
        return table

    def _append(self, table: Table[Any], events: list[Event], actor: str) -> Table[Any]:
        for event in events:
            table = tables.evolve(table, event)
            self.events.append((table.version, actor, event))
        return table

    def deal_outcome(self, version: int) -> dict[str, Any]:
        """The last deal scored by ``version``, as the duplicate-deal report shows one
        table's play of it, and the commitment of its deck."""
        scored_at, scored = next(
            (v, e)
            for v, _, e in reversed(self.events)
            if v <= version and isinstance(e, HandScored)
        )
        dealt = next(
            e for v, _, e in reversed(self.events) if v < scored_at and isinstance(e, CardsDealt)
        )
        contract = scored.contract
        return {
            "commitment": dealt.commitment,
            "table": {
                "table": TABLE,
                "players": list(NAMES),
                "units": [[0, 2], [1, 3]],
                "version": scored_at,
                "dealer": dealt.dealer,
                "outcome": "scored",
                "contract": json(contract),
                "declarer": NAMES[contract.seat] if contract else None,
                "changes": scored.changes,
                "scores": scored.scores,
            },
        }

    def records(self, audience: Audience, first: int = 1, last: int | None = None) -> list[Any]:
        """Event records from version ``first`` to ``last`` as ``audience`` may see them."""
        game = self.final.rules
        return [
            json(EventRecord(v, at(v), actor, tables.redact(game, event, audience)))
            for v, actor, event in self.events
            if first <= v <= (last or v)
        ]


class _Seeded:
    """Every shuffle's seed derived from its number, so the examples never change."""

    def revealed(self, shuffle_no: int) -> bytes:
        return _seed(shuffle_no)

    def seed(self, shuffle_no: int, chance: Chance) -> bytes:
        return _seed(shuffle_no)


def _seed(shuffle_no: int) -> bytes:
    return hashlib.sha256(f"cardroom example shuffle {shuffle_no}".encode()).digest()


@cache
def sample() -> Sample:
    # Created by the operator: only the operator may name the first dealer.
    created = tables.create(TABLE, "forty-five", 4, {}, first_dealer=0)
    kept = Sample(events=[(1, "operator", created)])
    table = kept.created = tables.start(created)
    for seat, name in enumerate(NAMES):
        table = kept.record(table, tables.take_seat(table, seat, name), f"seat:{seat}")
    kept.first_turn = table
    rng = random.Random(45)
    while table.status == "playing":
        seat = tables.to_act(table)[0]
        actions = json(tables.legal_actions(table, seat))
        if kept.choice is None and any(a["type"] == "exchange" for a in actions):
            kept.choice = table
        chosen = choose(actions[pick_index(actions, rng)], rng)
        command = _COMMAND.decode(msgspec.json.encode(chosen))
        before = table
        table = kept.record(table, tables.decide(table, command, seat), f"seat:{seat}")
        if kept.before_bid is None and chosen["type"] == "bid":
            kept.before_bid, kept.after_bid = before, table
        if kept.scored is None and sum(isinstance(e, HandScored) for *_, e in kept.events) == 2:
            kept.scored = table
    kept.final = table
    return kept


def head(version: int) -> str:
    """The sample table's chain hash at ``version`` (over its events, as the store hashes)."""
    previous = GENESIS
    for v, actor, event in sample().events:
        data = msgspec.to_builtins(event)
        previous = chain(previous, canonical_bytes(TABLE, v, at(v), NewEvent(data, actor)))
        if v == version:
            break
    return previous.hex()


def view(table: Table[Any], audience: Audience) -> Any:
    return json(tables.view(table, audience))


def sheet(upto: int) -> Any:
    """The score sheet as the projector has it after version ``upto``."""
    folded = None
    for version, _, event in sample().events:
        if version <= upto:
            folded = scoresheet.fold(folded, event, version, version)
    return json(folded)


def ranking() -> Any:
    """The standings of a tournament whose one table is the finished sample."""
    ranked = standings.Standings(tournament=TOURNAMENT)
    for version, _, event in sample().events:
        ranked = standings.fold(ranked, TABLE, event, version)
    return json(ranked)


def _after(table: Table[Any], events: list[Event]) -> Table[Any]:
    for event in events:
        table = tables.evolve(table, event)
    return table


def aborted(table: Table[Any]) -> Table[Any]:
    """``table`` as the operator's abort leaves it."""
    return _after(table, liveness.abort(table, "The hall closes at nine"))


def paused(table: Table[Any]) -> Table[Any]:
    """``table`` paused by the operator."""
    return _after(table, liveness.pause(table, at(table.version + 1)))
