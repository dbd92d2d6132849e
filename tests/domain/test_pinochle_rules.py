"""Auction Pinochle with a widow (RULES 3A): the worked examples of 3A.9 and the rules of
the deal, the auction, the widow, melds and burial, concessions and play."""

from __future__ import annotations

import pytest

from domain import RULES_ENGINE_VERSION
from domain import table as tables
from domain.commands import (
    Bid,
    Bury,
    BuryChoice,
    Concede,
    Meld,
    MeldOffer,
    NameTrump,
    Pass,
    Play,
    TakeWidow,
)
from domain.common.tricks import trick_winner
from domain.errors import RuleCode, RuleError
from domain.events import AuctionWon, CardsDealt, DealThrownIn, Passed, TrumpNamed
from domain.pinochle import PINOCHLE
from domain.pinochle.cards import PACK, legal_plays, power_in_trick
from domain.pinochle.events import (
    CardsBuried,
    ChipsSettled,
    DealConceded,
    MeldsClaimed,
    WidowTurnedUp,
)
from domain.pinochle.melds import claim_points, make
from domain.pinochle.state import Phase
from tests.support.decks import cards
from tests.support.given import given
from tests.support.pinochle_tables import (
    deal_table,
    play_out_deal,
    settlement,
    state_of,
    win_auction,
)
from tests.support.playout import Playout

HAND_130 = cards("TS KS KS QS JS 9S AH AH QH JH AC KC QC AD QD")
WIDOW = ["KH", "JH", "TC"]


def example_table(**options: object) -> Playout:
    """RULES 3A.9: seat 0 holds the 130 hand; the widow is KH JH TC. Seat 2 deals."""
    return deal_table({0: HAND_130}, WIDOW, options=dict(options))


def offered_claim(playout: Playout, seat: int) -> list[str]:
    offer = next(a for a in tables.legal_actions(playout.table, seat) if isinstance(a, MeldOffer))
    assert isinstance(offer.melds, list)  # the first offer is ready to send
    return [m.kind for m in offer.melds]


def prepared(playout: Playout, trump: str = "S", bury: list[str] | None = None) -> None:
    """The soloist (seat 0) names ``trump``, claims the best melds and buries."""
    playout.act(0, NameTrump(suit=trump))
    offer = tables.legal_actions(playout.table, 0)
    best = next(a for a in offer if isinstance(a, MeldOffer))
    assert isinstance(best.melds, list)
    playout.act(0, Meld(melds=best.melds))
    playout.act(0, Bury(cards=bury or ["TS", "TC", "JS"]))


# --- RULES 3A.9 -----------------------------------------------------------------------------


def test_widow_added_spades_trump_offers_the_150_claim_first() -> None:
    """RULES 3A.9: with KH JH TC from the widow, spades: 40+10+20+20+60 = 150."""
    playout = example_table()
    win_auction(playout, 0)
    playout.act(0, NameTrump(suit="S"))
    assert sorted(offered_claim(playout, 0)) == sorted(
        ["royal_marriage", "dix", "marriage", "marriage", "queens_around"]
    )
    offer = next(a for a in tables.legal_actions(playout.table, 0) if isinstance(a, MeldOffer))
    assert isinstance(offer.melds, list)
    events = playout.act(0, Meld(melds=offer.melds))
    assert events == [MeldsClaimed(seat=0, melds=offer.melds, points=150)]


def test_widow_added_hearts_trump_is_worth_140() -> None:
    """RULES 3A.9: hearts trump: 40 (♥) + 20 (♠) + 20 (♣) + 60 = 140, no dix."""
    playout = example_table()
    win_auction(playout, 0)
    playout.act(0, NameTrump(suit="H"))
    offer = next(a for a in tables.legal_actions(playout.table, 0) if isinstance(a, MeldOffer))
    assert isinstance(offer.melds, list)
    assert claim_points(offer.melds) == 140
    assert "dix" not in offered_claim(playout, 0)


