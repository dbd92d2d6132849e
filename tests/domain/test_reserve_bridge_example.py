"""Reserve Bridge: the worked example of RULES 4.9, from its exact deal to the score sheet.

Seat 0 deals, so seat 1 is A (non-dealer) and seat 0 is B — deliberately not A = seat 0,
so that nothing here passes by confusing seats with roles.
"""

from __future__ import annotations

from collections import Counter

import pytest

from domain import table as tables
from domain.bridge.events import (
    ContraCalled,
    ContractSettled,
    DenominationNamed,
    HonoursAnnounced,
    PartieWon,
    SlamBidMade,
    StageDealt,
)
from domain.bridge.scoring import achieved, penalty
from domain.cards import piquet_pack
from domain.commands import Accept, Bid, Contra, Declare, Pass, Play, Reserve, Stand
from domain.errors import RuleCode
from domain.events import AuctionWon, BidMade, CardsDealt, HandScored, ScoreItem, TrickWon
from tests.support.decks import reserve_bridge_order, stack_deck
from tests.support.playout import Playout, refused

B, A = 0, 1  # B deals; A is the non-dealer

# RULES 4.9, stage by stage: 10 cards, then 2, 2 and the last 2 after the contract.
STAGES = {
    A: [
        ["JS", "TS", "7S", "QH", "JH", "9H", "KD", "QC", "TC", "9C"],
        ["AS", "8C"],
        ["JD", "KC"],
        ["KS", "8S"],
    ],
    B: [
        ["QS", "9S", "KH", "TH", "QD", "TD", "9D", "7D", "AC", "7C"],
        ["AD", "8H"],
        ["AH", "JC"],
        ["8D", "7H"],
    ],
}
RESERVES = {A: ["AS", "KD", "JD"], B: ["QS", "AD", "QD"]}
TRICKS = [
    [(A, "8S"), (B, "9S"), (A, "KS"), (B, "TD")],
    [(B, "8D"), (A, "7S"), (B, "7D"), (A, "TS")],
    [(B, "7C"), (A, "8C"), (B, "AC"), (A, "9C")],
    [(B, "7H"), (A, "9H"), (B, "AH"), (A, "JH")],
    [(B, "8H"), (A, "QH"), (B, "KH"), (A, "JS")],
    [(B, "9D"), (A, "KC"), (B, "JC"), (A, "QC")],
    [(B, "TH"), (A, "TC")],
    [(B, "QS"), (A, "AS")],
    [(A, "JD"), (B, "QD")],
    [(B, "AD"), (A, "KD")],
]
WINNERS = [B, B, B, B, B, B, B, A, B, B]


def example_deck() -> list[str]:
    hands = {seat: [c for stage in stages for c in stage] for seat, stages in STAGES.items()}
    return stack_deck(hands, reserve_bridge_order(B), piquet_pack())


def example_table() -> Playout:
    created = tables.create(
        "golden", "reserve-bridge", 2, {}, first_dealer=B, decks=[example_deck()]
    )
    playout = Playout(created, seed=0)
    playout.seat_everyone()
    return playout


def through_the_auction(playout: Playout) -> None:
    """RULES 4.9 rounds 1-3: A 6, B 8; A 9, B 14; A passes, B 24."""
    for seat, amount in [(A, 6), (B, 8), (A, 9), (B, 14)]:
        playout.act(seat, Bid(amount=amount))
    playout.act(A, Pass())
    playout.act(B, Bid(amount=24))


def to_the_reserves(playout: Playout, *, contra: bool = False) -> None:
    """The auction; B names diamonds and the contract stands: A accepts it, or A contras
    and B accepts the contra."""
    through_the_auction(playout)
    playout.act(B, Declare(denomination="D"))
    if contra:
        playout.act(A, Contra())
        playout.act(B, Accept())
    else:
        playout.act(A, Accept())


def test_operator_deck_deals_the_example_hands_in_twos_non_dealer_first() -> None:
    """RULES 4.2 and 4.9: the exact deal, stage by stage, from one operator deck."""
    deck = example_deck()
    assert deck[:4] == [*STAGES[A][0][:2], *STAGES[B][0][:2]]  # twos, A first
    playout = example_table()
    dealt = next(e for e in playout.events if isinstance(e, CardsDealt))
    assert dealt.dealer == B
    for seat in (A, B):
        assert Counter(dealt.hands[seat] or []) == Counter(STAGES[seat][0])
    assert dealt.rest is not None and len(dealt.rest) == 12  # dealt later, from state
    to_the_reserves(playout)
    stages = [e for e in playout.events if isinstance(e, StageDealt)]
    assert [s.stage for s in stages] == [2, 3, 4]
    for stage in stages:
        for seat in (A, B):
            assert stage.hands[seat] == STAGES[seat][stage.stage - 1]
    state = playout.table.state
    for seat in (A, B):
        assert Counter(state.hands[seat]) == Counter(c for s in STAGES[seat] for c in s)


