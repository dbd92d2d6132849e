"""A tournament's commits are announced to the streams only once they have committed: a
transaction that fails after its events were written announces nothing (a version
announced but never committed would wake every stream of the tournament, on every
process, to look for it again and again)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from psycopg_pool import AsyncConnectionPool

from domain import table as tables
from domain.tournament import stream
from domain.tournament.errors import TournamentCode, TournamentError
from domain.tournament.model import Format
from service.refusals import CommandConflict
from service.write.handler import TableService, token_digest
from service.write.store import TOURNAMENT_NOTICE, EventStore, Notifier, VersionConflict
from service.write.tournament_store import EntryToken, TournamentStore
from service.write.tournaments import TournamentService
from tests.domain.tournament.rounds import bridge_terms
from tests.support import services


@pytest.fixture(scope="module")
def database_url() -> str:
    return services.fresh_database("announce_")


async def test_a_failed_tournament_commit_announces_nothing(
    pool: AsyncConnectionPool[Any],
) -> None:
    heard: list[tuple[str, int]] = []
    notifier = Notifier(pool, local=lambda key, version: heard.append((key, version)))
    store = TournamentStore(pool, notifier)
    rounds = TournamentService(store, TableService(EventStore(pool)))
    tournament_id, _ = await rounds.create(
        bridge_terms("Announced", Format.SWISS, rounds=2), decks=None, first_dealer=None, command={}
    )
    _, (token,) = await rounds.enter(tournament_id, ["Ann"], computer=False, actor="director")
    key = f"{TOURNAMENT_NOTICE}{tournament_id}"
    assert heard == [(key, 1), (key, 2)]

    # Bob's entry is written, then its token's row is refused (Ann's digest is taken):
    # the whole transaction rolls back.
    tournament, last_hash = await store.load(tournament_id)
    events = stream.enter(tournament, "bob", ["Bob"], computer=False)
    after = tournament
    for event in events:
        after = stream.evolve(after, event)
    with pytest.raises(VersionConflict):
        await store.append(
            tournament,
            last_hash,
            events,
            "director",
            {"type": "enter", "names": ["Bob"], "computer": False},
            datetime.now(UTC),
            after=after,
            entry_tokens=[EntryToken(token_digest(token), "bob")],
        )

    assert heard == [(key, 1), (key, 2)]
    assert (await store.load(tournament_id))[0].version == 2


# A table opened for a tournament by hand and its ``table_opened`` are one transaction:
# when the table's commit fails, the tournament's event is not stored either.
async def test_a_failed_table_commit_leaves_no_table_opened(
    pool: AsyncConnectionPool[Any],
) -> None:
    rounds = TournamentService(TournamentStore(pool), TableService(EventStore(pool)))
    terms = bridge_terms("Open night", Format.OPEN)
    tournament_id, _ = await rounds.create(terms, decks=None, first_dealer=None, command={})
    created = tables.create(str(uuid.uuid4()), "reserve-bridge", 2, {}, tournament=tournament_id)
    recording = rounds.recording_opening(created, "operator")
    await rounds.tables.create(created, {}, "operator", committing=recording)
    # The same table again: its commit is stale (the table exists), so nothing commits.
    with pytest.raises(CommandConflict):
        await rounds.tables.create(created, {}, "operator", committing=recording)
    tournament = await rounds.load(tournament_id)
    assert tournament.opened == (created.table,) and tournament.version == 2


async def test_a_finish_counts_again_a_table_opened_after_its_count(
    pool: AsyncConnectionPool[Any],
) -> None:
    """The director's finish on process B counts no table in play; then the operator's
    table opens on process A, its ``table_opened`` with it. B's finish must not pass
    that table: it counts again on the version it decides on, and is refused."""
    a = TournamentService(TournamentStore(pool), TableService(EventStore(pool)))
    b = TournamentService(TournamentStore(pool), TableService(EventStore(pool)))
    tournament_id, _ = await a.create(
        bridge_terms("Closing", Format.OPEN), decks=None, first_dealer=None, command={}
    )
    created = tables.create(str(uuid.uuid4()), "reserve-bridge", 2, {}, tournament=tournament_id)
    count = b.store.tables_in_play
    opened: list[str] = []

    async def counting(tournament: str) -> int:
        found = await count(tournament)
        if not opened:
            await a.open_table(created, {}, "operator", ["Ann", "Bob"])
            opened.append(created.table)
        return found

    b.store.tables_in_play = counting  # type: ignore[method-assign]
    with pytest.raises(TournamentError) as refused:
        await b.finish(tournament_id, "director")
    assert refused.value.code is TournamentCode.TABLES_IN_PLAY
    assert (await a.load(tournament_id)).status == "open"
