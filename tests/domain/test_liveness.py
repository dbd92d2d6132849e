"""DESIGN 10 in the domain: clocks, expiry, absence, leaving, resigning, pausing, aborting.

Each test drives a Playout (seats taken, the first deal answered) and feeds instants in
as the service would: the domain never reads the clock.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import msgspec
import pytest

from domain import RULES_ENGINE_VERSION, computer, liveness
from domain import table as tables
from domain.commands import Leave, Pass, Resign, Return
from domain.engine import engine_of
from domain.errors import RuleCode, RuleError
from domain.events import (
    ClockExpired,
    ClockSet,
    ClockSettings,
    GameForfeited,
    GameResigned,
    SeatLeft,
    SeatMarkedAbsent,
    SeatReturned,
    TableAborted,
)
from tests.support import endings
from tests.support.playout import Playout

T0 = datetime(2026, 12, 2, 20, 0, tzinfo=UTC)
CLOCK = ClockSettings(action_seconds=20, bank_seconds=60)


def clocked(game: str = "forty-five", seats: int = 4, clock: ClockSettings = CLOCK) -> Playout:
    """A started table whose clocks run from ``T0``."""
    created = tables.create("t", game, seats, {}, clock=clock)
    playout = Playout(created, seed=7)
    playout.seat_everyone()
    playout.apply(liveness.set_clock(playout.table, T0, None))
    return playout


def move(playout: Playout, seat: int, at: datetime, *, player: bool = True) -> None:
    """The computer's choice for ``seat`` sent at ``at``, then the clock step."""
    command = computer.choose(playout.table, seat)
    playout.apply(liveness.decide(playout.table, command, seat, at))
    playout.apply(liveness.set_clock(playout.table, at, seat, moved=player))


def seat_to_act(playout: Playout) -> int:
    return tables.to_act(playout.table)[0]


def test_the_seat_to_act_gets_action_seconds_plus_its_bank() -> None:
    table = clocked().table
    seat = tables.to_act(table)[0]
    assert table.deadline(seat) == T0 + timedelta(seconds=80)
    assert table.next_deadline == T0 + timedelta(seconds=80)
    view = tables.view(table, "spectator")
    assert view.deadline == T0 + timedelta(seconds=80)
    assert view.clock is not None and view.clock.bank == [60.0] * 4


def test_a_move_within_action_seconds_leaves_the_bank_whole() -> None:
    playout = clocked()
    seat = seat_to_act(playout)
    move(playout, seat, T0 + timedelta(seconds=19))
    assert playout.table.banks[seat] == 60_000
    nxt = seat_to_act(playout)
    assert playout.table.deadline(nxt) == T0 + timedelta(seconds=19 + 80)


def test_time_past_action_seconds_comes_out_of_the_bank() -> None:
    playout = clocked()
    seat = seat_to_act(playout)
    move(playout, seat, T0 + timedelta(seconds=32.5))
    assert playout.table.banks[seat] == 47_500
    clock_set = playout.events[-1]
    assert isinstance(clock_set, ClockSet) and clock_set.banks[seat] == 47_500


def test_a_move_at_the_deadline_is_refused() -> None:
    playout = clocked()
    seat = seat_to_act(playout)
    command = computer.choose(playout.table, seat)
    with pytest.raises(RuleError) as refused:
        liveness.decide(playout.table, command, seat, T0 + timedelta(seconds=80))
    assert refused.value.code is RuleCode.CLOCK_EXPIRED


def test_a_move_sent_after_the_clock_played_the_turn_says_the_time_ran_out() -> None:
    """Refused at the deadline, a late move said ``clock-expired``; a moment later, once
    the clock had played the turn, the same move said only ``not-your-turn``."""
    playout = clocked()
    seat = seat_to_act(playout)
    at = playout.table.deadline(seat)
    assert at is not None
    late = computer.choose(playout.table, seat)
    playout.apply(liveness.expire(playout.table, at))
    move(playout, seat, at, player=False)  # the clock's autoplay
    assert seat not in tables.to_act(playout.table)
    with pytest.raises(RuleError) as refused:
        liveness.decide(playout.table, late, seat, at + timedelta(seconds=1))
    assert refused.value.code is RuleCode.CLOCK_EXPIRED, refused.value
    # Another seat out of turn is told it is not its turn.
    other = next(s for s in range(4) if s not in (seat, seat_to_act(playout)))
    with pytest.raises(RuleError) as refused:
        liveness.decide(playout.table, Pass(), other, at + timedelta(seconds=1))
    assert refused.value.code is RuleCode.NOT_YOUR_TURN