def test_example_auction_ends_with_a_small_slam_bid_beyond_the_cap() -> None:
    """RULES 4.9: B, at 14 after round 2, may go to 19 in round 3, or bid a slam: 24."""
    playout = example_table()
    for seat, amount in [(A, 6), (B, 8), (A, 9), (B, 14)]:
        events = playout.act(seat, Bid(amount=amount))
        assert events[0] == BidMade(seat=seat, amount=amount)
    playout.act(A, Pass())
    offered = tables.legal_actions(playout.table, B)
    assert offered == [Stand(), *(Bid(amount=a) for a in (15, 16, 17, 18, 19, 24, 30, 32, 40, 50))]
    assert refused(playout, B, Bid(amount=20)) is RuleCode.BID_NOT_ALLOWED
    events = playout.act(B, Bid(amount=24))
    assert events == [
        SlamBidMade(seat=B, amount=24, cap=19),
        AuctionWon(seat=B, amount=24),
    ]


def test_example_contra_and_the_refused_change_to_hearts() -> None:
    """RULES 4.4 and 4.9: 24 is a small slam in ♦ but only three odd tricks in ♥."""
    playout = example_table()
    through_the_auction(playout)
    assert tables.legal_actions(playout.table, B) == [
        Declare(denomination="C"),
        Declare(denomination="D"),
    ]
    assert refused(playout, B, Declare(denomination="H")) is RuleCode.DENOMINATION_NOT_ALLOWED
    assert playout.act(B, Declare(denomination="D")) == [
        DenominationNamed(seat=B, denomination="D")
    ]
    assert playout.act(A, Contra()) == [ContraCalled(seat=A)]
    assert refused(playout, B, Declare(denomination="H")) is RuleCode.DENOMINATION_NOT_ALLOWED
    assert Declare(denomination="C") in tables.legal_actions(playout.table, B)
    events = playout.act(B, Accept())
    assert events[0] == ContractSettled(
        seat=B, amount=24, denomination="D", doubling="contra", odd_tricks=4
    )
    # RULES 4.9: B's TD 9D 8D 7D, a run of four trumps, is 15 to B; A holds none.
    assert [e for e in events if isinstance(e, HonoursAnnounced)] == [
        HonoursAnnounced(seat=B, kind="run", count=4, points=15)
    ]


def test_example_plays_ten_tricks_to_twenty_four_below_and_one_forty_above() -> None:
    """RULES 4.9: B takes 9 tricks; 24 below (first partie), 15 + 100 + 25 above."""
    playout = example_table()
    to_the_reserves(playout, contra=True)
    assert tables.to_act(playout.table) == [B, A]  # both lay their reserves
    for seat in (B, A):
        playout.act(seat, Reserve(cards=RESERVES[seat]))
    assert tables.to_act(playout.table) == [A]  # the non-dealer leads (RULES 4.5)
    events = []
    for trick in TRICKS:
        for seat, card in trick:
            assert tables.to_act(playout.table) == [seat]
            events = playout.act(seat, Play(card=card))
    won = [e for e in playout.events if isinstance(e, TrickWon)]
    assert [t.seat for t in won] == WINNERS
    assert [len(t.cards) for t in won] == [4] * 6 + [2] * 4
    scored = next(e for e in events if isinstance(e, HandScored))
    assert scored.items == [
        ScoreItem(unit=B, label="below:contract", points=24),
        ScoreItem(unit=B, label="above:honours", points=15),
        ScoreItem(unit=B, label="above:slam", points=100),
        ScoreItem(unit=B, label="above:contra", points=25),
    ]
    assert scored.contract is not None and scored.contract.made
    assert scored.scores == [24 + 140, 0]
    assert PartieWon(seat=B, parties=[1, 0]) in events
    view = tables.view(playout.table, "spectator")
    assert view.sheet.below == [[24, 0], [0, 0]]  # type: ignore[attr-defined]
    assert view.sheet.above == [140, 0]  # type: ignore[attr-defined]
    assert view.sheet.vulnerable == [True, False]  # type: ignore[attr-defined]
    assert playout.table.status == "playing"  # one partie is not a rubber
    assert playout.table.state.dealer == A  # the deal alternates


def test_example_reserve_cards_follow_suit_from_the_reserve() -> None:
    """RULES 4.5 in trick 8: spades led, A must answer with the AS of his reserve."""
    playout = example_table()
    to_the_reserves(playout)
    for seat in (A, B):
        playout.act(seat, Reserve(cards=RESERVES[seat]))
    for trick in TRICKS[:7]:
        for seat, card in trick:
            playout.act(seat, Play(card=card))
    playout.act(B, Play(card="QS"))
    assert tables.legal_actions(playout.table, A) == [Play(card="AS")]
    assert refused(playout, A, Play(card="KD")) is RuleCode.MUST_FOLLOW_SUIT


@pytest.mark.parametrize(
    ("doubling", "vulnerable", "expected"),
    [
        ("none", False, 12),
        ("contra", False, 40),
        ("recontra", False, 80),
        ("none", True, 20),
        ("contra", True, 60),
        ("recontra", True, 120),
    ],
)
def test_penalty_check_twenty_in_hearts_with_seven_tricks(
    doubling: str, vulnerable: bool, expected: int
) -> None:
    """RULES 4.9: bid 20 in ♥, 7 tricks → 16, short 4 → 12/40/80 before, 20/60/120 after."""
    result = achieved("H", 7)
    assert result == 16
    assert penalty(20 - result, doubling, vulnerable) == expected  # type: ignore[arg-type]
