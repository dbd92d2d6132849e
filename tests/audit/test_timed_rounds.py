"""Timed tournament rounds (DESIGN 14): when the round's time is up the timekeeper calls
time once; the deal in progress is played out, the game ends before the next deal with
``result.reason = "time"`` — the side ahead wins, level is a draw — and the verifier
re-runs it all."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from domain import RULES_ENGINE_VERSION, liveness
from domain import table as tables
from domain.errors import RuleError
from domain.events import GameTimed, HandScored, TimeCalled
from service.audit.render import render
from service.audit.verify import verify_lines
from tests.support.audit import document_of, rechain
from tests.support.clocked import CLOCK, T0, Lines, Recorder

ENDS_AT = T0 + timedelta(minutes=30)


def timed(game: str = "forty-five", seats: int = 4) -> Recorder:
    recorder = Recorder(game, seats, clock=None, ends_at=ENDS_AT)
    recorder.seat_everyone()
    return recorder


def verify(lines: Lines) -> Any:
    return verify_lines(document_of(rechain(lines)).splitlines())


def deals_scored(recorder: Recorder) -> int:
    return sum(1 for line in recorder.events if line["data"]["type"] == "hand_scored")


def test_the_round_end_is_the_tables_next_deadline_until_time_is_called() -> None:
    recorder = timed()
    assert recorder.table.next_deadline == ENDS_AT
    assert not liveness.time_due(recorder.table, ENDS_AT - timedelta(milliseconds=1))
    recorder.play(3)
    recorder.call_time()
    assert recorder.table.time_called and recorder.table.next_deadline is None
    with pytest.raises(RuleError):
        liveness.call_time(recorder.table, ENDS_AT + timedelta(hours=1))  # fired once only


def test_a_view_shows_the_turns_deadline_never_the_rounds_end() -> None:
    """The view's ``deadline`` is when the seat to act expires: a table off the clock has
    none, though the timekeeper will look at the round's end."""
    recorder = timed()
    assert recorder.table.next_deadline == ENDS_AT
    assert tables.view(recorder.table, "operator").deadline is None
    assert tables.view(recorder.table, 0).deadline is None


@pytest.mark.parametrize("engine", ["1.3.0", RULES_ENGINE_VERSION])
def test_a_clock_set_names_the_turns_deadline_not_the_rounds_end(engine: str) -> None:
    """With a clock in a round ending before the turn does, the stream's ``clock_set``
    named the round's end as the deadline (and still did once time was called): a client
    counting down from the stream saw the seat run out of time minutes early. From
    engine 1.4.0 it names the turn's, as the view does; older tables re-run as played."""
    soon = T0 + timedelta(seconds=30)  # the round ends before a turn of 20 s and 60 s bank
    recorder = Recorder("forty-five", 4, clock=CLOCK, ends_at=soon, engine=engine)
    recorder.seat_everyone()
    recorder.play(1)
    last = next(e for e in reversed(recorder.events) if e["data"]["type"] == "clock_set")
    deadline = datetime.fromisoformat(last["data"]["deadline"])
    turn = recorder.table.turn_deadline
    assert turn is not None and turn > soon
    assert deadline == (soon if engine == "1.3.0" else turn)
    assert tables.view(recorder.table, "operator").deadline == turn
    report = verify(recorder.lines())
    assert report.ok, render(report)


def test_time_called_mid_deal_ends_the_game_once_that_deal_is_scored() -> None:
    recorder = timed()
    recorder.play(5)
    recorder.call_time()
    assert recorder.table.status == "playing", "the deal in progress is played out"
    before = deals_scored(recorder)
    while recorder.table.status == "playing":
        recorder.play(1)
    assert deals_scored(recorder) == before + 1, "no deal starts after time is called"
    assert recorder.table.result is not None and recorder.table.result.reason == "time"
    last = recorder.events[-1]["data"]
    ended = [line for line in recorder.events if line["data"]["type"] == "game_timed"]
    assert len(ended) == 1 and ended[0]["actor"] == "system"
    assert ended[0]["command"]["type"] == "end_on_time"
    assert last["type"] in ("game_timed", "seed_revealed")
    report = verify(recorder.lines())
    assert report.ok, render(report)


def test_the_side_ahead_wins_and_level_at_the_top_is_a_draw() -> None:
    recorder = timed()
    table = recorder.table
    level = tables.end_on_time(table)
    assert level == GameTimed(winners=[], losers=[], scores=[0, 0])
    recorder.play(5)
    recorder.call_time()
    while recorder.table.status == "playing":
        recorder.play(1)
    scored = [
        HandScored(**{k: v for k, v in line["data"].items() if k != "type"})
        for line in recorder.events
        if line["data"]["type"] == "hand_scored"
    ]
    totals = scored[-1].scores
    result = recorder.table.result
    assert result is not None
    if totals[0] == totals[1]:
        assert result.winners == [] and result.losers == []
    else:
        ahead = 0 if totals[0] > totals[1] else 1
        assert result.winners == [ahead, ahead + 2]


def test_a_time_call_recorded_before_the_round_ends_fails_verification() -> None:
    recorder = timed()
    recorder.play(3)
    recorder.call_time()
    lines = recorder.lines()
    called = next(line for line in lines if line.get("command") == {"type": "call_time"})
    called["recorded_at"] = (ENDS_AT - timedelta(minutes=1)).isoformat().replace("+00:00", "Z")
    report = verify(lines)
    assert not report.ok and report.failure is not None
    assert report.failure.version == called["version"]


def test_time_called_is_an_event_of_its_own() -> None:
    recorder = timed()
    recorder.play(2)
    recorder.call_time()
    called = [line for line in recorder.events if line["data"]["type"] == "time_called"]
    assert len(called) == 1 and called[0]["actor"] == "clock"
    assert called[0]["command"] == {"type": "call_time"}
    assert tables.evolve(recorder.table, TimeCalled()).time_called
