"""service.read.loads: concurrent questions share statements, never one already sent, and
none waits for ever."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from service.read.loads import Batched, BatchedLoads
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


@pytest.mark.parametrize("in_flight", [1, 2])
async def test_a_question_never_joins_a_statement_already_sent(in_flight: int) -> None:
    """Asked while a statement for the same key is on the wire, a question is answered
    by a statement sent after it (the first may predate a commit its caller has seen)."""
    on_the_wire = asyncio.Event()
    release = asyncio.Event()
    statements: list[list[str]] = []

    async def ask(keys: Sequence[str]) -> dict[str, int]:
        statements.append(list(keys))
        sent = len(statements)
        if sent == 1:
            on_the_wire.set()
            await release.wait()
        return {key: sent for key in keys}

    batched: Batched[str, int] = Batched(ask, "test", in_flight=in_flight)
    first = asyncio.create_task(batched.get("t"))
    await on_the_wire.wait()
    second = asyncio.create_task(batched.get("t"))
    await asyncio.sleep(0)
    release.set()
    assert (await first, await second) == (1, 2)
    assert statements == [["t"], ["t"]]


async def test_a_failed_statement_fails_its_questions_and_not_the_next() -> None:
    calls = 0

    async def ask(keys: Sequence[str]) -> dict[str, int]:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise OSError("connection lost")
        return {key: 7 for key in keys}

    batched: Batched[str, int] = Batched(ask, "test", in_flight=1)
    failed = await asyncio.gather(batched.get("a"), batched.get("b"), return_exceptions=True)
    assert all(isinstance(answer, OSError) for answer in failed)
    assert await batched.get("a") == 7
