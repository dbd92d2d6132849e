"""``verify`` re-runs the liveness batches (DESIGN 10): clock steps, expiries and the clock's
autoplay, leaving and taking over, resigning, and the operator's commands.

The exports are written by :class:`tests.support.clocked.Recorder` straight from the
domain, batch by batch as the service records them, and hashed as the store hashes
them; tampered ones are re-chained (every hash recomputed, as a forger who knows the
format would), so that only the re-run can tell.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import msgspec
import pytest

from domain import RULES_ENGINE_VERSION, computer, liveness
from domain import table as tables
from domain.commands import Leave, PlayerCommand, Resign
from domain.events import ClockSet, ClockSettings
from service.audit.render import render
from service.audit.verify import Failure, Report, verify_lines
from tests.support.audit import document_of, rechain
from tests.support.clocked import SYSTEM, Lines, Recorder

# --- helpers ------------------------------------------------------------------------------


def verified(recorder: Recorder) -> Report:
    report = verify_lines(recorder.document().splitlines())
    assert report.ok, render(report)
    return report


def failure(lines: Lines) -> Failure:
    """The verifier's failure on the re-chained lines; its report names the same version."""
    report = verify_lines(document_of(rechain(lines)).splitlines())
    assert report.failure is not None, "the tampered export verified"
    assert f"RESULT: FAILED at version {report.failure.version}" in render(report)
    return report.failure


def commands(lines: Lines, kind: str) -> list[int]:
    """The versions of the batches opened by a ``kind`` command."""
    return [v for v, line in enumerate(lines) if v and (line["command"] or {}).get("type") == kind]


def failure_when_sent_by(lines: Lines, kind: str, actor: str) -> Failure:
    """The failure when the first ``kind`` command is recorded as sent by ``actor``: it
    names that command's batch."""
    version = commands(lines, kind)[0]
    lines[version]["actor"] = actor
    found = failure(lines)
    assert found.version == version
    return found


def clock_step_timing(lines: Lines, seat: int) -> int:
    """The version of the first clock step that times ``seat``'s batch."""
    return next(v for v in commands(lines, "set_clock") if lines[v]["command"]["acted"] == seat)


def failure_when_clock_step_says(seat: int, field: str, value: object) -> Failure:
    """The failure when the first clock step timing ``seat`` says ``field`` is ``value``:
    it names that clock step's batch."""
    lines = started().lines()
    version = clock_step_timing(lines, seat)
    lines[version]["command"][field] = value
    found = failure(lines)
    assert found.version == version
    return found


def started(engine: str = RULES_ENGINE_VERSION) -> Recorder:
    """A Forty-Five table whose seat 1 the computer plays, a few moves into its first deal."""
    recorder = Recorder(engine=engine)
    recorder.seat_everyone(computers=(1,))
    recorder.play(6)
    return recorder


def until_turn_of(recorder: Recorder, seat: int) -> None:
    for _ in range(200):
        if recorder.to_act() == seat:
            return
        recorder.play(1)
    raise AssertionError(f"seat {seat} never came to act")


# --- the clock ----------------------------------------------------------------------------


def test_a_clocked_game_with_its_clock_steps_verifies() -> None:
    recorder = Recorder()
    recorder.seat_everyone(computers=(1,))
    recorder.play(2000)
    table = recorder.table
    assert table.status == "finished"
    assert min(table.banks) < 60_000  # some turns ran into the bank
    report = verified(recorder)
    steps = len(commands(recorder.lines(), "set_clock"))
    assert steps > 100
    assert any(f"{steps} clock steps" in check for check in report.checks)


def test_a_changed_bank_fails_at_its_clock_set() -> None:
    lines = started().lines()
    version = next(
        v for v in commands(lines, "set_clock") if min(lines[v]["data"]["banks"]) < 60_000
    )
    seat = lines[version]["data"]["banks"].index(min(lines[version]["data"]["banks"]))
    lines[version]["data"]["banks"][seat] += 5_000
    found = failure(lines)
    assert found.version == version
    assert "clock_set differs from what the rules give: banks" in found.message