def test_nothing_expires_before_the_deadline() -> None:
    table = clocked().table
    assert not liveness.due(table, T0 + timedelta(seconds=79.999))
    with pytest.raises(RuleError):
        liveness.expire(table, T0 + timedelta(seconds=79.999))


def test_an_expiry_spends_the_bank_and_two_in_a_row_mark_the_seat_absent() -> None:
    playout = clocked(game="reserve-bridge", seats=2)
    # Reserve Bridge's reserve phase waits on both seats; play on until one seat acts.
    while len(tables.to_act(playout.table)) != 1:
        move(playout, tables.to_act(playout.table)[0], T0)
    seat = seat_to_act(playout)
    at = playout.table.deadline(seat)
    assert at is not None
    first = liveness.expire(playout.table, at)
    assert first == [ClockExpired(seat=seat, in_a_row=1)]
    playout.apply(first)
    assert playout.table.banks[seat] == 0
    move(playout, seat, at, player=False)  # the clock's autoplay
    while seat_to_act(playout) != seat:
        move(playout, seat_to_act(playout), at)
    again = playout.table.deadline(seat)
    assert again is not None and again == at + timedelta(seconds=20)
    second = liveness.expire(playout.table, again)
    assert second == [ClockExpired(seat=seat, in_a_row=2), SeatMarkedAbsent(seat=seat)]
    playout.apply(second)
    assert seat in tables.computer_to_act(playout.table) or seat not in tables.to_act(playout.table)
    assert tables.view(playout.table, "spectator").seats[seat].absent


def test_a_move_of_its_own_ends_a_run_of_expiries() -> None:
    playout = clocked()
    seat = seat_to_act(playout)
    at = playout.table.deadline(seat)
    assert at is not None
    playout.apply(liveness.expire(playout.table, at))
    assert seat in playout.table.strikes
    move(playout, seat, at)  # its player, just in time for the restarted turn
    assert seat not in playout.table.strikes


def test_an_absent_seats_command_brings_it_back() -> None:
    playout = clocked()
    seat = seat_to_act(playout)
    playout.apply([SeatMarkedAbsent(seat=seat)])
    command = computer.choose(playout.table, seat)
    events = liveness.decide(playout.table, command, seat, T0)
    assert events[0] == SeatReturned(seat=seat)
    other = (seat + 1) % 4
    playout.apply([SeatMarkedAbsent(seat=other)])
    assert liveness.decide(playout.table, Return(), other, T0) == [SeatReturned(seat=other)]


def test_forfeit_on_expiry_ends_the_game_for_the_expired_side() -> None:
    playout = clocked(clock=ClockSettings(action_seconds=5, bank_seconds=0, on_timeout="forfeit"))
    seat = seat_to_act(playout)
    events = liveness.expire(playout.table, T0 + timedelta(seconds=5))
    losers = sorted({seat, (seat + 2) % 4})
    winners = [s for s in range(4) if s not in losers]
    assert events == [
        ClockExpired(seat=seat, in_a_row=1),
        GameForfeited(seat=seat, winners=winners, losers=losers),
    ]
    playout.apply(events)
    playout.apply(liveness.set_clock(playout.table, T0 + timedelta(seconds=5), seat))
    table = playout.table
    assert table.status == "finished" and table.result is not None
    assert table.result.reason == "forfeit"
    assert table.next_deadline is None
    with pytest.raises(RuleError) as refused:
        liveness.decide(table, Pass(), 0, T0)
    assert refused.value.code is RuleCode.GAME_OVER


