"""Retention in the domain: a table nobody filled expires, and then takes nothing more.

How long a table may wait is the service's setting (service/workers/retention.py); the
rules only see whether it is still waiting for players.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from domain import liveness
from domain import table as tables
from domain.commands import Leave, Pass
from domain.errors import RuleCode, RuleError
from domain.events import Event, TableExpired
from domain.table import Table
from tests.support.playout import Playout

AT = datetime(2026, 12, 3, 20, 0, tzinfo=UTC)


def waiting(seated: int = 1) -> Table[Any]:
    table = tables.start(tables.create("t", "pitch", 3, {}))
    for seat in range(seated):
        table = applied(table, tables.take_seat(table, seat, f"P{seat}"))
    return table


def applied(table: Table[Any], events: list[Event]) -> Table[Any]:
    for event in events:
        table = tables.evolve(table, event)
    return table


def refused(code: RuleCode, call: Any, *args: Any, **kwargs: Any) -> None:
    with pytest.raises(RuleError) as refusal:
        call(*args, **kwargs)
    assert refusal.value.code == code


def test_a_waiting_table_expires_and_says_so_in_its_view() -> None:
    table = waiting()
    events = tables.expire_waiting(table)
    assert events == [TableExpired()]
    expired = applied(table, events)
    assert expired.status == "expired" and expired.version == table.version + 1
    view = tables.view(expired, "operator")
    assert view.status == "expired" and view.legal_actions == [] and view.to_act == []
    assert tables.pending_chance(expired) is None and tables.computer_to_act(expired) == []


def test_an_expired_table_takes_no_seat_no_command_and_no_operators_step() -> None:
    table = applied(waiting(), [TableExpired()])
    refused(RuleCode.TABLE_EXPIRED, tables.take_seat, table, 1, "Bob")
    refused(RuleCode.TABLE_EXPIRED, tables.take_seat, table, 1, "Computer", computer=True)
    refused(RuleCode.TABLE_EXPIRED, tables.decide, table, Pass(), 0)
    refused(RuleCode.TABLE_EXPIRED, liveness.decide, table, Leave(), 0, AT)
    refused(RuleCode.TABLE_EXPIRED, liveness.replace_seat, table, 0, "Eve", computer=False)
    refused(RuleCode.TABLE_EXPIRED, liveness.abort, table, "late")
    refused(RuleCode.TABLE_EXPIRED, liveness.pause, table, AT)
    refused(RuleCode.TABLE_EXPIRED, liveness.resume, table, AT)
    refused(RuleCode.TABLE_EXPIRED, tables.expire_waiting, table)


def test_only_a_table_waiting_for_players_expires() -> None:
    playout = Playout(tables.create("t", "pitch", 3, {}), seed=3)
    playout.seat_everyone()
    assert playout.table.status == "playing"
    refused(RuleCode.NOT_ALLOWED_NOW, tables.expire_waiting, playout.table)
    aborted = applied(waiting(), liveness.abort(waiting(), "closed"))
    refused(RuleCode.NOT_ALLOWED_NOW, tables.expire_waiting, aborted)


def test_an_empty_table_expires_too_and_the_fold_agrees() -> None:
    created = tables.create("t", "forty-five", 4, {})
    table = tables.start(created)
    events = tables.expire_waiting(table)
    assert tables.fold([created, *events]).status == "expired"