def test_a_forged_acted_fails_at_its_clock_step() -> None:
    found = failure_when_clock_step_says(2, "acted", 3)  # seat 3 would get fresh action seconds
    assert "the clock step says seat 3 acted" in found.message
    assert "is seat 2's, sent by 'seat:2'" in found.message


def test_a_clock_step_must_name_the_seat_it_times() -> None:
    assert "says no seat acted" in failure_when_clock_step_says(0, "acted", None).message
    # The first clock step starts the game, after the last take_seat: no seat acted.
    lines = started().lines()
    first = commands(lines, "set_clock")[0]
    assert lines[first]["command"]["acted"] is None
    lines[first]["command"]["acted"] = 0
    found = failure(lines)
    assert found.version == first and "is no seat's command" in found.message


def test_moved_is_for_a_players_own_command_only() -> None:
    lines = started().lines()
    assert lines[clock_step_timing(lines, 1)]["command"]["moved"] is False  # the computer's
    found = failure_when_clock_step_says(1, "moved", True)
    assert "the player moved; the batch it times is sent by 'computer:1'" in found.message


def test_a_players_own_command_is_timed_as_moved() -> None:
    """A batch relabelled to the player (from the clock's or the computer's) keeps the
    clock step's moved: false, which the service never writes after a player's command."""
    lines = started().lines()
    assert lines[clock_step_timing(lines, 2)]["command"]["moved"] is True  # a player's
    found = failure_when_clock_step_says(2, "moved", False)
    assert "says the player did not move" in found.message
    assert "was sent by 'seat:2'" in found.message


def test_a_command_whose_type_is_no_string_is_a_failure_not_a_crash() -> None:
    lines = started().lines()
    version = next(v for v, line in enumerate(lines) if v and line["actor"] == "seat:2")
    lines[version]["command"]["type"] = ["bid"]
    found = failure(lines)
    assert found.version == version
    assert "a command without a type" in found.message


def test_a_move_recorded_past_its_deadline_is_refused() -> None:
    lines = started().lines()
    version = next(
        v
        for v, line in enumerate(lines)
        if v and line["actor"] == "seat:2" and (line["command"] or {}).get("type") == "bid"
    )
    sent = msgspec.convert(lines[version]["recorded_at"], datetime)
    lines[version]["recorded_at"] = msgspec.to_builtins(sent + timedelta(hours=1))
    found = failure(lines)
    assert found.version == version
    assert "clock-expired" in found.message


def test_the_request_states_the_tables_clock() -> None:
    lines = started().lines()
    lines[1]["command"]["clock"]["bank_seconds"] = 600
    found = failure(lines)
    assert found.version == 1 and "the request asked for clock" in found.message
    lines = started().lines()
    lines[1]["command"]["on_timeout"] = "forfeit"
    assert "the request asked for clock" in failure(lines).message


def test_a_clock_step_on_a_table_without_a_clock_fails() -> None:
    recorder = Recorder(clock=None)
    recorder.seat_everyone()
    recorder.play(3)
    recorder.batch(
        [ClockSet(since=[recorder.at, None, None, None], banks=[0] * 4, deadline=recorder.at)],
        SYSTEM,
        {"type": "set_clock", "acted": None, "moved": False},
        clock_step=False,
    )
    found = failure(recorder.lines())
    assert found.version == len(recorder.events)
    assert "a clock step on a table without a clock" in found.message


# --- expiry and the clock's autoplay ------------------------------------------------------


def test_an_expiry_then_the_clocks_autoplay_verifies() -> None:
    recorder = started()
    # The service times the expiry and the clock's autoplay with one clock step.
    seat = recorder.expire(clock_step=False)
    recorder.computer(seat, actor=f"clock:{seat}")
    recorder.play(8)
    # A clock step between them verifies too.
    seat = recorder.expire()
    recorder.computer(seat, actor=f"clock:{seat}")
    recorder.play(8)
    report = verified(recorder)
    assert any("2 timekeeper and operator commands" in check for check in report.checks)
    lines = recorder.lines()
    step = commands(lines, "expire")[-1] + 1
    assert lines[step]["command"] == {"type": "set_clock", "acted": seat, "moved": False}
    # The expiry stopped the seat's clock: a step naming no seat gives the same events.
    lines[step]["command"]["acted"] = None
    assert verify_lines(document_of(rechain(lines)).splitlines()).ok


