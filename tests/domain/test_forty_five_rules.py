"""Auction Forty-Five: the worked examples of RULES 1.9 and the rules they rest on."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from domain import table as tables
from domain.cards import standard_pack
from domain.commands import Bid, Exchange, Hold, NameTrump, Pass, Play
from domain.common.structs import CompletedTrick
from domain.errors import RuleCode, RuleError
from domain.events import (
    AuctionWon,
    CardPlayed,
    DealThrownIn,
    GameWon,
    HandScored,
    Held,
    Passed,
    TrickWon,
)
from domain.fortyfive import rules
from domain.fortyfive.scoring import score_deal
from domain.fortyfive.state import FortyFivePlayedCard, Phase, State
from tests.support.decks import forty_five_order, stack_deck
from tests.support.given import given
from tests.support.playout import Playout

N, E, S, W = 0, 1, 2, 3

# The example hands of RULES 1.9: spades trump, East leads 7S, South 5S, West AS, North AH.
EXAMPLE_HANDS = {
    N: ["AH", "2D", "3D", "4D", "6D"],
    E: ["7S", "KD", "QD", "2C", "3C"],
    S: ["5S", "KH", "QH", "9C", "TC"],
    W: ["AS", "2H", "3H", "7C", "8C"],
}


def deal_table(hands: dict[int, list[str]], dealer: int = W) -> Playout:
    """A seated table whose first deal gives ``hands``, the dealer fixed."""
    deck = stack_deck(hands, forty_five_order(dealer), standard_pack())
    created = tables.create("golden", "forty-five", 4, {}, first_dealer=dealer, decks=[deck])
    playout = Playout(created, seed=0)
    playout.seat_everyone()
    return playout


def with_scores(playout: Playout, scores: tuple[int, int]) -> None:
    playout.table = replace(playout.table, state=replace(playout.table.state, scores=scores))


def to_play(playout: Playout, bidder: int, bid: int, trump: str) -> None:
    """Bidder bids, everyone else passes, trump named, nobody exchanges."""
    order = [N, E, S, W]  # West deals, so North speaks first
    for seat in order:
        playout.act(seat, Bid(amount=bid) if seat == bidder else Pass())
    playout.act(bidder, NameTrump(suit=trump))
    for seat in order:
        playout.act(seat, Exchange(discard=[]))


# --- RULES 1.9 --------------------------------------------------------------------------


def test_five_of_trumps_beats_ace_of_hearts_beats_ace_of_trumps() -> None:
    """RULES 1.9: East 7S, South 5S, West AS, North AH — South wins."""
    playout = deal_table(EXAMPLE_HANDS)
    to_play(playout, N, 20, "S")
    assert tables.to_act(playout.table) == [E]  # left of the auction winner leads
    playout.act(E, Play(card="7S"))
    playout.act(S, Play(card="5S"))
    playout.act(W, Play(card="AS"))
    given(playout.events).when(Play(card="AH"), by=N).then(
        [CardPlayed(seat=N, card="AH"), TrickWon(seat=S, trick=1, cards=["7S", "5S", "AS", "AH"])]
    )


def test_made_bid_of_twenty_scores_what_the_side_took_and_highest_trump_bonus() -> None:
    """RULES 1.9: N–S bid 20, take three tricks with the 5S: 3×5+5 = 20; 70:85 → 90:95."""
    playout = deal_table(EXAMPLE_HANDS)
    with_scores(playout, (70, 85))
    to_play(playout, N, 20, "S")
    tricks = [  # each seat's card, in the order played
        {E: "7S", S: "5S", W: "AS", N: "AH"},
        {S: "KH", W: "2H", N: "2D", E: "2C"},
        {S: "QH", W: "3H", N: "3D", E: "3C"},
        {S: "9C", W: "7C", N: "4D", E: "KD"},
        {W: "8C", N: "6D", E: "QD", S: "TC"},
    ]
    events = []
    for trick in tricks:
        for seat, card in trick.items():
            events = playout.act(seat, Play(card=card))
    winners = [e.seat for e in playout.events if isinstance(e, TrickWon)]
    assert winners == [S, S, S, W, W]
    scored = next(e for e in events if isinstance(e, HandScored))
    assert scored.contract is not None and scored.contract.made
    assert scored.changes == [20, 10]
    assert scored.scores == [90, 95]


def test_protected_jack_must_be_played_on_a_five_lead_but_not_on_a_nine_lead() -> None:
    """RULES 1.9: trumps only JS plus 2D: 9S led → 2D allowed; 5S led → JS required."""
    assert rules.legal_plays(["JS", "2D"], "9S", "S") == ["JS", "2D"]
    assert rules.legal_plays(["JS", "2D"], "5S", "S") == ["JS"]


def test_renege_refused_when_the_lead_outranks_the_protected_trump() -> None:
    hands = {
        N: ["5S", "KH", "QH", "JH", "TH"],
        E: ["JS", "2D", "3D", "4D", "6D"],
        S: ["9S", "2C", "3C", "4C", "6C"],
        W: ["8S", "2H", "3H", "4H", "6H"],
    }
    playout = deal_table(hands)
    to_play(playout, W, 5, "S")  # North leads, left of West
    playout.act(N, Play(card="5S"))
    given(playout.events).when(Play(card="2D"), by=E).then_refused(RuleCode.MUST_PLAY_TRUMP)


def _state_with_tricks(bid: int, bidder: int, winners: list[int], trumps: list[str]) -> State:
    """A finished deal: ``winners`` per trick; ``trumps`` played in the first tricks."""
    tricks = []
    for i, winner in enumerate(winners):
        card = trumps[i] if i < len(trumps) else ["2D", "3D", "4D", "6D", "7D"][i]
        cards = (FortyFivePlayedCard(winner, card),)
        tricks.append(CompletedTrick(leader=winner, winner=winner, cards=cards))
    return State(
        phase=Phase.PLAY,
        trump="S",
        dealer=W,
        deal=1,
        high_bid=bid,
        high_bidder=bidder,
        tricks=tuple(tricks),
    )


@pytest.mark.parametrize(
    ("bid", "winners", "trumps", "expected"),
    [
        pytest.param(30, [N, S, N, S, N], ["5S"], [60, 0], id="bid 30 made scores +60"),
        pytest.param(30, [N, S, N, S, E], ["5S"], [-30, 5], id="bid 30 failed scores -30"),
        pytest.param(25, [N, S, N, S, N], ["5S"], [30, 0], id="bid 25 taking 30 scores +30"),
        pytest.param(20, [N, S, E, W, E], ["5S"], [-20, 15], id="bid 20 taking 15 loses 20"),
    ],
)
def test_derived_hand_scores(bid: int, winners: list[int], trumps: list[str], expected: list[int]):
    """RULES 1.9 derived: 30 for 60, a failed 30 is −30, all 30 on 25 is +30, short is −bid."""
    scored = score_deal(_state_with_tricks(bid, N, winners, trumps))[0]
    assert isinstance(scored, HandScored)
    assert scored.changes == expected


# --- the rules behind the examples ------------------------------------------------------


def test_ace_of_hearts_is_never_a_heart() -> None:
    """RULES 1.3 and 1.6: holding only AH among hearts is being void in hearts."""
    assert rules.legal_plays(["AH", "2C", "3C"], "KH", "S") == ["AH", "2C", "3C"]


def test_plain_lead_may_be_trumped_even_when_able_to_follow() -> None:
    """RULES 1.6: follow suit or play any trump."""
    assert rules.legal_plays(["2H", "3S", "4C"], "KH", "S") == ["2H", "3S"]


def test_ace_of_hearts_lead_is_a_trump_lead() -> None:
    """RULES 1.6: a lead of AH is a trump lead whatever the trump."""
    assert rules.legal_plays(["2C", "3S", "4H"], "AH", "S") == ["3S"]


def test_plain_card_orders() -> None:
    """RULES 1.3: diamonds' ace is lowest; in black suits 2 beats 10 but not the ace."""
    assert rules.power_in_trick("AD", "S", "D") < rules.power_in_trick("2D", "S", "D")
    assert rules.power_in_trick("2C", "S", "C") > rules.power_in_trick("TC", "S", "C")
    assert rules.power_in_trick("AC", "S", "C") > rules.power_in_trick("2C", "S", "C")


