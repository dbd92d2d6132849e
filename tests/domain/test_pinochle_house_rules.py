"""The house rules every Pinochle game id takes: doubled melds (RULES 3.4) and overtrumping
(RULES 3.5), golden tests of their worked examples; with the options left out, the table
records the options it always did."""

from __future__ import annotations

import pytest

from domain import table as tables
from domain.commands import Bury, Meld, MeldOffer, NameTrump, Play
from domain.errors import RuleCode, RuleError
from domain.pinochle.cards import legal_plays
from domain.pinochle.events import MeldsClaimed
from domain.pinochle.melds import best_claim, check_claim, claim_points, make
from tests.support.decks import cards
from tests.support.given import given
from tests.support.pinochle_tables import deal_table, state_of, win_auction
from tests.support.playout import Playout

PINOCHLE_GAMES = ["pinochle", "pinochle-three", "pinochle-widow", "pinochle-four"]
SEATS = {"pinochle-four": 4}


def doubled(hand: str) -> int:
    """The best claim of ``hand`` with spades trump, scored with ``double_melds``."""
    claim = best_claim(cards(hand), "S")
    assert check_claim(claim, cards(hand), "S") == claim
    return claim_points(claim, double_melds=True)


# --- RULES 3.4: doubled melds ------------------------------------------------------------------


def test_double_around_of_aces_scores_1000() -> None:
    """RULES 3.4: all eight aces, 1000 (200 without the option)."""
    hand = "AS AS AH AH AC AC AD AD"
    assert doubled(hand) == 1000
    assert claim_points(best_claim(cards(hand), "S")) == 200


@pytest.mark.parametrize(
    ("rank", "points"),
    [
        pytest.param("K", 800, id="eight kings 800"),
        pytest.param("Q", 600, id="eight queens 600"),
        pytest.param("J", 400, id="eight jacks 400"),
    ],
)
def test_double_arounds_of_kings_queens_and_jacks_score_800_600_400(rank: str, points: int) -> None:
    """RULES 3.4: all eight of the rank (two-tenths of that without the option)."""
    hand = " ".join(rank + s for s in "SHCD" for _ in range(2))
    assert doubled(hand) == points
    assert claim_points(best_claim(cards(hand), "S")) == 2 * points // 10


def test_double_pinochle_scores_300() -> None:
    """RULES 3.4: QS QS JD JD, 300 (80 without the option)."""
    assert doubled("QS QS JD JD") == 300
    assert claim_points([make("pinochle", "S")] * 2) == 80


def test_double_run_scores_1500() -> None:
    """RULES 3.4: both copies of A T K Q J of trumps, 1500 (300 without the option)."""
    assert doubled("AS AS TS TS KS KS QS QS JS JS") == 1500
    assert claim_points([make("flush", "S")] * 2) == 300


def test_seven_aces_make_one_around_of_100() -> None:
    """RULES 3.4: a double needs both copies of every suit's card."""
    assert doubled("AS AS AH AH AC AC AD") == 100


def test_one_meld_of_a_double_claimed_alone_scores_the_single_value() -> None:
    """RULES 3.4: the player may claim one of the pair; it scores as a single meld."""
    hand = cards("AS AS AH AH AC AC AD AD")
    claim = check_claim([make("aces_around", "S")], hand, "S")
    assert claim_points(claim, double_melds=True) == 100


def test_marriages_and_the_dix_have_no_double() -> None:
    """RULES 3.4: two of them score twice the single value."""
    claim = [make("marriage", "S", "H")] * 2 + [make("royal_marriage", "S")] * 2
    assert claim_points(claim + [make("dix", "S")] * 2, double_melds=True) == 40 + 80 + 20


SOLOIST_1930 = cards("AS AS TS TS KS KS QS QS JS JS JD JD 9S AH KH")
WIDOW_1930 = ["AC", "AD", "QH"]


@pytest.mark.parametrize(
    ("options", "points"),
    [
        pytest.param({"double_melds": True}, 1930, id="double_melds: 1930"),
        pytest.param({}, 510, id="default: 510"),
    ],
)
def test_the_soloists_double_run_double_pinochle_hand_claims_1930(
    options: dict[str, bool], points: int
) -> None:
    """RULES 3.4 worked example: double run 1500, heart marriage 20, aces around 100,
    double pinochle 300, dix 10 = 1930 (510 without the option)."""
    playout = deal_table({0: SOLOIST_1930}, WIDOW_1930, options=options)
    win_auction(playout, 0)
    playout.act(0, NameTrump(suit="S"))
    offer = next(a for a in tables.legal_actions(playout.table, 0) if isinstance(a, MeldOffer))
    assert isinstance(offer.melds, list)
    assert [m.kind for m in offer.melds] == [
        "flush",
        "flush",
        "marriage",
        "aces_around",
        "pinochle",
        "pinochle",
        "dix",
    ]
    events = playout.act(0, Meld(melds=offer.melds))
    assert events == [MeldsClaimed(seat=0, melds=offer.melds, points=points)]
    assert tables.view(playout.table, "spectator").meld_points[0] == points  # type: ignore[attr-defined]