def test_an_expiry_that_forfeits_verifies() -> None:
    recorder = Recorder(clock=ClockSettings(action_seconds=5, bank_seconds=0, on_timeout="forfeit"))
    recorder.seat_everyone()
    recorder.play(3, pace=(2,))
    recorder.expire()
    assert recorder.table.result is not None and recorder.table.result.reason == "forfeit"
    report = verified(recorder)
    assert report.header is not None and report.header.status == "finished"


def test_two_expiries_in_a_row_mark_the_seat_absent_until_its_player_returns() -> None:
    recorder = started()
    seat = recorder.to_act()
    assert seat != 1
    recorder.expire()
    recorder.computer(seat, actor=f"clock:{seat}")
    until_turn_of(recorder, seat)
    assert recorder.expire() == seat
    assert seat in recorder.table.absent
    recorder.computer(seat)  # the computer plays the absent seat, as computer:N
    until_turn_of(recorder, seat)
    recorder.player(seat)  # its player is back: seat_returned, then the move
    assert seat not in recorder.table.absent and seat not in recorder.table.strikes
    recorder.play(6)
    verified(recorder)
    told = [line["data"]["type"] for line in recorder.lines()[1:]]
    assert "seat_marked_absent" in told and "seat_returned" in told


def test_the_clock_plays_only_the_seat_whose_turn_just_expired() -> None:
    recorder = started()
    seat = recorder.to_act()
    recorder.computer(seat, actor=f"clock:{seat}")
    found = failure(recorder.lines())
    assert f"the clock plays seat {seat}, whose turn did not just expire" in found.message

    recorder = started()
    seat = recorder.expire()
    recorder.computer(seat, actor=f"clock:{seat}")
    lines = recorder.lines()
    version = commands(lines, "expire")[-1] + 1
    version = next(v for v in range(version, len(lines)) if lines[v]["actor"] == f"clock:{seat}")
    lines[version]["actor"] = f"clock:{(seat + 1) % 4}"
    found = failure(lines)
    assert found.version == version and f"after seat {seat}'s turn expired" in found.message


def test_downtime_given_back_to_running_turns_verifies() -> None:
    recorder = started()
    down_since = recorder.at + timedelta(seconds=5)
    recorder.wait(600)
    events = liveness.extend(recorder.table, recorder.at, down_since)
    command = {"type": "extend_clocks", "down_since": msgspec.to_builtins(down_since)}
    recorder.batch(events, "clock", command)
    recorder.play(4)  # in time only thanks to the extension
    verified(recorder)
    lines = recorder.lines()
    version = commands(lines, "extend_clocks")[0]
    lines[version]["command"]["down_since"] = "2026-12-02T20:00:05"  # no offset
    found = failure(lines)
    assert found.version == version
    assert "extend_clocks: not a command the service records" in found.message


def extended(recorder: Recorder, down_since: datetime) -> None:
    """The timekeeper gives the table the time since ``down_since`` back, now."""
    command = {"type": "extend_clocks", "down_since": msgspec.to_builtins(down_since)}
    recorder.batch(liveness.extend(recorder.table, recorder.at, down_since), "clock", command)


@pytest.mark.parametrize("later", [timedelta(0), timedelta(microseconds=1)])
def test_downtime_given_back_twice_fails(later: timedelta) -> None:
    """The same outage given back again, to the letter or named a microsecond later:
    each running turn would get its time twice."""
    recorder = started()
    down_since = recorder.at + timedelta(seconds=5)
    recorder.wait(600)
    extended(recorder, down_since)
    recorder.wait(600)
    extended(recorder, down_since + later)
    found = failure(recorder.lines())
    assert found.version == commands(recorder.lines(), "extend_clocks")[1]
    assert "an outage given back a second time" in found.message


