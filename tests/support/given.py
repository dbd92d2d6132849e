"""Given, when, then: rule tests in the style of Emmett's decider specifications.

    given(history).when(Hold(), by=W).then([Held(seat=W, amount=15)])
    given(history).when(Hold(), by=W).then_refused(RuleCode.CANNOT_HOLD)

``given`` folds a table's history, which opens with ``table_created``
(:func:`domain.table.fold`); ``when`` is one player command from one seat, decided by
:func:`domain.table.decide`. ``then`` checks that the events decided are exactly the
expected ones, all of them in order, and returns what is given next: the table they
evolve into (``.table``), ready for another ``when``. ``then_refused`` checks that the
command is refused with a :class:`RuleError` of that stable code and is not among the
seat's legal actions, and returns the error.

Only decisions are applied: the chance steps the service would answer next (the deck of
the next deal) and the seeds it would reveal are not. A
:class:`tests.support.playout.Playout` answers those; its ``events`` make a history.
A history is all ``given`` sees: a table whose state a test replaced directly (scores set
by hand, say) cannot be given this way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pprint import pformat
from typing import Any

from domain import table as tables
from domain.commands import PlayerCommand
from domain.errors import RuleCode, RuleError
from domain.events import Event
from domain.table import Table


def given(history: Iterable[Event]) -> Given:
    """The table after ``history``."""
    return Given(tables.fold(list(history)))


@dataclass(frozen=True)
class Given:
    table: Table[Any]

    def when(self, command: PlayerCommand, *, by: int) -> When:
        """Seat ``by`` sends ``command``."""
        return When(self.table, command, by)


@dataclass(frozen=True)
class When:
    table: Table[Any]
    command: PlayerCommand
    seat: int

    def then(self, expected: Sequence[Event]) -> Given:
        """The command decides exactly ``expected``; the table those events evolve into."""
        decided = tables.decide(self.table, self.command, self.seat)
        assert decided == list(expected), (
            f"seat {self.seat} sent {self.command!r}\n"
            f"decided:\n{pformat(decided)}\nexpected:\n{pformat(list(expected))}"
        )
        table = self.table
        for event in decided:
            table = tables.evolve(table, event)
        return Given(table)

    def then_refused(self, code: RuleCode) -> RuleError:
        """The command is refused with ``code`` and is not a legal action of the seat."""
        try:
            decided = tables.decide(self.table, self.command, self.seat)
        except RuleError as error:
            assert error.code is code, (
                f"seat {self.seat} sent {self.command!r}: refused with {error.code!r}"
                f" ({error.message}), expected {code!r}"
            )
            legal = tables.legal_actions(self.table, self.seat)
            assert self.command not in legal, (
                f"seat {self.seat}: {self.command!r} is refused but offered in {legal!r}"
            )
            return error
        raise AssertionError(
            f"seat {self.seat} sent {self.command!r}: expected a refusal with {code!r},"
            f" decided:\n{pformat(decided)}"
        )