def test_highest_trump_bonus_absent_when_no_trump_is_played() -> None:
    """RULES 1.7: with no trump played the deal is worth 25."""
    state = _state_with_tricks(20, N, [N, S, N, E, W], [])
    scored = score_deal(state)[0]
    assert isinstance(scored, HandScored)
    assert sum(item.points for item in scored.items) == 25


def test_dealer_holds_the_high_bid_at_the_same_amount() -> None:
    """RULES 1.4: the dealer may hold any other seat's bid, partner's included."""
    playout = deal_table(EXAMPLE_HANDS, dealer=W)
    playout.act(N, Bid(amount=15))
    playout.act(E, Pass())
    playout.act(S, Pass())
    held = given(playout.events).when(Hold(), by=W).then([Held(seat=W, amount=15)])
    assert tables.to_act(held.table) == [N]
    held.when(Pass(), by=N).then([Passed(seat=N), AuctionWon(seat=W, amount=15)])


def test_dealer_cannot_hold_without_a_bid() -> None:
    playout = deal_table(EXAMPLE_HANDS, dealer=W)
    for seat in (N, E, S):
        playout.act(seat, Pass())
    given(playout.events).when(Hold(), by=W).then_refused(RuleCode.CANNOT_HOLD)


def test_all_four_passing_throws_the_deal_in_and_the_deal_passes_left() -> None:
    """RULES 1.4 and 0.4."""
    playout = deal_table(EXAMPLE_HANDS, dealer=W)
    for seat in (N, E, S):
        playout.act(seat, Pass())
    events = playout.act(W, Pass())
    assert events[-1] == DealThrownIn(deal=1)
    assert playout.table.state.dealer == N
    assert playout.table.state.deal == 2


