"""The tournament worker (DESIGN 14): records each round table's result and, with
``auto_rounds``, pairs the next round as soon as the last table of a round has ended.

One process leads (an advisory lock). It wakes on every commit (and at least every
second), and each step is safe to repeat and to race: a table's result is recorded once
(``stream.score`` finds it recorded), a round is paired with the tournament's expected
version, and a paired table that no process created yet is created here.
"""

from __future__ import annotations

import logging
from typing import Any

import psycopg

from domain.tournament import stream
from domain.tournament.errors import TournamentError
from service.read.watch import TableWatcher
from service.refusals import ServiceError
from service.workers.leader import StepOnCommits
from service.write.tournaments import TournamentService

log = logging.getLogger("cardroom.rounds")
LEADER_LOCK = 0x636172642D726E64  # "card-rnd"


class RoundKeeper(StepOnCommits):
    name = "rounds"
    lock = LEADER_LOCK
    pace = 0.1  # rounds last minutes: a tenth of a second gathers many tables' commits

    def __init__(self, tournaments: TournamentService, watcher: TableWatcher) -> None:
        super().__init__(watcher)
        self.tournaments = tournaments

    async def step(self) -> int:
        """Open missing round tables, record ended ones, pair rounds that are due; how many
        things were done."""
        done = 0
        store = self.tournaments.store
        for tournament_id, table_id in await store.tables_to_open():
            await self._quietly(self._open(tournament_id, table_id))
            done += 1
        scored = []
        for tournament_id, table_id in await store.tables_to_score():
            await self._quietly(self.tournaments.score_table(tournament_id, table_id))
            scored.append(table_id)
        if scored:
            await store.mark_scored(scored)
            done += len(scored)
        for tournament_id in await store.to_pair():
            tournament = await self.tournaments.load(tournament_id)
            if stream.due_to_pair(tournament):
                await self._quietly(self.tournaments.pair_round(tournament_id, "tournament"))
                done += 1
        return done

    async def _open(self, tournament_id: str, table_id: str) -> None:
        tournament = await self.tournaments.load(tournament_id)
        await self.tournaments.open_tables(tournament, [table_id])

    async def _quietly(self, work: Any) -> None:
        try:
            await work
        except (TournamentError, ServiceError) as exc:  # someone else did it first
            log.info("tournament step refused: %s", exc)
        except psycopg.Error:
            raise  # the database: the whole step is tried again
        except Exception:  # a bug with one tournament must not stop every other one
            log.exception("tournament step failed; the others go on")