@pytest.mark.parametrize(("engine", "together"), [(RULES_ENGINE_VERSION, True), ("1.2.0", False)])
def test_seats_out_of_time_at_the_same_instant_all_forfeit_from_engine_1_3_0(
    engine: str, together: bool
) -> None:
    """Both players of Reserve Bridge lay their reserves at once, and both walk away:
    their turns expire at the same instant. From engine 1.3.0 both forfeit and nobody
    wins; under an older engine seat 0 alone lost, and seat 1 won by being just as late."""
    forfeit = ClockSettings(action_seconds=5, bank_seconds=0, on_timeout="forfeit")
    playout = clocked(game="reserve-bridge", seats=2, clock=forfeit)
    playout.table = msgspec.structs.replace(playout.table, rules_version=engine)
    while len(tables.to_act(playout.table)) != 2:
        move(playout, seat_to_act(playout), T0)
    out = T0 + timedelta(seconds=5)
    assert playout.table.deadline(0) == playout.table.deadline(1) == out
    events = liveness.expire(playout.table, out)
    if together:
        assert events == [
            ClockExpired(seat=0, in_a_row=1),
            ClockExpired(seat=1, in_a_row=1),
            GameForfeited(seat=0, winners=[], losers=[0, 1]),
        ]
    else:
        assert events == [
            ClockExpired(seat=0, in_a_row=1),
            GameForfeited(seat=0, winners=[1], losers=[0]),
        ]
    playout.apply(events)
    result = playout.table.result
    assert playout.table.status == "finished" and result is not None
    assert result.reason == "forfeit" and result.winners == ([] if together else [1])


def test_resign_gives_a_partnership_game_to_the_other_side() -> None:
    playout = clocked()
    events = liveness.decide(playout.table, Resign(), 1, T0)
    assert events == [GameResigned(seat=1, winners=[0, 2], losers=[1, 3])]
    playout.apply(events)
    assert playout.table.status == "finished"


def test_resign_is_refused_in_a_game_without_two_sides() -> None:
    playout = clocked(game="pinochle-three", seats=3)
    with pytest.raises(RuleError) as refused:
        liveness.decide(playout.table, Resign(), 1, T0)
    assert refused.value.code is RuleCode.NO_SIDES


def test_a_seat_left_is_vacant_played_by_the_computer_and_can_be_taken_over() -> None:
    playout = clocked()
    seat = seat_to_act(playout)
    playout.apply(liveness.decide(playout.table, Leave(), seat, T0))
    table = playout.table
    assert playout.events[-1] == SeatLeft(seat=seat)
    assert table.epoch(seat) == 1
    assert tables.computer_to_act(table) == [seat]
    taken = tables.take_seat(table, seat, "Zoe")
    playout.apply(taken)
    assert playout.table.names[seat] == "Zoe"
    assert seat not in playout.table.absent and seat not in playout.table.vacant
    assert playout.table.epoch(seat) == 1  # the new token belongs to the epoch after the leave


def test_a_seat_left_before_the_start_is_free_again() -> None:
    playout = Playout(tables.create("t", "pitch", 3, {}), seed=1)
    playout.apply(tables.take_seat(playout.table, 0, "Ann"))
    playout.apply(liveness.decide(playout.table, Leave(), 0, T0))
    assert playout.table.names[0] is None
    assert playout.table.status == "waiting"


def test_pause_stops_the_clocks_and_resume_moves_them_on() -> None:
    playout = clocked()
    seat = seat_to_act(playout)
    playout.apply(liveness.pause(playout.table, T0 + timedelta(seconds=10)))
    # The service's clock step after the pause: the pause holds the clocks as they stood.
    assert liveness.set_clock(playout.table, T0 + timedelta(seconds=10), None) == []
    table = playout.table
    assert table.next_deadline is None and tables.legal_actions(table, seat) == []
    with pytest.raises(RuleError) as refused:
        liveness.decide(table, computer.choose(table, seat), seat, T0)
    assert refused.value.code is RuleCode.TABLE_PAUSED
    with pytest.raises(RuleError) as twice:
        liveness.pause(table, T0 + timedelta(seconds=11))
    assert twice.value.code is RuleCode.TABLE_PAUSED
    playout.apply(liveness.resume(table, T0 + timedelta(seconds=300)))
    assert playout.table.next_deadline == T0 + timedelta(seconds=80 + 290)
    with pytest.raises(RuleError) as again:
        liveness.resume(playout.table, T0 + timedelta(seconds=301))
    assert again.value.code is RuleCode.NOT_PAUSED


