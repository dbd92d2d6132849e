"""A stream far behind its table catches up page by page: what the database answered
within a read's deadline is passed on, and the next look goes on from there. It once got
nothing unless it read everything within one deadline, so thousands of streams opened at
once on a long table read the same pages again at every event and never caught up."""

from __future__ import annotations

import asyncio
import gc
from datetime import UTC, datetime
from typing import Any

from domain.events import Passed
from service.http.live import PAGE, Follower, Opening, Record
from service.pg import within
from service.read.records import EventRecord
from service.read.watch import TableWatcher

AT = datetime(2026, 12, 6, tzinfo=UTC)


class SlowSecondPages(Follower):
    """A table of ``PAGE * 3`` events whose database answers one page per look, then
    stops answering until the look's deadline."""

    def __init__(self) -> None:
        opening = Opening(0, 900, TableWatcher("postgresql://nowhere"), read_seconds=0.05, scope={})
        super().__init__("t", opening)
        self.answered_this_look = False

    async def page(self) -> tuple[list[Record], bool]:
        if self.answered_this_look:
            await asyncio.sleep(3600)  # cancelled at the deadline
        self.answered_this_look = True
        first = self.last + 1
        records: list[Record] = [
            EventRecord(version=v, at=AT, actor="seat:0", event=Passed(seat=0))
            for v in range(first, min(first + PAGE, PAGE * 3 + 1))
        ]
        return records, False


async def test_each_look_passes_on_the_pages_read_before_its_deadline() -> None:
    follower = SlowSecondPages()
    seen = []
    for _ in range(4):
        follower.answered_this_look = False
        seen.append(len(await follower.catch_up()))
    assert seen == [PAGE, PAGE, PAGE, 0]
    assert follower.last == PAGE * 3


async def test_a_caller_cancelled_while_it_waits_leaves_no_error_unretrieved() -> None:
    """A stream whose client leaves is cancelled inside its read: the read it waited on
    failed later with nobody to see it, and asyncio logged an error for each."""
    reported: list[dict[str, Any]] = []
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _, context: reported.append(context))

    async def read_that_fails() -> None:
        await asyncio.sleep(0.05)
        raise TimeoutError("the pool timed out")

    try:
        waiting = asyncio.create_task(within(read_that_fails(), 5))
        await asyncio.sleep(0.01)
        waiting.cancel()
        await asyncio.sleep(0.1)  # the read fails meanwhile
        del waiting
        gc.collect()
        await asyncio.sleep(0)
    finally:
        loop.set_exception_handler(None)
    assert not [c for c in reported if "never retrieved" in c.get("message", "")], reported
