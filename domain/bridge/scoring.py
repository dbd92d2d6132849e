"""The contract result and the score sheet: parties, rubber and premiums (RULES 4.6, 4.8).

Every point is a :class:`~domain.events.ScoreItem` labelled ``line:kind`` — ``below:contract``
or ``above:honours``, ``above:slam``, ``above:contra``, ``above:recontra``,
``above:penalty``, ``above:rubber`` — so the sheet is the list of a rubber's items and
each total is the sum of its entries.
"""

from __future__ import annotations

from domain.bridge import rules
from domain.bridge.events import PartieWon, RubberWon
from domain.bridge.state import SEATS, Doubling, State, other
from domain.common.scoring import hand_scored, points_by_unit
from domain.events import Contract, Event, GameWon, ScoreItem

PARTIE = 20  # below the line wins a partie; two parties win the rubber
PARTIES_TO_WIN = 2

# (before partie, after partie): "after" is the declarer having won a partie already.
PENALTY_TIMES: dict[Doubling, tuple[int, int]] = {
    "none": (3, 5),
    "contra": (10, 15),
    "recontra": (20, 30),
}
SLAM_PREMIUM = {"small": (100, 150), "grand": (200, 300)}
DOUBLED_PREMIUM: dict[Doubling, tuple[int, int]] = {"contra": (25, 40), "recontra": (50, 80)}
RUBBER_PREMIUM = {0: 150, 1: 100}  # by the parties the loser of the rubber won


def achieved(denomination: str, tricks: int) -> int:
    """What the declarer's ``tricks`` are worth against his bid (RULES 4.6)."""
    if denomination == "NULLO":
        return max(0, rules.BOOK - tricks) * rules.TRICK_VALUE["NULLO"]
    return max(0, tricks - rules.BOOK) * rules.TRICK_VALUE[denomination]


def penalty(shortfall: int, doubling: Doubling, vulnerable: bool) -> int:
    """What the opponent scores above the line for a lost contract (RULES 4.8)."""
    return shortfall * PENALTY_TIMES[doubling][vulnerable]


def vulnerable(state: State, seat: int) -> bool:
    """'After partie': the player has won a partie in this rubber."""
    return state.parties[seat] > 0


def below_in_partie(state: State, seat: int) -> int:
    """The seat's points below the line in the partie being played.

    Both players start each partie from nothing: part-scores do not carry over once
    either player wins a partie [decision, as in bridge].
    """
    current = sum(state.parties)
    return sum(
        e.points
        for e in state.sheet
        if e.seat == seat and e.line == "below" and e.partie == current
    )


def totals(state: State) -> list[int]:
    scores = [0] * SEATS
    for entry in state.sheet:
        scores[entry.seat] += entry.points
    return scores


def tricks_taken(state: State, seat: int) -> int:
    return sum(t.winner == seat for t in state.tricks)


def score_deal(state: State) -> list[Event]:
    """``hand_scored`` for the ten tricks in ``state``, then a partie and rubber won."""
    declarer, bid, denomination = state.high_bidder, state.high_bid, state.denomination
    assert declarer is not None and denomination is not None
    opponent = other(declarer)
    vul = vulnerable(state, declarer)
    result = achieved(denomination, tricks_taken(state, declarer))
    made = result >= bid

    items: list[ScoreItem] = []
    if made:
        # Overtricks earn nothing and a contra leaves the entry as bid [decision].
        items.append(ScoreItem(unit=declarer, label="below:contract", points=bid))
    items.extend(
        ScoreItem(unit=h.seat, label="above:honours", points=h.points) for h in state.honours
    )
    slam = rules.slam_kind(bid, denomination)
    if made and slam is not None:
        items.append(ScoreItem(unit=declarer, label="above:slam", points=SLAM_PREMIUM[slam][vul]))
    if made and state.doubling != "none":
        points = DOUBLED_PREMIUM[state.doubling][vul]
        items.append(ScoreItem(unit=declarer, label=f"above:{state.doubling}", points=points))
    if not made:
        points = penalty(bid - result, state.doubling, vul)
        items.append(ScoreItem(unit=opponent, label="above:penalty", points=points))

    parties = list(state.parties)
    partie = made and below_in_partie(state, declarer) + bid >= PARTIE
    if partie:
        parties[declarer] += 1
    rubber = parties[declarer] == PARTIES_TO_WIN
    if rubber:
        premium = RUBBER_PREMIUM[parties[opponent]]
        items.append(ScoreItem(unit=declarer, label="above:rubber", points=premium))

    changes = points_by_unit(items, SEATS)
    contract = Contract(seat=declarer, amount=bid, made=made)
    hand = hand_scored(state.deal, items, changes, totals(state), contract)
    events: list[Event] = [hand]
    scores = hand.scores
    if partie:
        events.append(PartieWon(seat=declarer, parties=parties))
    if rubber:
        difference = abs(scores[0] - scores[1])
        events.append(
            RubberWon(seat=declarer, parties=parties, totals=scores, difference=difference)
        )
        best = max(scores)
        winners = [seat for seat in range(SEATS) if scores[seat] == best]
        events.append(GameWon(winners=winners, scores=scores))
    return events