def test_burying_ts_tc_js_is_legal_and_credits_22() -> None:
    """RULES 3A.9: TS TC JS are in no claimed meld; their 22 points count for the soloist."""
    playout = example_table()
    win_auction(playout, 0)
    prepared(playout, "S", ["TS", "TC", "JS"])
    assert sorted(state_of(playout).buried) == ["JS", "TC", "TS"]
    settled = settlement(play_out_deal(playout))
    assert isinstance(settled, ChipsSettled)
    assert {i.label: i.points for i in settled.count}["buried"] == 22
    assert {i.label: i.points for i in settled.count}["melds"] == 150


# --- the widow, trump, melds and burial (RULES 3A.4) -----------------------------------------


def test_the_widow_is_hidden_until_the_soloist_turns_it_up() -> None:
    """RULES 3A.4 and 0.6: face down at the deal, then face up for everyone."""
    playout = example_table()
    dealt = next(e for e in playout.events if isinstance(e, CardsDealt))
    for audience in (0, 1, 2, "spectator"):
        assert tables.redact(playout.table.rules, dealt, audience).rest is None  # type: ignore[attr-defined]
        assert tables.view(playout.table, audience).widow is None  # type: ignore[attr-defined]
    assert tables.view(playout.table, "operator").widow == WIDOW  # type: ignore[attr-defined]
    events = win_auction(playout, 0)
    assert events[-2:] == [AuctionWon(seat=0, amount=300), WidowTurnedUp(seat=0, cards=WIDOW)]
    for audience in (1, 2, "spectator"):
        assert tables.view(playout.table, audience).widow == WIDOW  # type: ignore[attr-defined]
    assert len(state_of(playout).hands[0]) == 18


def test_buried_trumps_are_announced_but_never_shown() -> None:
    """RULES 3A.4: if he buries trumps the fact is public, not which cards."""
    playout = example_table()
    win_auction(playout, 0)
    prepared(playout, "S", ["TS", "TC", "JS"])
    buried = next(e for e in reversed(playout.events) if isinstance(e, CardsBuried))
    assert buried.trumps
    for audience in (1, 2, "spectator"):
        seen = tables.redact(playout.table.rules, buried, audience)
        assert seen == CardsBuried(seat=0, count=3, trumps=True, cards=None)
        view = tables.view(playout.table, audience)
        assert view.buried is None and view.trumps_buried and view.buried_count == 3  # type: ignore[attr-defined]
    assert tables.view(playout.table, 0).buried == ["JS", "TC", "TS"]  # type: ignore[attr-defined]


def test_a_card_in_a_claimed_meld_cannot_be_buried() -> None:
    """RULES 3A.4: the burial choice leaves claimed cards out; naming one is refused."""
    playout = example_table()
    win_auction(playout, 0)
    playout.act(0, NameTrump(suit="S"))
    playout.act(0, Meld(melds=[make("royal_marriage", "S"), make("dix", "S")]))
    choice = next(a for a in tables.legal_actions(playout.table, 0) if isinstance(a, BuryChoice))
    assert "9S" not in choice.cards.from_
    assert choice.cards.from_.count("KS") == 1  # he holds two KS and claimed one
    assert choice.cards.from_.count("QS") == 0
    given(playout.events).when(Bury(cards=["9S", "TC", "JS"]), by=0).then_refused(
        RuleCode.INVALID_DISCARD
    )
    playout.act(0, Bury(cards=["KS", "TC", "JS"]))  # the other king is still free


