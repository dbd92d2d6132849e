"""Meld counting (RULES 3.3, 3A.9): the class rule, duplicates, and the dix only when
claimed. Table-driven: each row is a hand, a trump and what its best claim is worth."""

from __future__ import annotations

import pytest

from domain.commands import MeldClaim
from domain.errors import RuleCode, RuleError
from domain.pinochle.melds import (
    best_claim,
    check_claim,
    claim_choices,
    claim_points,
    exposure,
    make,
)
from tests.support.decks import cards

HAND_130 = "TS KS KS QS JS 9S AH AH QH JH AC KC QC AD QD"


def kinds(claim: list[MeldClaim]) -> list[str]:
    return [m.kind for m in claim]


@pytest.mark.parametrize(
    ("hand", "trump", "points", "melds"),
    [
        pytest.param("AS TS KS QS JS 9S", "S", 160, "flush dix", id="3A.9 flush and dix: 160"),
        pytest.param(
            HAND_130,
            "S",
            130,
            "royal_marriage marriage queens_around dix",
            id="3A.9 royal marriage, dix, club marriage, queens around: 130",
        ),
        pytest.param(
            HAND_130 + " AS",
            "S",
            340,
            "flush marriage aces_around queens_around dix",
            id="3A.9 plus AS: the only QS is in the flush, no royal marriage: 340",
        ),
        pytest.param(
            HAND_130 + " KH JH TC",
            "S",
            150,
            "royal_marriage marriage marriage queens_around dix",
            id="3A.9 with the widow KH JH TC, spades: 150",
        ),
        pytest.param(
            HAND_130 + " KH JH TC",
            "H",
            140,
            "royal_marriage marriage marriage queens_around",
            id="3A.9 with the widow KH JH TC, hearts: 140",
        ),
        pytest.param(
            "AS TS KS KS QS QS JS",
            "S",
            190,
            "flush royal_marriage",
            id="a second trump K-Q beside a flush makes a royal marriage",
        ),
        pytest.param(
            "AS AS TS TS KS KS QS QS JS JS",
            "S",
            300,
            "flush flush",
            id="double flush scores twice, no special value",
        ),
        pytest.param(
            "AS AH AC AD AS AH AC AD",
            "C",
            200,
            "aces_around aces_around",
            id="double aces around is two aces around",
        ),
        pytest.param(
            "KS KH KC KD KS", "H", 80, "kings_around", id="kings around needs a K of each suit"
        ),
        pytest.param(
            "QS QS JD JD", "H", 80, "pinochle pinochle", id="double pinochle scores twice"
        ),
        pytest.param("KH KH QH QH", "C", 40, "marriage marriage", id="two marriages in one suit"),
        pytest.param(
            "KS QS KH KC KD QH QC QD JD",
            "C",
            # royal marriage KC QC 40, marriages S H D 60, kings 80, queens 60, pinochle 40
            280,
            "royal_marriage marriage marriage marriage kings_around queens_around pinochle",
            id="QS serves a marriage, queens around and pinochle (three classes)",
        ),
        pytest.param("9S 9S 9H", "S", 20, "dix dix", id="each nine of trumps is a dix of 10"),
        pytest.param("9S 9H AC TC", "D", 0, "", id="no meld: an empty claim"),
    ],
)
def test_best_claim(hand: str, trump: str, points: int, melds: str) -> None:
    """RULES 3.3: the best claim takes every meld as often as the cards allow."""
    claim = best_claim(cards(hand), trump)
    assert sorted(kinds(claim)) == sorted(melds.split())
    assert claim_points(claim) == points
    assert check_claim(claim, cards(hand), trump) == claim


