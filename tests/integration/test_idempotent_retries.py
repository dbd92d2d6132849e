"""A retry that loses the race to its own first try gets that first try's answer.

A phone whose command is slow to answer sends it again with the same Idempotency-Key,
perhaps to another process. The retry looks its key up first and finds nothing: the
first try has not committed yet. Then the first try commits, and the retry reads a table
on which its command is refused: the version its If-Match named has moved on, or the
`leave` it repeats has revoked the very token it carries. The command was made once, and
the retry must say so with the first answer, not with a 412 or a 401.

Two processes are two :class:`TableService` objects (each with its own snapshot cache) on
one database. A hook on the retry's key lookup lets the first try commit at exactly that
moment, so the interleaving is the same on every run.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import psycopg
import pytest
from psycopg_pool import AsyncConnectionPool

from domain import table as tables
from domain.commands import Leave, Pass, PlayerCommand
from domain.tournament.model import Format
from domain.tournament.stream import Terms
from service.write.handler import Answer, TableService, etag
from service.write.store import EventStore, IdempotencyRecord, new_table_id
from service.write.tournament_store import TournamentStore
from service.write.tournaments import TournamentService
from tests.domain.tournament.rounds import bridge_terms
from tests.support import services

T = TypeVar("T")


@pytest.fixture(scope="module")
def database_url() -> str:
    return services.fresh_database("retries_")


async def seated_table(service: TableService) -> tuple[str, int]:
    """A Forty-Five table with every seat taken: its id and the seat to act."""
    created = tables.create(new_table_id(), "forty-five", 4, {})
    table, _ = await service.create(created, {}, "operator", players=["A", "B", "C", "D"])
    return table.id, tables.to_act(table)[0]


def first_try_commits_after_the_lookup(
    retry: TableService, first_try: Callable[[], Awaitable[T]]
) -> list[T]:
    """Make ``retry``'s first key lookup miss and ``first_try`` commit right after it;
    the list gets the first try's answer."""
    answers: list[T] = []
    lookup = retry.store.idempotent_answer

    async def racing(table_id: str, actor: str, key: str) -> IdempotencyRecord | None:
        found = await lookup(table_id, actor, key)
        if not answers:
            answers.append(await first_try())
        return found

    retry.store.idempotent_answer = racing  # type: ignore[method-assign]
    return answers


async def race(
    pool: AsyncConnectionPool[Any], command: PlayerCommand, *, if_match: bool, epoch: int | None
) -> tuple[Answer, Answer, int]:
    """The command sent by process A, and retried on process B, which has not read the
    table before; both answers, and how many events the table gained."""
    a, b = TableService(EventStore(pool)), TableService(EventStore(pool))
    table_id, seat = await seated_table(a)
    version = (await a.load(table_id)).table.version
    sent: dict[str, Any] = {
        "if_match": [etag(version, seat)] if if_match else None,
        "idempotency_key": "move-1",
        "epoch": epoch,
    }
    answers = first_try_commits_after_the_lookup(b, lambda: a.act(table_id, seat, command, **sent))
    retried = await b.act(table_id, seat, command, **sent)
    gained = (await a.load(table_id)).table.version - version
    return answers[0], retried, gained


@pytest.mark.parametrize(
    ("command", "if_match", "epoch"),
    [(Pass(), True, None), (Leave(), False, 0)],
    ids=["its-if-match-moved-past", "a-leave-revoked-its-token"],
)
async def test_a_retry_that_lost_to_its_first_try_gets_the_first_answer(
    pool: AsyncConnectionPool[Any], command: PlayerCommand, if_match: bool, epoch: int | None
) -> None:
    """Refused on the table the first try left (412 for the If-Match, 401 for the token a
    leave revoked) were it not for the first try's record under the same key."""
    first, retried, gained = await race(pool, command, if_match=if_match, epoch=epoch)
    assert first.status == 200 and gained >= 1
    assert (retried.status, retried.body, retried.etag) == (first.status, first.body, first.etag)


async def test_a_seat_retry_that_lost_to_its_first_try_gets_the_same_token(
    pool: AsyncConnectionPool[Any],
) -> None:
    """The first try takes the seat on process A just after the retry on process B looked
    its key up and found nothing: B then finds the seat taken, by its own first try, and
    answers with that try's token instead of ``seat-taken``."""
    a, b = TableService(EventStore(pool)), TableService(EventStore(pool))
    created = tables.create(new_table_id(), "pitch", 3, {})
    table, _ = await a.create(created, {}, "operator")
    key = "a-fresh-random-key-0001"
    taken = first_try_commits_after_the_lookup(
        b, lambda: a.take_seat(table.id, 1, "Ann", idempotency_key=key)
    )
    retried = await b.take_seat(table.id, 1, "Ann", idempotency_key=key)
    (first,) = taken
    assert first.token is not None and retried == first
    assert (await a.load(table.id)).table.version == table.version + 1