def test_a_second_outage_after_the_first_was_given_back_verifies() -> None:
    recorder = started()
    recorder.wait(600)
    extended(recorder, recorder.at - timedelta(seconds=595))
    recorder.wait(1)  # back; the timekeeper beats again
    beat = recorder.at
    recorder.wait(600)
    extended(recorder, beat)
    recorder.play(2)
    verified(recorder)


# --- leaving, taking over, resigning ------------------------------------------------------


def test_leave_computer_and_take_over_verify() -> None:
    recorder = started()
    seat = recorder.to_act()
    recorder.player(seat, Leave())
    assert seat in recorder.table.vacant
    recorder.computer(seat)  # the computer plays the vacant seat
    recorder.take_seat(seat, "Zoe")
    until_turn_of(recorder, seat)
    recorder.player(seat)
    recorder.play(4)
    verified(recorder)


def test_a_vacant_seat_has_no_player_to_act() -> None:
    recorder = started()
    seat = recorder.to_act()
    recorder.player(seat, Leave())
    recorder.player(seat)  # a revoked token's command
    found = failure(recorder.lines())
    assert f"seat {seat} is vacant" in found.message


def test_an_off_turn_leave_with_no_clock_step_then_a_pause_verifies() -> None:
    """A leave that changes no clock has no clock step; the next step times the pause
    (engine 1.0.0, whose pause stopped the clocks: its exports verify as played)."""
    recorder = started(engine="1.0.0")
    seat = next(s for s in (0, 2, 3) if s not in tables.to_act(recorder.table))
    recorder.player(seat, Leave())
    assert recorder.events[-1]["data"]["type"] == "seat_left"  # no clock step after it
    recorder.wait(3)
    recorder.operator(liveness.pause(recorder.table, recorder.at), {"type": "pause"})
    assert recorder.events[-1]["command"] == {"type": "set_clock", "acted": None, "moved": False}
    verified(recorder)


def test_resign_verifies_and_ends_the_game() -> None:
    recorder = started()
    recorder.player(2, Resign())
    assert recorder.table.status == "finished"
    report = verified(recorder)
    assert report.header is not None and report.header.status == "finished"


def test_a_resign_sent_by_the_computer_fails() -> None:
    recorder = started()
    recorder.player(1, Resign())
    found = failure_when_sent_by(recorder.lines(), "resign", "computer:1")
    assert "only seat 1's player may resign, not 'computer:1'" in found.message


def another_move(recorder: Recorder, actor: str) -> tuple[int, PlayerCommand]:
    """A turn of ``actor`` (the computer's seat 1, or the clock's on an expiry) with a
    choice to make: the seat, and a legal move that is not the computer's choice."""
    for _ in range(50):
        if actor == "computer":
            until_turn_of(recorder, 1)
            seat = 1
        else:
            seat = recorder.expire()
        chosen = computer.choose(recorder.table, seat)
        legal = tables.legal_actions(recorder.table, seat)
        others = [a for a in legal if isinstance(a, PlayerCommand) and a != chosen]
        if others:
            return seat, others[0]
        recorder.computer(seat, actor=f"{actor}:{seat}")
    raise AssertionError("the seat never had a choice")


@pytest.mark.parametrize("actor", ["computer", "clock"])
def test_a_legal_move_that_is_not_the_computers_fails(actor: str) -> None:
    """The computer is deterministic: a move recorded as its own (or the clock's, which
    plays the computer's move) must be the one it makes there, not just a legal one."""
    recorder = started()
    seat, other = another_move(recorder, actor)
    chosen = computer.choose(recorder.table, seat)
    recorder.computer(seat, actor=f"{actor}:{seat}", command=other)
    lines = recorder.lines()
    sent = msgspec.to_builtins(other)
    version = max(v for v, line in enumerate(lines) if v and line["command"] == sent)
    found = failure(lines)
    assert found.version == version
    assert f"the computer plays {msgspec.to_builtins(chosen)} here" in found.message
    # Under engine 1.0.0 the computer's moves were checked as legal only.
    old = started(engine="1.0.0")
    seat, other = another_move(old, actor)
    old.computer(seat, actor=f"{actor}:{seat}", command=other)
    verified(old)


