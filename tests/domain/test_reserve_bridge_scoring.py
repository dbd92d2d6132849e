"""Reserve Bridge: the contract result and the score sheet (RULES 4.6, 4.8)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import msgspec
import pytest

from domain import liveness
from domain import table as tables
from domain.bridge.events import PartieWon, RubberWon
from domain.bridge.scoring import achieved, score_deal
from domain.bridge.state import (
    BridgeHonour,
    BridgeSheetEntry,
    Doubling,
    Phase,
    State,
)
from domain.common.structs import CompletedTrick
from domain.events import Event, GameTimed, GameWon, HandScored, ScoreItem
from tests.support.playout import Playout, to_command

B, A = 0, 1
T0 = datetime(2026, 12, 2, 20, 0, tzinfo=UTC)


def end_of_deal(
    bid: int,
    denomination: str,
    taken: int,
    *,
    declarer: int = A,
    doubling: Doubling = "none",
    parties: tuple[int, int] = (0, 0),
    sheet: tuple[BridgeSheetEntry, ...] = (),
    honours: tuple[BridgeHonour, ...] = (),
) -> State:
    """Ten tricks played, ``taken`` of them by the declarer."""
    return State(
        phase=Phase.PLAY,
        dealer=B,
        deal=5,
        high_bid=bid,
        high_bidder=declarer,
        denomination=denomination,
        doubling=doubling,
        tricks=tuple(
            CompletedTrick(leader=A, winner=declarer if i < taken else 1 - declarer, cards=())
            for i in range(10)
        ),
        parties=parties,
        sheet=sheet,
        honours=honours,
    )


def scored(state: State) -> HandScored:
    event = score_deal(state)[0]
    assert isinstance(event, HandScored)
    return event


def items(state: State) -> list[tuple[int, str, int]]:
    return [(i.unit, i.label, i.points) for i in scored(state).items]


def below(seat: int, points: int, partie: int = 0) -> BridgeSheetEntry:
    return BridgeSheetEntry(
        deal=1, partie=partie, seat=seat, line="below", label="contract", points=points
    )


def above(seat: int, points: int) -> BridgeSheetEntry:
    return BridgeSheetEntry(
        deal=1, partie=0, seat=seat, line="above", label="penalty", points=points
    )


def test_trick_contract_achieves_the_odd_tricks_times_their_value() -> None:
    """RULES 4.6: (tricks − 5) × value, or 0."""
    assert [achieved("C", t) for t in (4, 5, 6, 10)] == [0, 0, 6, 30]
    assert [achieved("H", t) for t in (7, 9)] == [16, 32]
    assert achieved("NT", 8) == 30


def test_nullo_achieves_by_losing_tricks() -> None:
    """RULES 4.6: (5 − declarer's tricks) × 10; one trick is a small, none a grand slam."""
    assert [achieved("NULLO", t) for t in (0, 1, 3, 5, 7)] == [50, 40, 20, 0, 0]


def test_made_bid_goes_below_and_overtricks_earn_nothing() -> None:
    """RULES 4.8: 6 in ♣ with all ten tricks is 6 below, nothing more."""
    assert items(end_of_deal(6, "C", 10)) == [(A, "below:contract", 6)]


def test_contract_is_made_when_achieved_reaches_the_bid() -> None:
    """RULES 4.6: 9 in ♥ needs two odd tricks (16 ≥ 9); one odd trick (8) fails by 1."""
    assert scored(end_of_deal(9, "H", 7)).contract.made  # type: ignore[union-attr]
    assert items(end_of_deal(9, "H", 6)) == [(B, "above:penalty", 3)]


@pytest.mark.parametrize(
    ("bid", "denomination", "taken", "parties", "premium"),
    [
        pytest.param(24, "D", 9, (0, 0), 100, id="small slam before partie"),
        pytest.param(24, "D", 10, (0, 1), 150, id="small slam with an overtrick after partie"),
        pytest.param(30, "C", 10, (0, 0), 200, id="grand slam before partie"),
        pytest.param(40, "H", 10, (0, 1), 300, id="grand slam in hearts after partie"),
        pytest.param(40, "NT", 9, (0, 0), 100, id="forty is a small slam in no-trump"),
        pytest.param(40, "NULLO", 1, (0, 0), 100, id="small nullo slam: one trick taken"),
        pytest.param(50, "NULLO", 0, (0, 0), 200, id="grand nullo slam: no trick taken"),
    ],
)
def test_slam_premium_when_bid_and_made_as_a_slam(
    bid: int, denomination: str, taken: int, parties: tuple[int, int], premium: int
) -> None:
    """RULES 4.8: small 100 / 150, grand 200 / 300 (before / after the declarer's partie)."""
    assert (A, "above:slam", premium) in items(
        end_of_deal(bid, denomination, taken, parties=parties)
    )


def test_no_slam_premium_for_a_slam_taken_but_not_bid() -> None:
    """RULES 4.8 and the seed: 20 in ♦ with ten tricks is no slam bid."""
    assert items(end_of_deal(20, "D", 10)) == [(A, "below:contract", 20)]


@pytest.mark.parametrize(
    ("doubling", "parties", "label", "premium"),
    [
        ("contra", (0, 0), "above:contra", 25),
        ("contra", (0, 1), "above:contra", 40),
        ("recontra", (0, 0), "above:recontra", 50),
        ("recontra", (0, 1), "above:recontra", 80),
    ],
)
def test_made_with_contra_or_recontra(
    doubling: Doubling, parties: tuple[int, int], label: str, premium: int
) -> None:
    """RULES 4.8: 25 / 40 with contra, double with recontra; the entry below is the bid."""
    assert items(end_of_deal(12, "S", 7, doubling=doubling, parties=parties)) == [
        (A, "below:contract", 12),
        (A, label, premium),
    ]


def test_lost_contract_pays_the_shortfall_times_three_or_five_to_the_opponent() -> None:
    """RULES 4.8: bid 20 in ♥, 7 tricks, after the declarer's partie: 4 × 5 = 20 to B."""
    assert items(end_of_deal(20, "H", 7, parties=(0, 1))) == [(B, "above:penalty", 20)]
    assert items(end_of_deal(20, "H", 7, parties=(1, 0))) == [(B, "above:penalty", 12)]


def test_honours_score_whatever_the_contract_result() -> None:
    """RULES 4.7: honours to whoever holds them, even the declarer who goes down."""
    honours = (BridgeHonour(seat=A, kind="run", count=4, points=15),)
    assert items(end_of_deal(20, "H", 5, honours=honours)) == [
        (A, "above:honours", 15),
        (B, "above:penalty", 60),
    ]


def test_twenty_below_the_line_wins_a_partie() -> None:
    """RULES 4.8: 12 below, then 8 more: the partie."""
    events = score_deal(end_of_deal(8, "S", 6, sheet=(below(A, 12),)))
    assert events[1] == PartieWon(seat=A, parties=[0, 1])
    assert len(events) == 2


def test_part_scores_do_not_carry_into_the_next_partie() -> None:
    """RULES 4.8 [decision]: A's 10 of the first partie does not help in the second."""
    sheet = (below(A, 10), below(B, 24), below(A, 10, partie=1))
    events = score_deal(end_of_deal(8, "S", 6, parties=(1, 0), sheet=sheet))
    assert not any(isinstance(e, PartieWon) for e in events)
    events = score_deal(end_of_deal(10, "S", 7, parties=(1, 0), sheet=sheet))
    assert any(isinstance(e, PartieWon) for e in events)


def rubber_events(parties: tuple[int, int], sheet: tuple[BridgeSheetEntry, ...]) -> list[Event]:
    return score_deal(end_of_deal(20, "NT", 7, parties=parties, sheet=sheet))


def test_two_parties_to_none_win_the_rubber_with_150_and_end_the_table() -> None:
    """RULES 4.8: the rubber premium is 150 at 2-0; the result is the difference."""
    sheet = (below(A, 24), BridgeSheetEntry(1, 0, A, "above", "honours", 15), above(B, 30))
    events = rubber_events((0, 1), sheet)
    hand = events[0]
    assert isinstance(hand, HandScored)
    assert hand.items[-1] == ScoreItem(unit=A, label="above:rubber", points=150)
    assert hand.scores == [30, 24 + 15 + 20 + 150]
    assert events[1:] == [
        PartieWon(seat=A, parties=[0, 2]),
        RubberWon(seat=A, parties=[0, 2], totals=[30, 209], difference=179),
        GameWon(winners=[A], scores=[30, 209]),
    ]


def test_two_parties_to_one_win_the_rubber_with_100() -> None:
    events = rubber_events((1, 1), (below(B, 20), below(A, 20, partie=1)))
    hand = events[0]
    assert isinstance(hand, HandScored)
    assert hand.items[-1] == ScoreItem(unit=A, label="above:rubber", points=100)


def test_the_table_goes_to_the_higher_total_not_to_the_rubber() -> None:
    """RULES 4.8: each totals all his points; B's penalties outweigh A's rubber."""
    events = rubber_events((0, 1), (below(A, 20), above(B, 900)))
    assert events[-1] == GameWon(winners=[B], scores=[900, 20 + 20 + 150])
    assert events[-2] == RubberWon(seat=A, parties=[0, 2], totals=[900, 190], difference=710)


def test_a_rubber_ended_on_time_shows_the_part_score_of_its_open_partie() -> None:
    """Time called with one partie won and a part-score below the line in the next: the
    view's sheet had a column only for each partie won (a finished rubber has no open
    one), and the view raised for every audience; the table's last card could not be
    played."""
    created = tables.create("t", "reserve-bridge", 2, {}, ends_at=T0, tournament="a-tournament")
    playout = Playout(created, seed=0)
    playout.seat_everyone()

    def part_score_in_open_partie(state: State) -> bool:
        open_partie = sum(state.parties)
        return open_partie >= 1 and any(
            e.line == "below" and e.partie == open_partie for e in state.sheet
        )

    while not part_score_in_open_partie(playout.table.state):
        seat = playout.choose_seat()
        playout.act(
            seat, to_command(playout.pick(tables.legal_actions(playout.table, seat)), playout.rng)
        )
    playout.apply(liveness.call_time(playout.table, T0 + timedelta(seconds=1)))
    for _ in playout.steps():
        pass
    assert isinstance(playout.events[-1], GameTimed)
    open_partie = sum(playout.table.state.parties)
    for audience in ("spectator", 0, "operator"):
        sheet = msgspec.to_builtins(tables.view(playout.table, audience))["sheet"]
        assert len(sheet["below"]) == open_partie + 1
        assert sum(sheet["below"][open_partie]) > 0