def test_a_paused_view_says_what_the_stopped_turn_has_left() -> None:
    """An app restarted during a pause draws the frozen clock from the view alone: the
    deadline is null while paused, and the bank is the turn's start's."""
    playout = clocked()
    seat = seat_to_act(playout)
    running = tables.view(playout.table, "spectator").clock
    assert running is not None and running.paused_left is None
    playout.apply(liveness.pause(playout.table, T0 + timedelta(seconds=10)))
    paused = tables.view(playout.table, seat).clock
    assert paused is not None and paused.paused_left is not None
    assert paused.paused_left[seat] == 70.0  # 20 s of turn and 60 of bank, 10 spent
    assert [v for i, v in enumerate(paused.paused_left) if i != seat] == [None] * 3
    playout.apply(liveness.resume(playout.table, T0 + timedelta(seconds=300)))
    resumed = tables.view(playout.table, "spectator")
    assert resumed.clock is not None and resumed.clock.paused_left is None
    assert resumed.deadline == T0 + timedelta(seconds=300 + 70), "what the pause said"
    assert "paused_left" not in msgspec.to_builtins(resumed.clock), "absent unless paused"


def test_under_engine_1_0_0_a_paused_view_says_the_whole_turn_a_resume_gives() -> None:
    """Engine 1.0.0's pause charged the running turn and stopped it; a resume starts
    the seat to act on a whole turn: its time and the bank left."""
    created = tables.create("t", "forty-five", 4, {}, clock=CLOCK)
    playout = Playout(msgspec.structs.replace(created, rules_version="1.0.0"), seed=7)
    playout.seat_everyone()
    playout.apply(liveness.set_clock(playout.table, T0, None))
    seat = seat_to_act(playout)
    at = T0 + timedelta(seconds=10)
    playout.apply(liveness.pause(playout.table, at))
    playout.apply(liveness.set_clock(playout.table, at, None))  # the service's clock step
    clock = tables.view(playout.table, "spectator").clock
    assert clock is not None and clock.paused_left is not None
    resume_at = T0 + timedelta(seconds=300)
    playout.apply(liveness.resume(playout.table, resume_at))
    playout.apply(liveness.set_clock(playout.table, resume_at, None))
    deadline = playout.table.deadline(seat)
    assert deadline is not None
    assert clock.paused_left[seat] == (deadline - resume_at).total_seconds() == 80.0


def test_a_table_aborted_while_paused_cannot_be_resumed() -> None:
    playout = clocked()
    playout.apply(liveness.pause(playout.table, T0 + timedelta(seconds=10)))
    playout.apply(liveness.abort(playout.table, "the hall closes"))
    assert not tables.view(playout.table, "spectator").paused
    with pytest.raises(RuleError) as refused:
        liveness.resume(playout.table, T0 + timedelta(seconds=20))
    assert refused.value.code is RuleCode.TABLE_ABORTED


def test_abort_ends_the_table_once_and_opens_every_deck_to_audit() -> None:
    playout = clocked()
    assert playout.table.unrevealed
    playout.apply(liveness.abort(playout.table, "the hall closes"))
    assert TableAborted(reason="the hall closes") in playout.events
    assert playout.table.status == "aborted"
    assert playout.table.unrevealed == (), "an aborted table's seeds are revealed"
    with pytest.raises(RuleError) as twice:
        liveness.abort(playout.table, "again")
    assert twice.value.code is RuleCode.TABLE_ABORTED


def test_downtime_is_given_back_to_running_turns() -> None:
    playout = clocked()
    seat = seat_to_act(playout)
    down_from, back_at = T0 + timedelta(seconds=15), T0 + timedelta(seconds=615)
    events = liveness.extend(playout.table, back_at, down_from)
    playout.apply(events)
    assert playout.table.deadline(seat) == T0 + timedelta(seconds=80 + 600)