async def test_an_entry_retry_that_lost_to_its_first_try_enters_nobody_twice(
    pool: AsyncConnectionPool[Any],
) -> None:
    """The director's first try enters Ann on process A just after the retry on process B
    looked its key up: B's own entry then collides on the key, and B answers with A's
    entry and token; the tournament holds one entry."""

    def service() -> TournamentService:
        tables_service = TableService(EventStore(pool))
        return TournamentService(TournamentStore(pool), tables_service)

    a, b = service(), service()
    terms = bridge_terms("Retried", Format.SWISS, rounds=1)
    tournament_id, _ = await a.create(terms, decks=None, first_dealer=None, command={})
    key = "entry-once"
    entered = first_try_commits_after_the_lookup(
        b.tables,
        lambda: a.enter(tournament_id, ["Ann"], False, "director", idempotency_key=key),
    )
    retried = await b.enter(tournament_id, ["Ann"], False, "director", idempotency_key=key)
    (first,) = entered
    assert retried == first
    assert list((await a.load(tournament_id)).entries) == [first[0]]


async def test_a_table_opening_retry_that_lost_to_its_first_try_opens_one_table(
    pool: AsyncConnectionPool[Any],
) -> None:
    """The operator's first try opens a tournament table on process A just after the
    retry on process B looked its key up: B's own table then collides on the key and is
    not stored, and B answers with A's table and tokens."""

    def service() -> TournamentService:
        return TournamentService(TournamentStore(pool), TableService(EventStore(pool)))

    a, b = service(), service()
    terms = Terms(
        name="Open", game="pitch", format=Format.OPEN, entry="single", seats=3, options={}
    )
    tournament_id, _ = await a.create(terms, decks=None, first_dealer=None, command={})
    players, command = ["Ann", "Bob", "Cy"], {"players": ["Ann", "Bob", "Cy"]}

    def opening(by: TournamentService) -> Awaitable[tuple[Any, list[str]]]:
        created = tables.create(new_table_id(), "pitch", 3, {}, tournament=tournament_id)
        return by.open_table(created, command, "operator", players, idempotency_key="open-1")

    opened = first_try_commits_after_the_lookup(b.tables, lambda: opening(a))
    retried = await b.open_table(
        tables.create(new_table_id(), "pitch", 3, {}, tournament=tournament_id),
        command,
        "operator",
        players,
        idempotency_key="open-1",
    )
    ((table, tokens),) = opened
    assert retried[0].id == table.id and retried[0].version == table.version
    assert retried[1] == tokens
    assert (await a.load(tournament_id)).opened == (table.id,)


async def test_a_casual_opening_retry_that_lost_to_its_first_try_opens_one_table(
    pool: AsyncConnectionPool[Any], database_url: str
) -> None:
    """A phone's first try opens a table on process A just after its retry on process B
    looked the key up: B's own table then collides on the key and is not stored, and B
    answers with A's table as it opened."""
    a, b = TableService(EventStore(pool)), TableService(EventStore(pool))
    command = {"game": "pitch", "seats": 3}

    def opening(by: TableService) -> Awaitable[tables.Table[Any]]:
        created = tables.create(new_table_id(), "pitch", 3, {})
        return by.open(created, command, "anonymous", idempotency_key="casual-open-1")

    tables_before = await _count(database_url, "tables")
    opened = first_try_commits_after_the_lookup(b, lambda: opening(a))
    retried = await opening(b)
    (table,) = opened
    assert retried.id == table.id and retried.version == table.version == 1
    assert await _count(database_url, "tables") == tables_before + 1


async def test_a_tournament_opening_retry_that_lost_to_its_first_try_opens_one(
    pool: AsyncConnectionPool[Any], database_url: str
) -> None:
    """The operator's first try opens a tournament on process A just after the retry on
    process B looked its key up: B's tournament collides on the key and is not stored,
    and B answers with A's tournament and director's token."""

    def service() -> TournamentService:
        return TournamentService(TournamentStore(pool), TableService(EventStore(pool)))

    a, b = service(), service()
    terms = bridge_terms("Retried", Format.SWISS, rounds=1)

    def opening(by: TournamentService) -> Awaitable[tuple[str, str]]:
        return by.create(
            terms, decks=None, first_dealer=None, command={}, idempotency_key="event-1"
        )

    before = await _count(database_url, "tournaments")
    opened = first_try_commits_after_the_lookup(b.tables, lambda: opening(a))
    retried = await opening(b)
    assert retried == opened[0]
    assert await _count(database_url, "tournaments") == before + 1


async def _count(database_url: str, relation: str) -> int:
    async with await psycopg.AsyncConnection.connect(database_url) as conn:
        row = await (await conn.execute(f"SELECT count(*) FROM {relation}")).fetchone()
    assert row is not None
    return int(row[0])


async def test_a_pairing_retry_that_lost_to_its_first_try_pairs_one_round(
    pool: AsyncConnectionPool[Any],
) -> None:
    """The director's first try pairs round 1 on process A just after the retry on process
    B looked its key up: B's own pairing collides, and B answers with round 1 as A paired
    it; the tournament has one round."""

    def service() -> TournamentService:
        return TournamentService(TournamentStore(pool), TableService(EventStore(pool)))

    a, b = service(), service()
    terms = bridge_terms("Paired", Format.SWISS, rounds=2)
    tournament_id, _ = await a.create(terms, decks=None, first_dealer=None, command={})
    for name in ("Ann", "Bob"):
        await a.enter(tournament_id, [name], False, "director")
    paired = first_try_commits_after_the_lookup(
        b.tables, lambda: a.pair_round(tournament_id, "director", idempotency_key="pair-1")
    )
    retried = await b.pair_round(tournament_id, "director", idempotency_key="pair-1")
    (first,) = paired
    assert retried.rounds == first.rounds and len(first.rounds) == 1
    assert len((await a.load(tournament_id)).rounds) == 1
