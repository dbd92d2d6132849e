"""Rebuild speed: fill a scratch store with whole games, then replay every read model."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime
from typing import Any

from psycopg_pool import AsyncConnectionPool

from projections.table_state import project
from service.audit.chain import GENESIS
from service.read.catalog import PROJECTIONS
from service.tools.bench.plan import plan_game
from service.workers.projector import Projector
from service.write.codec import event_data
from service.write.store import Commit, EventStore, NewEvent


async def fill(database_url: str, events: int) -> int:
    """Whole Forty-Five games, one commit each, until ``events`` are stored."""
    stored = 0
    seed = 0
    async with AsyncConnectionPool(database_url, kwargs={"autocommit": True}) as pool:
        store = EventStore(pool)
        while stored < events:
            table_id = str(uuid.uuid4())
            plan = plan_game("forty-five", 4, seed, table_id=table_id)
            seed += 1
            await store.commit(
                Commit(
                    table_id=table_id,
                    expected_version=0,
                    previous_hash=GENESIS,
                    events=[NewEvent(event_data(e), "bench") for e in plan.events],
                    row=project(plan.table, write_decks=True),
                    at=datetime.now(UTC),
                )
            )
            stored += len(plan.events)
    return stored


async def measure(database_url: str, events: int) -> dict[str, Any]:
    started = time.monotonic()
    stored = await fill(database_url, events)
    filled = time.monotonic() - started
    rebuilt: dict[str, Any] = {}
    async with AsyncConnectionPool(database_url, kwargs={"autocommit": True}) as pool:
        projector = Projector(pool, batch=2000)
        for name, projection in PROJECTIONS.items():
            count, seconds = await projector.rebuild(projection)
            rebuilt[name] = {
                "events": count,
                "seconds": round(seconds, 2),
                "events_per_second": round(count / seconds, 1),
            }
    return {
        "benchmark": "rebuild",
        "events_in_store": stored,
        "fill_seconds": round(filled, 1),
        "rebuild": rebuilt,
    }
