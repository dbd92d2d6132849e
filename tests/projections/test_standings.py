"""The standings fold over tables that end every way (DESIGN 10): aborted tables count
nowhere; a resignation or a forfeit is a loss for the side that did it and a win for
the other; a seat counts for the name in it when the table ends."""

from __future__ import annotations

import random

import msgspec

from domain import liveness
from domain import table as tables
from domain.commands import Leave
from domain.events import Event, GameResigned, HandScored, SeatReplaced
from projections import standings
from projections.standings import Entrant, Standings
from tests.support.endings import FORFEIT, T0, abort, forfeit, play_until_scored, resign, seated
from tests.support.playout import Playout

CUP = "cup"
NAMES = ["Ann", "Bob", "Cid", "Dee"]  # Forty-Five: Ann & Cid (seats 0, 2) v Bob & Dee


def fold_all(*playouts: Playout) -> Standings:
    """The standings of ``playouts``' tables, one table's events after another's."""
    board = Standings(tournament=CUP)
    position = 0
    for playout in playouts:
        for event in playout.events:
            position += 1
            board = standings.fold(board, playout.table.id, event, position)
    return board


def by_name(entrants: list[Entrant]) -> dict[str, tuple[int, int, int]]:
    return {e.name: (e.played, e.won, e.score) for e in entrants}


def last_scores(events: list[Event]) -> list[int]:
    return [e for e in events if isinstance(e, HandScored)][-1].scores


def test_a_resignation_is_a_loss_for_the_resigning_side_and_a_win_for_the_other() -> None:
    playout = seated("t1", NAMES)
    play_until_scored(playout)
    resign(playout, 1)  # Bob gives up for Bob & Dee
    scores = last_scores(playout.events)
    board = fold_all(playout)
    result = board.tables["t1"]
    assert result.finished and result.reason == "resigned"
    assert result.winners == [0, 2] and result.scores == scores
    assert by_name(board.players) == {
        "Ann": (1, 1, scores[0]),
        "Cid": (1, 1, scores[0]),
        "Bob": (1, 0, scores[1]),
        "Dee": (1, 0, scores[1]),
    }
    assert [e.name for e in board.partnerships][:1] == ["Ann & Cid"]
    assert by_name(board.partnerships)["Bob & Dee"] == (1, 0, scores[1])


def test_a_resignation_before_any_deal_is_scored_counts_zeros() -> None:
    playout = seated("t1", NAMES)
    resign(playout, 2)
    board = fold_all(playout)
    assert board.tables["t1"].scores == [0, 0]
    assert by_name(board.players)["Cid"] == (1, 0, 0)
    assert by_name(board.players)["Bob"] == (1, 1, 0)


def test_a_forfeit_is_a_loss_for_the_side_whose_clock_ran_out() -> None:
    playout = seated("t1", NAMES, clock=FORFEIT)
    play_until_scored(playout)
    seat = forfeit(playout)
    losing = {seat, (seat + 2) % 4}
    scores = last_scores(playout.events)
    board = fold_all(playout)
    result = board.tables["t1"]
    assert result.finished and result.reason == "forfeit"
    assert set(result.winners) == {0, 1, 2, 3} - losing and result.scores == scores
    for s, name in enumerate(NAMES):
        played, won, _ = by_name(board.players)[name]
        assert (played, won) == (1, int(s not in losing))


def test_a_forfeit_in_a_game_of_single_seats_is_a_win_for_every_other_seat() -> None:
    playout = seated("t1", ["Ann", "Bob", "Cid"], game="pinochle-three", clock=FORFEIT)
    seat = forfeit(playout)
    board = fold_all(playout)
    assert board.partnerships == []
    won = {e.name: e.won for e in board.players}
    assert won == {name: int(s != seat) for s, name in enumerate(["Ann", "Bob", "Cid"])}


def test_an_aborted_table_is_absent_from_the_standings() -> None:
    played = seated("t1", NAMES, seed=1)
    played.play_out()
    cut = seated("t2", ["Ann", "Eve", "Cid", "Fay"], seed=2)
    play_until_scored(cut)
    abort(cut)
    board = fold_all(played, cut)
    assert list(board.tables) == ["t1"]
    alone = fold_all(played)
    assert (board.players, board.partnerships) == (alone.players, alone.partnerships)
    assert "Eve" not in by_name(board.players)


