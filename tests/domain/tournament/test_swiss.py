"""Swiss pairing (RULES 5.4): score groups, no rematch while one can be avoided, byes."""

from __future__ import annotations

from collections import Counter
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.tournament.model import Entrant, Format, Outcome, Pairing, RoundRecord, Seating
from domain.tournament.pairing import pair
from tests.domain.tournament.rounds import (
    BRIDGE,
    FORTY_FIVE_PAIRS,
    SEED,
    entrants,
    finish,
    first_seat_wins,
    play,
    result,
)


def pairs_of(history: list[RoundRecord]) -> list[frozenset[str]]:
    return [frozenset(s.seats) for record in history for s in record.pairing.tables]


def rematch_free_pairing_exists(field: frozenset[str], met: frozenset[frozenset[str]]) -> bool:
    """By brute force: can ``field`` (even) be paired with no pair in ``met``?"""

    @cache
    def search(left: frozenset[str]) -> bool:
        if not left:
            return True
        first = min(left)
        return any(
            frozenset((first, other)) not in met and search(left - {first, other})
            for other in left - {first}
        )

    return search(field)


def test_round_one_pairs_everyone_and_the_bye_goes_to_the_last_in_the_seed_order() -> None:
    first = pair(Format.SWISS, BRIDGE, entrants(*"ABCDEFG"), [], SEED, 1)
    seated = [entry for seating in first.tables for entry in seating.seats]
    assert len(first.tables) == 3 and len(first.byes) == 1
    assert sorted([*seated, *first.byes]) == list("ABCDEFG")


def test_winners_meet_winners_and_losers_meet_losers() -> None:
    history = play(Format.SWISS, BRIDGE, entrants(*"ABCDEFGH"), 1, first_seat_wins)
    winners = {s.seats[0] for s in history[0].pairing.tables}
    second = pair(Format.SWISS, BRIDGE, entrants(*"ABCDEFGH"), history, SEED, 2)
    for seating in second.tables:
        assert (seating.seats[0] in winners) == (seating.seats[1] in winners)
    assert set(second.tables[0].seats) <= winners  # the head table is the leaders'


def test_sides_alternate_for_an_entry_that_sat_first_last_round() -> None:
    history = play(Format.SWISS, BRIDGE, entrants(*"ABCDEFGH"), 1, first_seat_wins)
    second = pair(Format.SWISS, BRIDGE, entrants(*"ABCDEFGH"), history, SEED, 2)
    first_seated = {s.seats[0] for s in history[0].pairing.tables}
    # Winners met winners, and every winner sat first: the balance cannot be kept at
    # every table, but where one sat first and the other second, they swap.
    for seating in second.tables:
        a, b = seating.seats
        if (a in first_seated) != (b in first_seated):
            assert b in first_seated


def test_pair_entries_hold_both_seats_of_their_side() -> None:
    paired = pair(Format.SWISS, FORTY_FIVE_PAIRS, entrants(*"ABCD"), [], SEED, 1)
    for seating in paired.tables:
        assert seating.seats[0] == seating.seats[2] and seating.seats[1] == seating.seats[3]


def test_late_entries_join_and_withdrawn_entries_are_not_paired() -> None:
    field = [*entrants(*"ABCD"), Entrant("Late", first_round=2), Entrant("Later", first_round=3)]
    history = play(Format.SWISS, BRIDGE, field, 1, first_seat_wins)
    assert "Late" not in str(history[0].pairing)
    field = [Entrant(e.entry, e.first_round, withdrawn=e.entry == "A") for e in field]
    second = pair(Format.SWISS, BRIDGE, field, history, SEED, 2)
    seated = {entry for s in second.tables for entry in s.seats} | set(second.byes)
    assert seated == {"B", "C", "D", "Late"}


@settings(max_examples=50, deadline=None)
@given(
    size=st.integers(min_value=2, max_value=11),
    rounds=st.integers(min_value=1, max_value=9),
    data=st.data(),
)
def test_no_rematch_while_a_rematch_free_pairing_exists_and_no_second_bye_while_someone_has_none(
    size: int, rounds: int, data: st.DataObject
) -> None:
    field = entrants(*(f"p{n}" for n in range(size)))
    outcomes: st.SearchStrategy[tuple[Outcome, Outcome]] = st.sampled_from(
        [("win", "loss"), ("loss", "win"), ("draw", "draw")]
    )

    def decide(round: int, seating: Seating) -> object:
        return result(seating, data.draw(outcomes))

    history: list[RoundRecord] = []
    byes: Counter[str] = Counter()
    for number in range(1, rounds + 1):
        paired: Pairing = pair(Format.SWISS, BRIDGE, field, history, SEED, number)
        seated = [entry for seating in paired.tables for entry in seating.seats]
        assert sorted([*seated, *paired.byes]) == sorted(e.entry for e in field)
        assert len(paired.byes) == size % 2
        met = frozenset(pairs_of(history))
        if paired.byes:
            (bye,) = paired.byes
            assert byes[bye] == min(byes[e.entry] for e in field)
        rematches = [s for s in paired.tables if frozenset(s.seats) in met]
        if rematches:
            fewest = min(byes[e.entry] for e in field)
            byes_allowed = (
                [e.entry for e in field if byes[e.entry] == fewest] if size % 2 else [None]
            )
            everyone = frozenset(e.entry for e in field)
            for candidate in byes_allowed:
                rest = everyone - {candidate} if candidate else everyone
                assert not rematch_free_pairing_exists(rest, met), (number, paired)
        byes.update(paired.byes)
        history.append(finish(paired, decide))  # type: ignore[arg-type]
