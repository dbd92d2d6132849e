"""Settling an Auction Pinochle deal in chips or points (RULES 3A.6–3A.8).

Chips: the bid's unit value (the schedule, doubled with spades trump) moves between the
soloist and *every* other seat — once when made (or conceded to him), once the other way
when he concedes, twice when he plays and loses. From a bid of 350 the kitty pays or is
paid like one more seat; a kitty short of chips is made up by the two opponents, or the
soloist takes what is there. Every move is a ``chips_settled`` event whose changes and
kitty change sum to zero, so the seats' chips and the kitty always sum to zero too.
"""

from __future__ import annotations

from domain.common.scoring import hand_scored
from domain.events import Contract, Event, GameWon, ScoreItem
from domain.pinochle.cards import LAST_TRICK, points
from domain.pinochle.events import ChipsSettled, SettlementReason
from domain.pinochle.options import ANTE, KITTY_BID, unit_value
from domain.pinochle.state import State

# How many units the soloist gains from each seat: negative when he pays.
SIGN: dict[SettlementReason, int] = {
    "made": 1,
    "opponents_conceded": 1,
    "conceded": -1,
    "set": -2,
}


def tricks_won(state: State, seat: int) -> int:
    return sum(1 for trick in state.tricks if trick.winner == seat)


def card_points(state: State, seat: int) -> int:
    return state.taken[seat]


def last_trick(state: State, seat: int) -> int:
    return LAST_TRICK if state.tricks and state.tricks[-1].winner == seat else 0


def soloist_count(state: State, melds_need_a_trick: bool = False) -> list[ScoreItem]:
    """3A.6: melds + points in his tricks + buried points + last trick."""
    seat = state.soloist
    assert seat is not None
    melds = state.meld_points[seat]
    if melds_need_a_trick and not tricks_won(state, seat):
        melds = 0
    items = [
        ScoreItem(unit=seat, label="melds", points=melds),
        ScoreItem(unit=seat, label="cards", points=card_points(state, seat)),
        ScoreItem(unit=seat, label="last_trick", points=last_trick(state, seat)),
        ScoreItem(unit=seat, label="buried", points=points(state.buried)),
    ]
    return [item for item in items if item.points]


def ante(state: State) -> list[Event]:
    """3A.8: every seat puts ``ANTE`` in the kitty (at the start, and on a thrown-in deal)."""
    if state.config.scoring != "chips" or not state.config.kitty:
        return []
    reason: SettlementReason = "ante" if state.deal == 0 else "thrown_in"
    changes = [-ANTE] * state.seats
    return [_settled(state, max(state.deal, 1), reason, changes, ANTE * state.seats)]


def _settled(
    state: State,
    deal: int,
    reason: SettlementReason,
    changes: list[int],
    kitty: int,
    unit: int = 0,
    contract: Contract | None = None,
    count: list[ScoreItem] | None = None,
) -> ChipsSettled:
    scores = [a + b for a, b in zip(state.scores, changes, strict=True)]
    return ChipsSettled(
        deal=deal,
        reason=reason,
        changes=changes,
        kitty=kitty,
        scores=scores,
        kitty_total=state.kitty + kitty,
        unit=unit,
        contract=contract,
        count=count or [],
    )


def contract_chips(state: State, reason: SettlementReason, count: list[ScoreItem]) -> list[Event]:
    """The chips for a finished or conceded contract (3A.7, 3A.8)."""
    seat, bid, config = state.soloist, state.high_bid, state.config
    assert seat is not None
    # Spades double; a soloist conceding before naming trump has no spades to double.
    unit = unit_value(config, bid) * (2 if state.trump == "S" else 1)
    sign = SIGN[reason]
    changes = [0] * state.seats
    for other in range(state.seats):
        if other != seat:
            changes[other] -= sign * unit
            changes[seat] += sign * unit
    kitty = 0
    if config.kitty and bid >= KITTY_BID:
        owed = sign * unit
        if owed < 0:
            kitty = -owed
            changes[seat] += owed
        else:
            paid = min(owed, state.kitty)
            kitty = -paid
            changes[seat] += paid
            if config.kitty_shortfall == "opponents" and owed > paid:
                _make_up(state, changes, owed - paid)
    made = sign > 0
    return [
        _settled(
            state,
            state.deal,
            reason,
            changes,
            kitty,
            unit=unit,
            contract=Contract(seat=seat, amount=bid, made=made),
            count=count,
        )
    ]


def _make_up(state: State, changes: list[int], shortfall: int) -> None:
    """The two opponents pay what the kitty lacks, equally; the odd chip falls to the one
    on the soloist's left [decision: the soloist receives exactly what he is owed]."""
    assert state.soloist is not None
    first = state.next_active(state.soloist)
    second = state.next_active(first)
    changes[first] -= shortfall - shortfall // 2
    changes[second] -= shortfall // 2
    changes[state.soloist] += shortfall


def widowless_chips(state: State) -> list[Event]:
    """3A.3: the compulsory opener concedes unseen: 1 chip to the kitty only (none without
    a kitty [decision])."""
    seat = state.soloist
    assert seat is not None
    changes = [0] * state.seats
    kitty = 0
    if state.config.kitty:
        changes[seat], kitty = -1, 1
    contract = Contract(seat=seat, amount=state.high_bid, made=False)
    return [
        _settled(
            state, state.deal, "widowless_concession", changes, kitty, unit=1, contract=contract
        )
    ]


def contract_points(
    state: State, reason: SettlementReason, count: list[ScoreItem], widowless: bool = False
) -> list[Event]:
    """3A.7 points: +bid made, −bid conceded, −2×bid played and lost; a widowless
    concession costs nothing in points [decision: it pays only the kitty, which points
    tables do not have]."""
    seat, bid = state.soloist, state.high_bid
    assert seat is not None
    changes = [0] * state.seats
    changes[seat] = 0 if widowless else SIGN[reason] * bid
    contract = Contract(seat=seat, amount=bid, made=SIGN[reason] > 0)
    hand = hand_scored(state.deal, count, changes, state.scores, contract)
    if hand.scores[seat] >= state.target:
        return [hand, GameWon(winners=[seat], scores=hand.scores)]
    return [hand]


def table_end(state: State) -> list[Event]:
    """A chips table ends after ``deals`` deals; what is left in the kitty is shared
    equally, and chips that do not divide stay in it [decision]."""
    if state.config.scoring != "chips" or state.deal < state.config.deals:
        return []
    events: list[Event] = []
    share = state.kitty // state.seats
    scores = list(state.scores)
    if share:
        shared = _settled(
            state, state.deal, "kitty_shared", [share] * state.seats, -share * state.seats
        )
        events.append(shared)
        scores = shared.scores
    best = max(scores)
    events.append(GameWon(winners=[s for s, v in enumerate(scores) if v == best], scores=scores))
    return events