# --- the operator -------------------------------------------------------------------------


def test_replace_verifies() -> None:
    recorder = started()
    for seat, name, by_computer in ((2, "Bea", True), (3, "Cy", False)):
        events = liveness.replace_seat(recorder.table, seat, name, computer=by_computer)
        command = {"type": "replace", "seat": seat, "name": name, "computer": by_computer}
        recorder.operator(events, command)
    recorder.play(12)
    lines = recorder.lines()
    assert any(line["actor"] == "computer:2" for line in lines[1:])
    verified(recorder)


def test_pause_and_resume_verify() -> None:
    recorder = started()
    recorder.wait(5)
    recorder.operator(liveness.pause(recorder.table, recorder.at), {"type": "pause"})
    recorder.wait(900)  # longer than any turn: only the pause keeps it from expiring
    recorder.operator(liveness.resume(recorder.table, recorder.at), {"type": "resume"})
    recorder.play(6)
    verified(recorder)
    found = failure_when_sent_by(recorder.lines(), "pause", "seat:0")
    assert "pause recorded for 'seat:0', not 'operator'" in found.message


def test_a_pause_writes_no_clock_step_and_resume_moves_the_turn_on() -> None:
    recorder = started()
    seat = recorder.to_act()
    recorder.wait(5)
    deadline = recorder.table.deadline(seat)
    recorder.operator(liveness.pause(recorder.table, recorder.at), {"type": "pause"})
    assert recorder.events[-1]["data"]["type"] == "table_paused"  # the clocks are held
    recorder.wait(900)
    recorder.operator(liveness.resume(recorder.table, recorder.at), {"type": "resume"})
    assert deadline is not None
    assert recorder.table.deadline(seat) == deadline + timedelta(seconds=900)
    verified(recorder)


def test_an_engine_1_0_0_pause_re_runs_as_it_was_played() -> None:
    """Under engine 1.0.0 a pause stopped the clocks and resume started a new turn."""
    recorder = started(engine="1.0.0")
    recorder.wait(5)
    recorder.operator(liveness.pause(recorder.table, recorder.at), {"type": "pause"})
    assert recorder.events[-1]["command"]["type"] == "set_clock"
    recorder.wait(900)
    recorder.operator(liveness.resume(recorder.table, recorder.at), {"type": "resume"})
    recorder.play(6)
    report = verified(recorder)
    assert any("played under rules engine 1.0.0" in note for note in report.notes)
    assert any("re-run through the rules (engine 1.0.0)" in check for check in report.checks)
    lines = recorder.lines()
    lines[1]["data"]["rules_version"] = lines[0]["rules_version"] = RULES_ENGINE_VERSION
    pause = commands(lines, "pause")[0]
    assert lines[pause + 1]["command"]["type"] == "set_clock"
    found = failure(lines)  # the same history claimed for engine 1.1.0
    assert found.version == pause + 1 and "produces no event" in found.message


def test_abort_verifies() -> None:
    recorder = started()
    reason = "the hall closes"
    recorder.operator(liveness.abort(recorder.table, reason), {"type": "abort", "reason": reason})
    assert recorder.table.status == "aborted"
    report = verified(recorder)
    assert report.header is not None and report.header.status == "aborted"
    # The deal the abort cut short is not said to be in play any more.
    table = render(report).split("deals (")[1].split("\n\n")[0].splitlines()
    assert table[-1].split()[0] == "1" and table[-1].endswith("not played out"), table


def test_a_computer_seats_move_relabelled_as_a_players_fails_at_that_move() -> None:
    """The computer's seat has no token, so no player's command is ever recorded there:
    relabelled ``seat:1``, its move (any legal one, once the chain is re-hashed) would
    escape the check that the computer played what the computer plays."""
    lines = started().lines()
    version = next(v for v, line in enumerate(lines) if v and line["actor"] == "computer:1")
    lines[version]["actor"] = "seat:1"
    found = failure(lines)
    assert found.version == version
    assert "seat 1 is the computer's" in found.message