# --- RULES 3.5: overtrumping -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "trick", "overtrump", "legal"),
    [
        pytest.param("QS 9S KH", ["AC", "JS"], True, "QS", id="void: beat the trump played"),
        pytest.param("QS 9S KH", ["AC", "JS"], False, "QS 9S", id="default: any trump"),
        pytest.param("JS 9S KH", ["AC", "JS"], True, "JS 9S", id="an equal trump does not beat"),
        pytest.param("QS 9S KH", ["AC"], True, "QS 9S", id="the first to trump: any trump"),
        pytest.param("KC 9C QS", ["AC", "JS"], True, "KC 9C", id="following suit is unchanged"),
        pytest.param("KH QD", ["AC", "JS"], True, "KH QD", id="no trump: anything"),
        pytest.param("AS 9S", ["TS", "KS"], True, "AS", id="a trump lead is headed anyway"),
    ],
)
def test_a_void_player_who_trumps_must_beat_a_trump_in_the_trick(
    hand: str, trick: list[str], overtrump: bool, legal: str
) -> None:
    """RULES 3.5, spades trump."""
    assert legal_plays(hand.split(), trick, "S", must_overtrump=overtrump) == legal.split()


# Seat 2 deals; seats 1 and 2 hold no club. Seat 0, the soloist, gets the six spades and
# twelve clubs left (widow included); seat 1's trumps include JS, seat 2's are QS 9S.
NO_CLUBS = {
    1: cards("AS JS JS KS AH AH TH TH KH KH AD AD TD TD KD"),
    2: cards("QS 9S QH QH JH JH 9H 9H KD QD QD JD JD 9D 9D"),
}


def clubs_led_and_trumped(**options: bool) -> Playout:
    """RULES 3.5 worked example: the soloist leads AC, seat 1 trumps with JS."""
    playout = deal_table(NO_CLUBS, options=dict(options))
    win_auction(playout, 0)
    playout.act(0, NameTrump(suit="S"))
    offer = next(a for a in tables.legal_actions(playout.table, 0) if isinstance(a, MeldOffer))
    assert isinstance(offer.melds, list)
    playout.act(0, Meld(melds=offer.melds))
    playout.act(0, Bury(cards=["9C", "9C", "JC"]))
    playout.act(0, Play(card="AC"))
    playout.act(1, Play(card="JS"))
    assert [p.card for p in state_of(playout).trick] == ["AC", "JS"]
    return playout


def test_with_must_overtrump_a_trump_below_the_trick_is_refused() -> None:
    """RULES 3.5: void in clubs, seat 2 holds QS 9S over JS: only QS; 9S must-head-trick."""
    playout = clubs_led_and_trumped(must_overtrump=True)
    assert tables.legal_actions(playout.table, 2) == [Play(card="QS")]
    given(playout.events).when(Play(card="9S"), by=2).then_refused(RuleCode.MUST_HEAD_TRICK)
    given(playout.events).when(Play(card="QH"), by=2).then_refused(RuleCode.MUST_PLAY_TRUMP)


def test_without_must_overtrump_any_trump_may_follow_a_trump() -> None:
    """RULES 3A.6: by default seat 2 may play QS or 9S."""
    playout = clubs_led_and_trumped()
    assert tables.legal_actions(playout.table, 2) == [Play(card="QS"), Play(card="9S")]
    playout.act(2, Play(card="9S"))


# --- the options ---------------------------------------------------------------------------


@pytest.mark.parametrize("game", PINOCHLE_GAMES)
def test_every_pinochle_game_takes_both_house_rules(game: str) -> None:
    """RULES 3.4, 3.5: recorded in table_created when chosen, read by the rules."""
    house = {"double_melds": True, "must_overtrump": True}
    created = tables.create("t", game, SEATS.get(game, 3), house)
    assert created.options.items() >= house.items()
    config = state_of(Playout(created, seed=0)).config
    assert config.double_melds and config.must_overtrump


@pytest.mark.parametrize("game", PINOCHLE_GAMES)
def test_house_rules_left_out_record_the_options_as_before(game: str) -> None:
    """Off by default, and then not recorded at all: table_created is what it always was."""
    created = tables.create("t", game, SEATS.get(game, 3), {})
    assert not {"double_melds", "must_overtrump"} & created.options.keys()
    assert list(created.options)[-1] == "must_head_plain"
    config = state_of(Playout(created, seed=0)).config
    assert not config.double_melds and not config.must_overtrump


@pytest.mark.parametrize("value", ["yes", 1, None])
@pytest.mark.parametrize("option", ["double_melds", "must_overtrump"])
def test_a_house_rule_is_true_or_false_or_the_table_is_refused(option: str, value: object) -> None:
    for game in PINOCHLE_GAMES:
        with pytest.raises(RuleError) as error:
            tables.create("t", game, SEATS.get(game, 3), {option: value})
        assert error.value.code is RuleCode.INVALID_OPTIONS
