"""The points of a deal, the set-back, the winning order and the chips (RULES 2.3, 2.6-2.8)."""

from __future__ import annotations

from collections.abc import Sequence

from domain.cards import rank, suit
from domain.common.scoring import hand_scored, points_by_unit
from domain.events import Contract, Event, GameWon, ScoreItem
from domain.pitch import rules
from domain.pitch.events import PitchChipsSettled
from domain.pitch.state import State


def deal_points(state: State) -> list[ScoreItem]:
    """High, Low, Jack and Game, in that order (the winning order of RULES 2.7).

    Every dealt card is played, so the cards in the tricks are exactly the cards in play:
    the seat that played a card is the seat it was dealt to, and undealt cards never count.
    """
    trump = state.trump
    assert trump is not None
    # (seat that played it, card, seat that won the trick) for every trump in play
    trumps = [
        (played.seat, played.card, trick.winner)
        for trick in state.tricks
        for played in trick.cards
        if suit(played.card) == trump
    ]
    items: list[ScoreItem] = []
    if trumps:  # always: the pitcher's lead was a trump
        high = max(trumps, key=lambda t: rules.power(t[1]))
        items.append(ScoreItem(unit=high[0], label="high", points=1))
        low = min(trumps, key=lambda t: rules.power(t[1]))
        low_seat = low[0] if state.options.low_point == "dealt" else low[2]
        items.append(ScoreItem(unit=low_seat, label="low", points=1))
    jack = next((won_by for _, card, won_by in trumps if rank(card) == "J"), None)
    if jack is not None:  # nobody scores Jack when the trump jack was not dealt
        items.append(ScoreItem(unit=jack, label="jack", points=1))
    game = sole_highest(captured_game_points(state))
    if game is not None:
        items.append(ScoreItem(unit=game, label="game", points=1))
    return items


def captured_game_points(state: State) -> list[int]:
    """Each seat's game points in the tricks it has won this deal (T 10, A 4, K 3, Q 2, J 1)."""
    taken = [0] * state.seats
    for trick in state.tricks:
        taken[trick.winner] += rules.game_points([p.card for p in trick.cards])
    return taken


def sole_highest(values: Sequence[int]) -> int | None:
    """The seat with the most (game points for Game, score for ``game_end="highest"``);
    nobody when two or more tie for the most."""
    best = max(values)
    leaders = [seat for seat, value in enumerate(values) if value == best]
    return leaders[0] if len(leaders) == 1 else None


def score_deal(state: State) -> list[Event]:
    """``hand_scored`` after the sixth trick; ``game_won`` and the chips when someone wins."""
    pitcher, bid = state.pitcher, state.high_bid
    assert pitcher is not None
    items = deal_points(state)
    won = points_by_unit(items, state.seats)
    # RULES 2.6: the pitcher must *reach* his bid; short of it he is set back by the bid.
    made = won[pitcher] >= bid
    changes = list(won)
    if not made:
        changes[pitcher] = -bid
    contract = Contract(seat=pitcher, amount=bid, made=made)
    hand = hand_scored(state.deal, items, changes, state.scores, contract)
    events: list[Event] = [hand]
    scores = hand.scores
    if state.options.game_end == "highest":
        winner = highest_at_target(scores)
    else:
        winner = game_winner(state.scores, pitcher, bid, made, items)
    if winner is not None:
        setbacks = list(state.setbacks)
        if not made:
            setbacks[pitcher] += 1
        events.append(GameWon(winners=[winner], scores=scores))
        chips = settle(winner, scores, setbacks, setback_chip=state.options.setback_chip)
        events.append(PitchChipsSettled(winner=winner, chips=chips, setbacks=setbacks))
    return events


def game_winner(
    before: Sequence[int], pitcher: int, bid: int, made: bool, items: Sequence[ScoreItem]
) -> int | None:
    """Who wins on this deal, if anyone (RULES 2.7).

    A smudge made from a score of zero or more wins at once. Otherwise the pitcher's
    result is counted first — made and at 7 or more, he wins whatever the others reach —
    then the other seats' points one by one in the order High, Low, Jack, Game; the first
    seat to reach 7 wins.
    """
    if bid == rules.SMUDGE and made and before[pitcher] >= 0:
        return pitcher
    running = list(before)
    pitcher_points = sum(i.points for i in items if i.unit == pitcher)
    running[pitcher] += pitcher_points if made else -bid
    if made and running[pitcher] >= rules.TARGET:
        return pitcher
    for item in items:
        if item.unit == pitcher:
            continue  # already counted, made or set back
        running[item.unit] += item.points
        if running[item.unit] >= rules.TARGET:
            return item.unit
    return None


def highest_at_target(scores: Sequence[int]) -> int | None:
    """RULES 2.10: the highest score wins if it is at or over 7; a tie at the top plays on."""
    leader = sole_highest(scores)
    return leader if leader is not None and scores[leader] >= rules.TARGET else None


def settle(
    winner: int, scores: Sequence[int], setbacks: Sequence[int], *, setback_chip: bool
) -> list[int]:
    """Chips per seat, summing to zero (RULES 2.8).

    The winner collects 1 chip from each player with 1 or more points and 2 from each at 0
    or below; with ``setback_chip``, 1 more for every time that player was set back.
    [decision] The winner's own set-backs cost him nothing: he collects, he pays nobody.
    """
    chips = [0] * len(scores)
    for seat, score in enumerate(scores):
        if seat == winner:
            continue
        owed = 1 if score >= 1 else 2
        if setback_chip:
            owed += setbacks[seat]
        chips[seat] -= owed
        chips[winner] += owed
    return chips