@pytest.mark.parametrize(("engine", "left"), [("1.2.0", 2.0), ("1.1.0", 0.3)])
def test_a_turn_nearly_out_gets_at_least_two_seconds_back_from_engine_1_2_0(
    engine: str, left: float
) -> None:
    """Down with 0.3 s of an 80 s turn left: the outage is given back and, from engine
    1.2.0, at least 2 s from the moment it is; an older table gets its 0.3 s whatever
    ``at_least`` says, so an export that claims more does not re-run."""
    playout = clocked()
    playout.table = msgspec.structs.replace(playout.table, rules_version=engine)
    seat = seat_to_act(playout)
    down_from = T0 + timedelta(seconds=79.7)
    back_at = down_from + timedelta(seconds=600)
    playout.apply(liveness.extend(playout.table, back_at, down_from, timedelta(seconds=2)))
    assert playout.table.deadline(seat) == back_at + timedelta(seconds=left)


def test_a_replaced_seat_revokes_the_old_token() -> None:
    playout = clocked()
    playout.apply(liveness.replace_seat(playout.table, 2, "Bea", computer=False))
    assert playout.table.epoch(2) == 1 and playout.table.names[2] == "Bea"


def test_no_clock_no_clock_events() -> None:
    created = tables.create("t", "pitch", 2, {})
    playout = Playout(created, seed=3)
    playout.seat_everyone()
    assert liveness.set_clock(playout.table, T0, None) == []
    assert tables.view(playout.table, "spectator").clock is None


@pytest.mark.parametrize("clock", [(0, 10), (-1, 0), (20, -1), (10**6, 0), (20, 10**9)])
def test_absurd_clocks_are_refused(clock: tuple[int, int]) -> None:
    settings = ClockSettings(action_seconds=clock[0], bank_seconds=clock[1])
    with pytest.raises(RuleError) as refused:
        tables.create("t", "pitch", 2, {}, clock=settings)
    assert refused.value.code is RuleCode.INVALID_OPTIONS


@pytest.mark.parametrize(
    ("version", "parsed"),
    [("1.1.0", (1, 1, 0)), ("1.1", (1, 1, 0)), ("10.0.2", (10, 0, 2)), ("1.1.²", None)],
)
def test_an_engine_version_is_dotted_ascii_numbers(
    version: str, parsed: tuple[int, int, int] | None
) -> None:
    assert engine_of(version) == parsed


def test_an_older_or_unreadable_engine_takes_the_old_way() -> None:
    table = clocked().table
    assert table.engine_since("1.1.0") and table.engine_since("1.0.0")
    for old in ("1.0.0", "0.9", "nonsense"):
        assert not msgspec.structs.replace(table, rules_version=old).engine_since("1.1.0")


@pytest.mark.parametrize("ending", ["played", "resigned", "forfeited", "aborted", "expired"])
def test_the_event_that_ends_a_table_is_an_ending_event(ending: str) -> None:
    """``ENDING_EVENTS`` is what the live streams take for a table's end (they end at
    once there): each way a table ends, the event that made its status ``ENDED`` is one.
    A stream once ended only a keep-alive later after a resignation, which it missed."""
    names = ["Ann", "Bob", "Cy", "Di"]
    if ending == "expired":
        playout = Playout(tables.create("t", "forty-five", 4, {}), 1)
        playout.apply(tables.expire_waiting(playout.table))
    else:
        clock = endings.FORFEIT if ending == "forfeited" else None
        playout = endings.seated("t", names, seed=1, clock=clock)
        if ending == "played":
            playout.play_out()
        elif ending == "resigned":
            endings.resign(playout, 0)
        elif ending == "forfeited":
            endings.forfeit(playout)
        else:
            endings.abort(playout)
    table = tables.fold(playout.events[:1])
    for event in playout.events[1:]:
        ended_before = table.status in tables.ENDED
        table = tables.evolve(table, event)
        if table.status in tables.ENDED and not ended_before:
            assert isinstance(event, tables.ENDING_EVENTS), event
            return
    raise AssertionError(f"the table did not end: {table.status}")
