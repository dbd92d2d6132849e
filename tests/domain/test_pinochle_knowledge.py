"""The count-aware leak checks catch what the set-based one cannot (tests.support.pinochle).

Seat 0 holds one copy each of AS, KH and 9D; the widow holds the other copies. A view or
event that showed the widow would show seat 0 only codes it knows — the set-based check
passes — yet it tells seat 0 where the second copies lie. The count-aware checks fail.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from msgspec.structs import replace

from domain import table as tables
from domain.events import CardsDealt
from domain.pinochle import view as views
from domain.pinochle.state import State
from domain.protocol import Audience, View, ViewHeader
from tests.support.invariants import assert_only_known, cards_in
from tests.support.pinochle import check_event_redaction, check_view_indistinguishable
from tests.support.pinochle_tables import deal_table

WIDOW = ["AS", "KH", "9D"]
HAND = ["AS", "KH", "9D", "TC", "TC", "JC", "JC", "QD", "QD", "KD", "KD", "AD", "AD", "9H", "9H"]


HONEST_VIEW = views.build


def leaky_view(game: Any, state: State, audience: Audience, header: ViewHeader) -> View:
    """The view, but with the widow face up before its time."""
    return replace(HONEST_VIEW(game, state, audience, header), widow=list(state.widow))


def test_a_view_showing_the_second_copies_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    playout = deal_table({0: HAND}, WIDOW)
    monkeypatch.setattr(views, "build", leaky_view)
    leaked = tables.view(playout.table, 0)
    assert_only_known(cards_in(leaked), Counter(HAND), "the leaky view")  # no alarm here
    with pytest.raises(AssertionError, match="depends on cards it may not see"):
        for seed in range(20):  # each try deals the hidden cards afresh
            check_view_indistinguishable(playout.table, 0, random.Random(seed))
    monkeypatch.setattr(views, "build", HONEST_VIEW)
    for seed in range(20):
        check_view_indistinguishable(playout.table, 0, random.Random(seed))


def test_an_event_showing_the_second_copies_is_caught() -> None:
    playout = deal_table({0: HAND}, WIDOW)
    dealt = next(e for e in playout.events if isinstance(e, CardsDealt))
    honest = tables.redact(playout.table.rules, dealt, 0)
    leaky = replace(honest, rest=dealt.rest)  # as if redaction forgot the widow
    assert_only_known(cards_in(leaky), Counter(HAND), "the leaky event")  # no alarm here
    with pytest.raises(AssertionError, match="hidden cards"):
        check_event_redaction(dealt, leaky, 0)
    check_event_redaction(dealt, honest, 0)
