"""Fill a store fast: whole random games played in the domain, committed directly."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from psycopg_pool import AsyncConnectionPool

from domain import table as tables
from projections.table_state import project
from service.audit.chain import GENESIS
from service.write.codec import event_data
from service.write.store import Commit, EventStore, NewEvent, new_table_id
from tests.support import endings
from tests.support.playout import Playout


async def seed_games(
    database_url: str, games: int, first_seed: int = 0, tournament: str | None = None
) -> list[str]:
    """``games`` complete Forty-Five games (one commit each); their table ids."""
    table_ids = []
    async with AsyncConnectionPool(database_url, kwargs={"autocommit": True}) as pool:
        store = EventStore(pool)
        for seed in range(first_seed, first_seed + games):
            table_id = new_table_id()
            created = tables.create(table_id, "forty-five", 4, {}, tournament=tournament)
            playout = Playout(created, seed)
            playout.seat_everyone()
            playout.play_out()
            await store.commit(commit_of(table_id, playout))
            table_ids.append(table_id)
    return table_ids


async def seed_endings(database_url: str, tournament: str | None = None) -> dict[str, str]:
    """One Forty-Five table ended each way DESIGN 10 allows (one commit each), in
    ``tournament``: each way's table id, by the table's ``result.reason``."""
    names = ["Ann", "Bob", "Cid", "Dee"]
    ended: dict[str, str] = {}
    async with AsyncConnectionPool(database_url, kwargs={"autocommit": True}) as pool:
        store = EventStore(pool)
        for seed, how in enumerate(("played", "resigned", "forfeit", "aborted")):
            table_id = new_table_id()
            clock = endings.FORFEIT if how == "forfeit" else None
            playout = endings.seated(table_id, names, seed=seed, tournament=tournament, clock=clock)
            if how == "played":
                playout.play_out()
            else:
                endings.play_until_scored(playout)
            if how == "resigned":
                endings.resign(playout, 1)
            elif how == "forfeit":
                endings.forfeit(playout)
            elif how == "aborted":
                endings.abort(playout)
            await store.commit(commit_of(table_id, playout))
            ended[how] = table_id
    return ended


def commit_of(table_id: str, playout: Playout) -> Commit:
    events: list[Any] = [NewEvent(event_data(e), "seed") for e in playout.events]
    return Commit(
        table_id=table_id,
        expected_version=0,
        previous_hash=GENESIS,
        events=events,
        row=project(playout.table, write_decks=True),
        at=datetime.now(UTC),
    )
