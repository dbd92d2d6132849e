"""The given/when/then helper of the rule tests fails whenever its claim does not hold."""

from __future__ import annotations

import pytest

from domain import table as tables
from domain.commands import Bid, Hold, Pass
from domain.errors import RuleCode
from domain.events import BidMade, Passed
from tests.domain.pitch_tables import dealer_takes
from tests.support.given import given

# Pitch, four seats, seat 3 deals: seat 0 speaks first.
DEALT = dealer_takes().events


def test_then_checks_the_decided_events_and_gives_the_evolved_table() -> None:
    after = given(DEALT).when(Bid(amount=2), by=0).then([BidMade(seat=0, amount=2)])
    assert after.table.version == tables.fold(DEALT).version + 1
    assert tables.to_act(after.table) == [1]
    after.when(Pass(), by=1).then([Passed(seat=1)])


def test_then_fails_on_missing_extra_or_different_events() -> None:
    when = given(DEALT).when(Bid(amount=2), by=0)
    for wrong in ([], [BidMade(seat=0, amount=2), Passed(seat=1)], [BidMade(seat=0, amount=3)]):
        with pytest.raises(AssertionError, match="decided"):
            when.then(wrong)


def test_then_refused_fails_on_another_code() -> None:
    with pytest.raises(AssertionError, match="bid-not-allowed"):
        given(DEALT).when(Bid(amount=5), by=0).then_refused(RuleCode.BID_TOO_LOW)


def test_then_refused_fails_when_the_command_is_accepted() -> None:
    with pytest.raises(AssertionError, match="expected a refusal"):
        given(DEALT).when(Bid(amount=2), by=0).then_refused(RuleCode.BID_TOO_LOW)


def test_then_refused_fails_when_a_refused_command_is_offered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    refused = given(DEALT).when(Hold(), by=2)
    assert refused.then_refused(RuleCode.NOT_YOUR_TURN).code is RuleCode.NOT_YOUR_TURN
    monkeypatch.setattr(tables, "legal_actions", lambda table, seat: [Hold()])
    with pytest.raises(AssertionError, match="offered"):
        refused.then_refused(RuleCode.NOT_YOUR_TURN)
