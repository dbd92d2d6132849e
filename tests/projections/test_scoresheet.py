"""The score sheet shows how its table ended (DESIGN 10): played, resigned, forfeited
or aborted, with the winners and losers; the fields it had before keep their meaning."""

from __future__ import annotations

import msgspec

from domain import liveness
from domain import table as tables
from domain.commands import Leave
from domain.pinochle.events import ChipsSettled
from domain.protocol import Result
from projections import scoresheet
from projections.scoresheet import ScoreSheet
from tests.support.endings import FORFEIT, T0, abort, forfeit, play_until_scored, resign, seated
from tests.support.pinochle import PinochlePlayout
from tests.support.playout import Playout

NAMES = ["Ann", "Bob", "Cid", "Dee"]


def sheet_of(playout: Playout) -> ScoreSheet:
    sheet = None
    for version, event in enumerate(playout.events, start=1):
        sheet = scoresheet.fold(sheet, event, version, version)
    assert sheet is not None
    return sheet


def test_a_game_played_to_the_end_says_so() -> None:
    playout = seated("t1", NAMES)
    playout.play_out()
    sheet = sheet_of(playout)
    assert playout.table.result is not None
    assert sheet.result == playout.table.result
    assert sheet.result.reason == "played"
    assert sheet.finished and sheet.winners == sheet.result.winners
    assert sorted(sheet.result.winners + sheet.result.losers) == [0, 1, 2, 3]
    assert scoresheet.check_totals(sheet)


def test_a_resigned_game_is_finished_with_the_totals_as_they_stood() -> None:
    playout = seated("t1", NAMES)
    play_until_scored(playout)
    resign(playout, 1)
    sheet = sheet_of(playout)
    assert sheet.result == Result(reason="resigned", winners=[0, 2], losers=[1, 3])
    assert sheet.result == playout.table.result
    assert sheet.finished and sheet.winners == [0, 2]
    assert sheet.rows and sheet.totals == sheet.rows[-1].totals
    assert scoresheet.check_totals(sheet)


def test_a_forfeited_game_names_the_side_whose_clock_ran_out() -> None:
    playout = seated("t1", NAMES, clock=FORFEIT)
    seat = forfeit(playout)
    sheet = sheet_of(playout)
    assert sheet.result is not None and sheet.result.reason == "forfeit"
    assert sheet.result == playout.table.result
    assert seat in sheet.result.losers and sheet.finished
    assert sheet.rows == [] and sheet.totals == [0, 0]


def test_an_aborted_table_is_never_finished() -> None:
    playout = seated("t1", NAMES)
    play_until_scored(playout)
    abort(playout)
    sheet = sheet_of(playout)
    assert sheet.result == Result(reason="aborted", winners=[], losers=[])
    assert not sheet.finished and sheet.winners == []
    assert sheet.rows and scoresheet.check_totals(sheet)


def test_an_open_table_has_no_result() -> None:
    playout = seated("t1", NAMES)
    play_until_scored(playout)
    sheet = sheet_of(playout)
    assert sheet.result is None and not sheet.finished


def test_the_players_are_the_names_the_table_seats() -> None:
    playout = seated("t1", NAMES)
    playout.apply(liveness.replace_seat(playout.table, 3, "Zoe", computer=False))
    playout.apply(liveness.decide(playout.table, Leave(), 1, T0))
    assert sheet_of(playout).players == ["Ann", "Bob", "Cid", "Zoe"] == list(playout.table.names)
    waiting = Playout(tables.create("t2", "pitch", 3, {}), seed=1)
    waiting.apply(tables.take_seat(waiting.table, 0, "Ann"))
    waiting.apply(liveness.decide(waiting.table, Leave(), 0, T0))
    assert sheet_of(waiting).players == [None, None, None]


def test_a_sheet_stored_before_results_existed_still_reads() -> None:
    stored = (
        b'{"table":"t1","game":"forty-five","units":[[0,2],[1,3]],"players":[null,null,null,null]}'
    )
    sheet = msgspec.json.decode(stored, type=ScoreSheet)
    assert sheet.result is None and sheet.rows == [] and not sheet.finished


def test_a_table_playing_for_chips_has_a_row_per_deal_and_the_tables_totals() -> None:
    """Auction Pinochle for chips reports a deal with chips_settled moves — the ante, the
    contract's chips, the kitty shared out after the last deal — not hand_scored."""
    playout = PinochlePlayout(tables.create("t9", "pinochle", 3, {"deals": 4}), seed=5)
    playout.seat_everyone()
    playout.play_out()
    settled = [e for e in playout.events if isinstance(e, ChipsSettled)]
    assert {e.reason for e in settled} >= {"ante", "kitty_shared"}
    sheet = None
    for version, event in enumerate(playout.events, start=1):
        sheet = scoresheet.fold(sheet, event, version, version)
        if isinstance(event, ChipsSettled):
            assert sheet is not None
            table = tables.fold(playout.events[:version])
            assert sheet.totals == list(tables.view(table, "operator").scores), version
    assert sheet is not None and sheet.finished
    assert [row.deal for row in sheet.rows] == list(range(1, playout.table.deals + 1))
    assert scoresheet.check_totals(sheet)
    final = list(tables.view(playout.table, "operator").scores)
    assert sheet.rows[-1].totals == sheet.totals == final