def test_side_with_a_hundred_may_not_bid_or_hold_below_twenty() -> None:
    """RULES 1.4 [decision: holds count as bids]."""
    playout = deal_table(EXAMPLE_HANDS, dealer=W)
    with_scores(playout, (60, 100))
    playout.act(N, Bid(amount=5))
    with pytest.raises(RuleError) as refused:
        playout.act(E, Bid(amount=15))
    assert refused.value.code is RuleCode.BID_TOO_LOW
    playout.act(E, Pass())
    playout.act(S, Pass())
    with pytest.raises(RuleError) as refused:
        playout.act(W, Hold())
    assert refused.value.code is RuleCode.CANNOT_HOLD
    assert Bid(amount=20) in tables.legal_actions(playout.table, W)


def test_nobody_bids_above_thirty_but_the_dealer_may_hold_thirty() -> None:
    playout = deal_table(EXAMPLE_HANDS, dealer=W)
    playout.act(N, Bid(amount=30))
    assert not any(isinstance(a, Bid) for a in tables.legal_actions(playout.table, E))
    playout.act(E, Pass())
    playout.act(S, Pass())
    assert Hold() in tables.legal_actions(playout.table, W)
    playout.act(W, Hold())
    assert tables.legal_actions(playout.table, N) == [Pass()]


def test_game_ends_at_120_and_the_bidding_side_wins_a_tie() -> None:
    """RULES 1.8: both sides over 120 on one deal: the bidders win."""
    state = replace(_state_with_tricks(15, E, [E, W, N, E, W], ["5S"]), scores=(115, 100))
    events = score_deal(state)
    assert events[-1] == GameWon(winners=[1, 3], scores=[120, 125])