@pytest.mark.parametrize(
    ("hand", "trump", "claim"),
    [
        pytest.param(
            "AS TS KS QS JS",
            "S",
            [make("flush", "S"), make("royal_marriage", "S")],
            id="a flush's K and Q cannot also be a royal marriage (class A)",
        ),
        pytest.param(
            "KS KH KC KD",
            "S",
            [make("kings_around", "S"), make("kings_around", "S")],
            id="one set of kings cannot be claimed twice (class B)",
        ),
        pytest.param(
            "QS JD", "S", [make("pinochle", "S")] * 2, id="one QS and one JD make one pinochle"
        ),
        pytest.param(
            "KH QH", "H", [MeldClaim(kind="marriage", cards=["KH", "QH"])], id="trump K-Q is royal"
        ),
        pytest.param(
            "KH QH",
            "S",
            [MeldClaim(kind="royal_marriage", cards=["KH", "QH"])],
            id="a plain K-Q is no royal marriage",
        ),
        pytest.param(
            "KH QD", "S", [MeldClaim(kind="marriage", cards=["KH", "QD"])], id="K-Q of one suit"
        ),
        pytest.param("9S", "H", [MeldClaim(kind="dix", cards=["9S"])], id="dix is the 9 of trumps"),
        pytest.param(
            "AS TS KS QS", "S", [make("flush", "S")], id="a claim needs every card of its melds"
        ),
    ],
)
def test_invalid_claims_are_refused(hand: str, trump: str, claim: list[MeldClaim]) -> None:
    """RULES 3.3: never twice in one class; each meld exactly its cards."""
    with pytest.raises(RuleError) as refused:
        check_claim(claim, cards(hand), trump)
    assert refused.value.code is RuleCode.INVALID_MELD


def test_a_card_may_serve_in_melds_of_different_classes() -> None:
    """RULES 3.3: a K in a marriage and in kings around; QS in marriage, queens, pinochle."""
    hand = cards("KS QS KH KC KD QH QC QD JD")
    claim = [
        make("marriage", "C", "S"),
        make("kings_around", "C"),
        make("queens_around", "C"),
        make("pinochle", "C"),
    ]
    assert claim_points(check_claim(claim, hand, "C")) == 20 + 80 + 60 + 40
    assert exposure(claim)["QS"] == 1  # one physical queen shown, used in three classes


def test_the_dix_counts_only_when_claimed() -> None:
    """RULES 3.3: a dix counts only if claimed; leaving melds out is allowed."""
    hand = cards("AS TS KS QS JS 9S")
    without_dix = [make("flush", "S")]
    assert claim_points(check_claim(without_dix, hand, "S")) == 150
    assert claim_points(check_claim([], hand, "S")) == 0


def test_cards_of_a_meld_may_be_named_in_any_order() -> None:
    claim = [MeldClaim(kind="royal_marriage", cards=["QS", "KS"])]
    assert check_claim(claim, ["KS", "QS"], "S") == [make("royal_marriage", "S")]


def test_a_scored_dix_cannot_be_melded_again() -> None:
    """RULES 3.B: an exchanged dix cannot be melded again (the dealer holds it)."""
    with pytest.raises(RuleError):
        check_claim([make("dix", "S")], ["9S"], "S", barred_dix=1)
    assert claim_points(check_claim([make("dix", "S")], ["9S", "9S"], "S", barred_dix=1)) == 10
    assert kinds(best_claim(["9S", "9S"], "S", barred_dix=1)) == ["dix"]


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        pytest.param("AS TS KS QS JS", [["flush"], ["royal_marriage"]], id="flush or K-Q"),
        pytest.param(
            "AS TS KS KS QS QS JS",
            [["flush", "royal_marriage"], ["royal_marriage", "royal_marriage"]],
            id="one flush and a royal marriage, or two royal marriages",
        ),
        pytest.param("KH QH", [["marriage"]], id="no flush: one maximal claim"),
        pytest.param("9H", [], id="no meld: no choice"),
    ],
)
def test_choices_are_the_maximal_claims(hand: str, expected: list[list[str]]) -> None:
    """Every valid claim is a pick from one of these (the legal-action choices)."""
    assert [kinds(c) for c in claim_choices(cards(hand), "S")] == expected
