"""service.read.loads: concurrent reads share statements, and none waits for ever."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from service.read.loads import BatchedLoads
from service.write.store import Snapshot


class CountingStore:
    """Answers every pair at once, and counts the statements sent."""

    def __init__(self) -> None:
        self.statements: list[list[tuple[str, int | None]]] = []

    async def load_many(
        self, wanted: Sequence[tuple[str, int | None]], *, replica: bool = False
    ) -> dict[tuple[str, int | None], Snapshot]:
        self.statements.append(list(wanted))
        await asyncio.sleep(0)
        return {key: Snapshot("pitch", 1, b"", None) for key in wanted}


def _loads(store: CountingStore, in_flight: int) -> BatchedLoads:
    loads = BatchedLoads(store, in_flight=in_flight)  # type: ignore[arg-type]
    return loads


async def test_a_load_right_after_another_is_answered() -> None:
    """The first load's sender has finished but not yet left the set of senders when
    the second load arrives: it must start a sender of its own, not wait for one."""
    loads = _loads(CountingStore(), in_flight=1)

    async def twice() -> Any:
        await loads.load("a", None)
        return await loads.load("b", None)

    assert await asyncio.wait_for(twice(), timeout=5) is not None


async def test_loads_that_arrive_together_share_a_statement() -> None:
    store = CountingStore()
    loads = _loads(store, in_flight=1)
    answers = await asyncio.gather(*(loads.load(f"t{n}", None) for n in range(20)))
    assert all(answers)
    assert len(store.statements) < 20
    assert sorted(key for statement in store.statements for key, _ in statement) == sorted(
        f"t{n}" for n in range(20)
    )