def test_an_aborted_table_stays_out_whatever_follows() -> None:
    playout = seated("t1", NAMES)
    abort(playout)
    board = fold_all(playout)
    late = standings.fold(board, "t1", GameResigned(seat=0, winners=[1, 3], losers=[0, 2]), 99)
    assert late.tables == {} and late.players == [] and late.position == 99


def test_a_replaced_seat_counts_for_the_name_seated_when_the_table_ends() -> None:
    playout = seated("t1", NAMES)
    play_until_scored(playout)
    playout.apply(liveness.replace_seat(playout.table, 3, "Zoe", computer=False))
    resign(playout, 3)
    board = fold_all(playout)
    assert board.tables["t1"].players == ["Ann", "Bob", "Cid", "Zoe"]
    assert set(by_name(board.players)) == {"Ann", "Bob", "Cid", "Zoe"}
    assert by_name(board.players)["Zoe"][:2] == (1, 0)
    assert "Bob & Zoe" in by_name(board.partnerships)


def test_a_seat_taken_over_counts_for_its_new_player_and_one_left_for_its_leaver() -> None:
    playout = seated("t1", NAMES)
    play_until_scored(playout)
    playout.apply(liveness.decide(playout.table, Leave(), 1, T0))
    playout.apply(liveness.decide(playout.table, Leave(), 2, T0))
    playout.apply(tables.take_seat(playout.table, 2, "Zed"))  # a take-over: seat_taken
    resign(playout, 0)
    board = fold_all(playout)
    # Bob left and nobody took his seat: the game is still his (a win here).
    assert board.tables["t1"].players == ["Ann", "Bob", "Zed", "Dee"]
    assert by_name(board.players)["Bob"][:2] == (1, 1)
    assert by_name(board.players)["Zed"][:2] == (1, 0)
    assert "Cid" not in by_name(board.players)


def test_nothing_changes_a_table_once_it_has_ended() -> None:
    playout = seated("t1", NAMES)
    resign(playout, 0)
    board = fold_all(playout)
    after = standings.fold(board, "t1", SeatReplaced(seat=0, name="Zoe"), 99)
    assert after.tables == board.tables and after.players == board.players


def test_the_ranking_is_always_that_of_the_tables_and_survives_every_reload() -> None:
    """Rebuildable: after every event the entrants are ``rank`` of the tables, and a
    fold that stores and reloads its document between any two events (as the projector
    does between batches) ends where a fold from zero in one pass does."""
    rng = random.Random(5)
    ended = [seated("t1", NAMES, seed=1), seated("t2", NAMES, seed=2, clock=FORFEIT)]
    ended += [seated("t3", ["Ann", "Eve", "Cid", "Fay"], seed=3), seated("t4", NAMES, seed=4)]
    ended[0].play_out()
    play_until_scored(ended[1])
    forfeit(ended[1])
    play_until_scored(ended[2])
    abort(ended[2])
    resign(ended[3], 3)
    interleaved = _interleave(ended, rng)
    straight = Standings(tournament=CUP)
    reloaded = Standings(tournament=CUP)
    for position, (table_id, event) in enumerate(interleaved, start=1):
        straight = standings.fold(straight, table_id, event, position)
        assert (straight.players, straight.partnerships) == standings.rank(straight.tables.values())
        reloaded = standings.fold(reloaded, table_id, event, position)
        if rng.random() < 0.2:
            stored = msgspec.json.encode(reloaded)
            reloaded = msgspec.json.decode(stored, type=Standings)
    assert reloaded == straight
    assert sorted(straight.tables) == ["t1", "t2", "t4"]
    assert sum(e.played for e in straight.players) == 12


def _interleave(playouts: list[Playout], rng: random.Random) -> list[tuple[str, Event]]:
    """The tables' events merged in a random order that keeps each table's own order,
    as the store's global order does."""
    queues = [[(p.table.id, e) for e in p.events] for p in playouts]
    merged: list[tuple[str, Event]] = []
    while any(queues):
        queue = rng.choice([q for q in queues if q])
        merged.append(queue.pop(0))
    return merged
