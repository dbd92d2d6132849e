"""The tournament worker (DESIGN 14): records each round table's result and, with
``auto_rounds``, pairs the next round as soon as the last table of a round has ended.

One process leads (an advisory lock). It wakes on every commit (and at least every
second), and each step is safe to repeat and to race: a table's result is recorded once
(``stream.score`` finds it recorded), a round is paired with the tournament's expected
version, and a paired table that no process created yet is created here.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import Literal

import psycopg

from domain.tournament import stream
from domain.tournament.errors import TournamentError
from service.read.watch import TableWatcher
from service.refusals import ServiceError
from service.workers.leader import StepOnCommits
from service.write.tournaments import TournamentService

log = logging.getLogger("cardroom.rounds")
Outcome = Literal["done", "refused", "retry", "failed"]
PASSED_OVER_MOST = 10_000
FAILED_STEPS = 100  # a result that failed is tried again after this many steps
LEADER_LOCK = 0x636172642D726E64  # "card-rnd"


class RoundKeeper(StepOnCommits):
    name = "rounds"
    lock = LEADER_LOCK
    pace = 0.1  # rounds last minutes: a tenth of a second gathers many tables' commits

    def __init__(
        self, tournaments: TournamentService, watcher: TableWatcher, batch: int = 100
    ) -> None:
        super().__init__(watcher)
        self.tournaments = tournaments
        self.batch = batch
        # Tournaments whose next round could not be paired (too few entries left, say), by
        # the version that refused: left alone until something changes them, so that
        # they never crowd out the ones that are due.
        self.passed_over: dict[str, int] = {}
        # Tables whose result failed to be recorded (a bug, logged), by the steps left
        # before the next try: they neither crowd out the others nor flood the log.
        self.failing: dict[str, int] = {}

    async def step(self) -> int:
        """Open missing round tables, record ended ones, pair rounds that are due; how many
        things were done."""
        done = 0
        store = self.tournaments.store
        for tournament_id, table_id in await store.tables_to_open(self.batch):
            await self._quietly(self._open(tournament_id, table_id))
            done += 1
        scored = []
        self.failing = {t: left - 1 for t, left in self.failing.items() if left > 1}
        for tournament_id, table_id in await store.tables_to_score(self.batch, list(self.failing)):
            # A result that failed to be recorded is tried again: marked scored, it would
            # be lost and its round would never end.
            outcome = await self._quietly(self.tournaments.score_table(tournament_id, table_id))
            if outcome in ("done", "refused"):
                scored.append(table_id)
            elif outcome == "failed":
                self.failing[table_id] = FAILED_STEPS
        if scored:
            await store.mark_scored(scored)
            done += len(scored)
        if len(self.passed_over) > PASSED_OVER_MOST:
            self.passed_over.clear()  # finished ones linger here: look at each once more
        for tournament_id, version in await store.to_pair(self.batch, self.passed_over):
            tournament = await self.tournaments.load(tournament_id)
            if stream.played_out(tournament):
                work = self.tournaments.finish(tournament_id, "tournament")
            elif stream.due_to_pair(tournament):
                work = self.tournaments.pair_round(tournament_id, "tournament")
            else:
                self.passed_over[tournament_id] = version
                continue
            outcome = await self._quietly(work)
            if outcome == "done":
                self.passed_over.pop(tournament_id, None)
                done += 1
            elif outcome != "retry":
                self.passed_over[tournament_id] = version
        return done

    async def _open(self, tournament_id: str, table_id: str) -> None:
        tournament = await self.tournaments.load(tournament_id)
        await self.tournaments.open_tables(tournament, [table_id])

    async def _quietly(self, work: Awaitable[object]) -> Outcome:
        """``work`` done; refused by the tournament's rules; worth a retry at the next
        step (the tournament kept changing); or failed (a bug, logged)."""
        try:
            await work
        except TournamentError as exc:
            log.info("tournament step refused: %s", exc)
            return "refused"
        except ServiceError as exc:
            log.info("tournament step not done, tried again: %s", exc)
            return "retry"
        except psycopg.Error:
            raise  # the database: the whole step is tried again
        except Exception:  # a bug with one tournament must not stop every other one
            log.exception("tournament step failed; the others go on")
            return "failed"
        return "done"
