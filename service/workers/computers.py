"""The computer players' worker: acts for every seat the computer plays, promptly.

One process leads (a Postgres advisory lock), so two never race for the same turn; a
standby takes over when the leader dies. The leader looks for tables waiting on a
computer seat (the inline projection keeps ``tables.computer_turn``) whenever a commit
is announced, and at least every second in case a notification was lost, and plays them
through the ordinary command path (``TableService.play_computers``).
"""

from __future__ import annotations

import logging

import psycopg

from domain.errors import RuleError
from service.read.watch import TableWatcher
from service.refusals import UpgradeInProgress
from service.workers.leader import StepOnCommits
from service.write.handler import TableService

log = logging.getLogger("cardroom.computers")
LEADER_LOCK = 0x636172642D637075  # "card-cpu"


class ComputerPlayers(StepOnCommits):
    name = "computers"
    lock = LEADER_LOCK
    pace = 0.02  # a human's move is answered all but at once; a busy moment in one step
    at_once = True  # one move a table a step: the next step follows at once

    def __init__(self, service: TableService, watcher: TableWatcher) -> None:
        super().__init__(watcher)
        self.service = service
        self.played = 0

    async def step(self) -> int:
        """Play one command at every table waiting on the computer now; how many were
        sent. One a table, in turn: a table with a person waiting for the computer's
        move must not wait behind whole deals of tables the computer plays alone (a step
        that sent something is followed at once by the next, so those still play at full
        speed)."""
        sent = 0
        for table_id in await self.service.store.computer_turns(skip=self.service.newer_tables):
            try:
                sent += await self.service.play_computers(table_id, limit=1)
            except RuleError as exc:  # a bug in a computer player: say so, keep going
                log.error("computer refused at %s: %s", table_id, exc)
            except UpgradeInProgress as exc:  # looked past from now on (newer_tables)
                log.info("computer turn at %s left to a newer process: %s", table_id, exc)
            except psycopg.Error as exc:
                log.warning("computer turn at %s failed (%s); will look again", table_id, exc)
        self.played += sent
        return sent