def test_a_claim_that_leaves_no_three_cards_to_bury_must_shrink_first() -> None:
    """RULES 3A.4: with every card of the 18 claimed nothing can be buried."""
    hand = cards("AS AS TS TS KS KS QS QS JS JS AH AH AC AC AD")
    playout = deal_table({0: hand}, ["AD", "9S", "9S"])
    win_auction(playout, 0)
    playout.act(0, NameTrump(suit="S"))
    offer = next(a for a in tables.legal_actions(playout.table, 0) if isinstance(a, MeldOffer))
    assert isinstance(offer.melds, list) and claim_points(offer.melds) == 300 + 200 + 20
    playout.act(0, Meld(melds=offer.melds))
    assert not any(isinstance(a, BuryChoice) for a in tables.legal_actions(playout.table, 0))
    with pytest.raises(RuleError):
        playout.act(0, Bury(cards=["9S", "9S", "AD"]))
    playout.act(0, Meld(melds=[make("flush", "S"), make("flush", "S"), make("aces_around", "S")]))
    choice = next(a for a in tables.legal_actions(playout.table, 0) if isinstance(a, BuryChoice))
    assert sorted(choice.cards.from_) == ["9S", "9S", "AC", "AD", "AH"]


def test_a_buried_card_cannot_be_claimed() -> None:
    playout = example_table()
    win_auction(playout, 0)
    playout.act(0, NameTrump(suit="S"))
    playout.act(0, Bury(cards=["9S", "TC", "JS"]))
    given(playout.events).when(Meld(melds=[make("dix", "S")]), by=0).then_refused(
        RuleCode.INVALID_MELD
    )


def test_changing_trump_drops_the_claim_and_announces_the_burial_afresh() -> None:
    """RULES 3A.4: trump, melds and burial may change until the first lead."""
    playout = example_table()
    win_auction(playout, 0)
    prepared(playout, "S", ["TS", "TC", "JS"])
    events = playout.act(0, NameTrump(suit="H"))
    assert events[0] == TrumpNamed(seat=0, suit="H")
    assert events[1] == CardsBuried(seat=0, count=3, trumps=False, cards=["JS", "TC", "TS"])
    assert state_of(playout).melds[0] is None
    with pytest.raises(RuleError) as refused:
        playout.act(0, Play(card="AH"))
    assert refused.value.code is RuleCode.NOT_ALLOWED_NOW
    assert refused.value.context["missing"] == ["melds"]


def test_the_soloist_revises_until_his_first_lead_and_not_after() -> None:
    playout = example_table()
    win_auction(playout, 0)
    prepared(playout, "S", ["TS", "TC", "JS"])
    playout.act(0, Bury(cards=["AD", "TC", "JS"]))  # a new burial returns the old one
    assert "TS" in state_of(playout).hands[0] and "AD" not in state_of(playout).hands[0]
    playout.act(0, Meld(melds=[]))  # he may claim nothing at all
    playout.act(0, Play(card="AH"))
    assert state_of(playout).phase is Phase.PLAY
    for command in (NameTrump(suit="H"), Bury(cards=["AH", "TC", "JS"]), Meld(melds=[])):
        with pytest.raises(RuleError):
            playout.act(0, command)


def test_the_first_lead_waits_for_trump_claim_and_burial() -> None:
    playout = example_table()
    win_auction(playout, 0)
    assert not any(isinstance(a, Play) for a in tables.legal_actions(playout.table, 0))
    with pytest.raises(RuleError) as refused:
        playout.act(0, Play(card="AH"))
    assert refused.value.context["missing"] == ["trump", "melds", "burial"]


# --- concessions (RULES 3A.5) -------------------------------------------------------------


def test_the_soloist_may_concede_a_single_bete() -> None:
    """RULES 3A.5, 3A.7: conceding pays the unit to each other seat (300 → 3 chips)."""
    playout = example_table()
    win_auction(playout, 0)
    playout.act(0, NameTrump(suit="C"))
    events = playout.act(0, Concede())
    assert events[0] == DealConceded(seat=0)
    assert isinstance(events[1], ChipsSettled)
    assert events[1].reason == "conceded" and events[1].changes == [-6, 3, 3]


def test_the_opponents_concede_only_together() -> None:
    """RULES 3A.5: each opponent must agree; then the soloist wins as if made."""
    playout = example_table()
    win_auction(playout, 0)
    with pytest.raises(RuleError):
        playout.act(1, Concede())  # not before trump is named
    playout.act(0, NameTrump(suit="S"))
    assert tables.legal_actions(playout.table, 1) == [Concede()]
    assert playout.act(1, Concede()) == [DealConceded(seat=1)]
    assert tables.legal_actions(playout.table, 1) == []
    events = playout.act(2, Concede())
    settled = events[1]
    assert isinstance(settled, ChipsSettled)
    assert settled.reason == "opponents_conceded"
    assert settled.changes == [12, -6, -6]  # 300 is 3 chips, doubled with spades


@pytest.mark.parametrize(("engine", "withdrawn"), [(RULES_ENGINE_VERSION, True), ("1.2.0", False)])
def test_naming_another_trump_withdraws_the_concessions_from_engine_1_3_0(
    engine: str, withdrawn: bool
) -> None:
    """RULES 3A.5: the opponents concede to a known contract, each of them agreeing. Seat
    1 concedes to clubs (300: 3 chips); the soloist then names spades, which doubles the
    unit. From engine 1.3.0 that concession is withdrawn: seat 2's alone settles nothing,
    and seat 1 is asked again. A table of an older engine carried the concession over to
    spades, and re-runs so."""
    playout = deal_table({0: HAND_130}, WIDOW, engine=engine)
    win_auction(playout, 0)
    playout.act(0, NameTrump(suit="C"))
    assert playout.act(1, Concede()) == [DealConceded(seat=1)]
    playout.act(0, NameTrump(suit="S"))
    if not withdrawn:
        settled = playout.act(2, Concede())[1]
        assert isinstance(settled, ChipsSettled) and settled.changes == [12, -6, -6]
        return
    assert state_of(playout).conceded == ()
    assert tables.legal_actions(playout.table, 1) == [Concede()]
    assert playout.act(2, Concede()) == [DealConceded(seat=2)]
    settled = playout.act(1, Concede())[1]
    assert isinstance(settled, ChipsSettled) and settled.changes == [12, -6, -6]


def test_no_concession_after_the_first_lead() -> None:
    playout = example_table()
    win_auction(playout, 0)
    prepared(playout)
    playout.act(0, Play(card="AH"))
    for seat in (0, 1, 2):
        with pytest.raises(RuleError):
            playout.act(seat, Concede())


# --- the deal and who plays (RULES 3A.1, 3A.2) ---------------------------------------------------


@pytest.mark.parametrize(
    ("packets", "slices"),
    [
        pytest.param("3", [(0, 3), (12, 15), (21, 24), (30, 33), (39, 42)], id="3,widow,3,3,3,3"),
        pytest.param("4", [(0, 4), (15, 19), (27, 31), (39, 42)], id="4,widow,4,4,3"),
    ],
)
def test_deal_packets(packets: str, slices: list[tuple[int, int]]) -> None:
    """RULES 3A.2: from the dealer's left, the widow after the first round."""
    playout = deal_table({}, options={"deal_packets": packets})
    deck = list(PACK)  # nothing stacked: the supplied deck is the pack order
    hand = [c for start, end in slices for c in deck[start:end]]
    widow_at = 9 if packets == "3" else 12
    assert sorted(state_of(playout).hands[0]) == sorted(hand)
    assert state_of(playout).widow == tuple(deck[widow_at : widow_at + 3])


@pytest.mark.parametrize(
    ("seats", "dealer", "active"),
    [
        pytest.param(3, 2, (0, 1, 2), id="three seats: all play"),
        pytest.param(4, 3, (0, 1, 2), id="four seats: the dealer sits out"),
        pytest.param(5, 4, (0, 2, 3), id="five seats: the dealer and second to his left"),
    ],
)
def test_three_seats_are_active(seats: int, dealer: int, active: tuple[int, ...]) -> None:
    """RULES 3A.1: inactive seats hold no hand and may do nothing."""
    playout = deal_table({}, seats=seats, dealer=dealer)
    assert state_of(playout).active == active
    assert PINOCHLE.dealt_in(seats) == len(active)
    assert tables.to_act(playout.table) == [active[0]]
    for seat in set(range(seats)) - set(active):
        assert tables.view(playout.table, seat).hand == []
        assert tables.legal_actions(playout.table, seat) == []
        with pytest.raises(RuleError) as refused:
            playout.act(seat, Pass())
        assert refused.value.code is RuleCode.NOT_A_PLAYER


def test_inactive_seats_settle_too() -> None:
    """RULES 3A.7: a made bid is received from every other seat, active or not."""
    playout = deal_table({0: HAND_130}, WIDOW, seats=4, dealer=3)
    win_auction(playout, 0)
    playout.act(0, NameTrump(suit="C"))
    playout.act(1, Concede())
    events = playout.act(2, Concede())
    settled = events[1]
    assert isinstance(settled, ChipsSettled) and settled.changes == [9, -3, -3, -3]


# --- the auction (RULES 3A.3) --------------------------------------------------------------


def test_bids_are_tens_from_the_minimum_to_650() -> None:
    playout = deal_table({})
    bids = [a.amount for a in tables.legal_actions(playout.table, 0) if isinstance(a, Bid)]
    assert bids == list(range(300, 651, 10))
    opening = given(playout.events)
    opening.when(Bid(amount=290), by=0).then_refused(RuleCode.BID_TOO_LOW)
    opening.when(Bid(amount=305), by=0).then_refused(RuleCode.BID_NOT_ALLOWED)
    opening.when(Bid(amount=660), by=0).then_refused(RuleCode.BID_NOT_ALLOWED)


def test_min_bid_and_roundhouse_options() -> None:
    playout = deal_table({}, options={"min_bid": 200, "roundhouse": True})
    bids = [a.amount for a in tables.legal_actions(playout.table, 0) if isinstance(a, Bid)]
    assert bids[0] == 200 and bids[-1] == 790


def test_a_pass_is_final_and_two_passes_end_the_auction() -> None:
    playout = deal_table({})
    playout.act(0, Bid(amount=300))
    playout.act(1, Pass())
    playout.act(2, Bid(amount=310))
    assert tables.to_act(playout.table) == [0]  # seat 1 has passed for good
    widow = list(state_of(playout).widow)
    given(playout.events).when(Pass(), by=0).then(
        [Passed(seat=0), AuctionWon(seat=2, amount=310), WidowTurnedUp(seat=2, cards=widow)]
    )


@pytest.mark.parametrize(
    ("options", "ante"),
    [
        pytest.param({}, [-3, -3, -3, -3], id="every seat antes 3, inactive too"),
        pytest.param({"kitty": False}, None, id="no kitty, no ante"),
        pytest.param({"scoring": "points"}, None, id="points tables have no kitty"),
    ],
)
def test_the_kitty_ante_at_the_start(options: dict[str, object], ante: list[int] | None) -> None:
    """RULES 3A.8: every seat antes 3 chips at the start."""
    playout = deal_table({}, seats=4, dealer=3, options=options)
    settled = [e for e in playout.events if isinstance(e, ChipsSettled)]
    if ante is None:
        assert settled == []
        return
    assert [(e.reason, e.changes, e.kitty_total) for e in settled] == [("ante", ante, 12)]
    assert tables.view(playout.table, 3).kitty == 12  # type: ignore[attr-defined]


def test_three_passes_throw_the_deal_in_and_everyone_feeds_the_kitty() -> None:
    """RULES 3A.3 and 3A.8: the next dealer deals; each seat adds 3 chips."""
    playout = deal_table({})
    playout.act(0, Pass())
    playout.act(1, Pass())
    events = playout.act(2, Pass())
    assert events[1] == DealThrownIn(deal=1)
    topped = events[2]
    assert isinstance(topped, ChipsSettled) and topped.reason == "thrown_in"
    assert topped.changes == [-3, -3, -3] and topped.kitty_total == 18
    assert state_of(playout).dealer == 0 and state_of(playout).deal == 2


def test_compulsory_opening_forces_the_minimum_opening_bid() -> None:
    playout = deal_table({}, options={"compulsory_opening": True})
    assert tables.legal_actions(playout.table, 0) == [Bid(amount=300)]
    with pytest.raises(RuleError):
        playout.act(0, Pass())
    with pytest.raises(RuleError):
        playout.act(0, Bid(amount=310))


def test_compulsory_opener_may_concede_unseen_for_one_chip_to_the_kitty() -> None:
    """RULES 3A.3: both others pass: he may concede without seeing the widow."""
    playout = deal_table({}, options={"compulsory_opening": True})
    playout.act(0, Bid(amount=300))
    playout.act(1, Pass())
    events = playout.act(2, Pass())
    assert events[-1] == AuctionWon(seat=0, amount=300)  # the widow stays down
    assert tables.legal_actions(playout.table, 0) == [TakeWidow(), Concede()]
    events = playout.act(0, Concede())
    settled = events[1]
    assert isinstance(settled, ChipsSettled) and settled.reason == "widowless_concession"
    assert settled.changes == [-1, 0, 0] and settled.kitty == 1


def test_compulsory_opener_may_take_the_widow_and_play_on() -> None:
    playout = deal_table({}, options={"compulsory_opening": True})
    playout.act(0, Bid(amount=300))
    playout.act(1, Pass())
    playout.act(2, Pass())
    events = playout.act(0, TakeWidow())
    assert isinstance(events[0], WidowTurnedUp)
    assert state_of(playout).phase is Phase.PREPARE


# --- play (RULES 3.1, 3A.6) --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "trick", "head_plain", "legal"),
    [
        pytest.param("AH 9H KS", ["TH"], False, "AH 9H", id="follow suit"),
        pytest.param("AS 9S KC", ["TH"], False, "AS 9S", id="void: trump"),
        pytest.param("KC QD", ["TH"], False, "KC QD", id="void in suit and trump: anything"),
        pytest.param("AS 9S KH", ["TS"], False, "AS", id="trump lead: head the trick"),
        pytest.param("KS 9S KH", ["AS"], False, "KS 9S", id="trump lead: cannot head, any trump"),
        pytest.param("AS 9S", ["TH", "KS"], False, "AS 9S", id="trumping needs no overtrump"),
        pytest.param("AH 9H", ["TH"], False, "AH 9H", id="plain lead: heading not required"),
        pytest.param("AH 9H", ["TH"], True, "AH", id="must_head_plain: beat the best card"),
        pytest.param("AH 9H", ["TH", "9S"], True, "AH 9H", id="must_head_plain: trumped trick"),
        pytest.param("QH 9H", ["TH"], True, "QH 9H", id="must_head_plain: cannot beat"),
    ],
)
def test_follow_trump_and_head(hand: str, trick: list[str], head_plain: bool, legal: str) -> None:
    """RULES 3A.6, spades trump."""
    assert legal_plays(hand.split(), trick, "S", head_plain) == legal.split()


def test_of_two_identical_cards_the_first_played_wins() -> None:
    """RULES 3.1."""
    plays = [(0, "AH"), (1, "AH"), (2, "TH")]
    assert trick_winner(plays, lambda c: power_in_trick(c, "S", "H")) == 0


def test_card_order_ace_ten_king_queen_jack_nine() -> None:
    """RULES 3.1: A > T > K > Q > J > 9; any trump beats the suit led."""
    order = [power_in_trick(r + "H", "S", "H") for r in "ATKQJ9"]
    assert order == sorted(order, reverse=True)
    assert power_in_trick("9S", "S", "H") > power_in_trick("AH", "S", "H")
    assert power_in_trick("AC", "S", "H") < power_in_trick("9H", "S", "H")
