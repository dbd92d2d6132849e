"""The computer players (DESIGN 10): every command one the seat may send, every game
finished, and the computer well ahead of random play.

Seeds are fixed, so every figure here is deterministic; the thresholds still leave room
below what the computer does (see ``cardroom bench bots`` for the 500-game figures).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import pytest
from msgspec.structs import replace

from domain import computer, liveness
from domain import table as tables
from domain.commands import (
    Bury,
    BuryChoice,
    CardChoice,
    Exchange,
    ExchangeChoice,
    LegalAction,
    Meld,
    MeldChoice,
    MeldClaim,
    MeldOffer,
    PlayerCommand,
    Reserve,
    ReserveChoice,
)
from domain.errors import RuleCode, RuleError
from domain.events import CardsDealt, GameTimed
from service.tools import cli
from service.tools.bench import bots
from tests.support.playout import Playout, to_command

COMMAND_LIMIT = 100_000

# (game id, seats, options): every game id at its bench table, and the variants whose
# rules change what the computer must get right (stuck dealer, compulsory opening, the
# head-the-trick option, four-card packets, sit-outs at four and five seats).
TableSpec = tuple[str, int, dict[str, Any]]
TABLES: list[TableSpec] = [
    ("forty-five", 4, {}),
    ("pitch", 4, {}),
    ("pinochle", 3, {}),
    ("pinochle-three", 3, {}),
    ("pinochle-widow", 3, {}),
    ("pinochle-four", 4, {}),
    ("reserve-bridge", 2, {}),
]
VARIANTS: list[TableSpec] = [
    ("pitch", 2, {"low_point": "won"}),
    ("pitch", 7, {"all_pass": "stick_dealer"}),
    ("pinochle", 4, {"scoring": "points", "must_head_plain": True}),
    ("pinochle", 5, {"compulsory_opening": True, "deal_packets": "4"}),
    ("pinochle-widow", 3, {"compulsory_opening": True, "roundhouse": True}),
    ("pinochle-three", 3, {"must_head_plain": True}),
]


def _sub_multiset(picked: list[Any], offered: list[Any]) -> bool:
    return not Counter(picked) - Counter(offered)


def _fits(cards: list[str], choice: CardChoice) -> bool:
    return choice.min <= len(cards) <= choice.max and _sub_multiset(cards, choice.from_)


def _claim_key(claim: list[MeldClaim]) -> list[tuple[str, tuple[str, ...]]]:
    return [(m.kind, tuple(sorted(m.cards))) for m in claim]


def offered(command: PlayerCommand, actions: list[LegalAction]) -> bool:
    """``command`` is one of ``actions``, or a legal pick of one of their choices."""
    if command in actions:
        return True
    for action in actions:
        match command, action:
            case Exchange(discard=cards), ExchangeChoice(discard=choice) if _fits(cards, choice):
                return True
            case Reserve(cards=cards), ReserveChoice(cards=choice) if _fits(cards, choice):
                return True
            case Bury(cards=cards), BuryChoice(cards=choice) if _fits(cards, choice):
                return True
            case Meld(melds=claim), MeldOffer(melds=list() as ready) if claim == ready:
                return True
            case Meld(melds=claim), MeldOffer(melds=MeldChoice() as choice):
                if choice.min <= len(claim) <= choice.max and _sub_multiset(
                    _claim_key(claim), _claim_key(choice.from_)
                ):
                    return True
    return False


def play(
    game: str, seats: int, seed: int, computers: set[int], options: dict[str, Any]
) -> tuple[Playout, int]:
    """A seeded game to its end, the computer in ``computers``; the computer's commands
    are each checked against the seat's legal actions before ``decide`` gets them."""
    playout = Playout(tables.create(f"c{seed}", game, seats, options), seed)
    playout.seat_everyone()
    sent = 0
    for _ in range(COMMAND_LIMIT):
        if playout.table.status != "playing":
            return playout, sent
        seat = playout.choose_seat()
        actions = tables.legal_actions(playout.table, seat)
        if seat in computers:
            command = computer.choose(playout.table, seat)
            assert offered(command, actions), f"{game} seed {seed}: {command!r} not in {actions!r}"
            assert computer.choose(playout.table, seat) == command, "not deterministic"
            sent += 1
        else:
            command = to_command(playout.pick(actions), playout.rng)
        playout.act(seat, command)  # a refusal raises RuleError and fails the test
    raise AssertionError(f"{game} seed {seed}: no end after {COMMAND_LIMIT} commands")


def _games(table: TableSpec, seeds: range) -> None:
    game, seats, options = table
    for seed in seeds:
        # Even seeds: the computer in every seat; odd seeds: one computer among random.
        computers = set(range(seats)) if seed % 2 == 0 else {seed % seats}
        playout, sent = play(game, seats, seed, computers, options)
        assert playout.table.status == "finished"
        assert sent > 0


@pytest.mark.parametrize("table", TABLES, ids=[t[0] for t in TABLES])
def test_computer_commands_are_always_legal_and_games_finish(
    table: TableSpec,
) -> None:
    _games(table, range(12))


def _table_id(table: TableSpec) -> str:
    game, seats, options = table
    return "-".join([game, f"{seats}seats", *(f"{k}={v}" for k, v in options.items())])


@pytest.mark.slow
@pytest.mark.parametrize("table", TABLES + VARIANTS, ids=[_table_id(t) for t in TABLES + VARIANTS])
def test_computer_commands_stay_legal_over_many_games_and_variants(
    table: TableSpec,
) -> None:
    _games(table, range(100, 140))


def test_the_computer_acts_only_for_a_seat_the_table_waits_on() -> None:
    playout = Playout(tables.create("t", "forty-five", 4, {}), seed=3)
    playout.seat_everyone()
    waiting = tables.to_act(playout.table)
    other = next(s for s in range(4) if s not in waiting)
    with pytest.raises(RuleError) as refused:
        computer.choose(playout.table, other)
    assert refused.value.code is RuleCode.NOT_YOUR_TURN


# --- against random play ---------------------------------------------------------------------


def _win_rate(game: str, games: int) -> float:
    wins = 0
    for i in range(games):
        mine = bots.computer_seats(game, i)
        result = bots.play_game(game, 7000 + i, mine)
        assert result.refused == 0
        wins += bool(result.winners) and all(w in mine for w in result.winners)
    return wins / games


def test_computer_partnership_wins_most_forty_five_games_against_random() -> None:
    # 60 games; the 500-game bench has the computer side winning every one.
    assert _win_rate("forty-five", 60) >= 0.9


def test_computer_wins_most_reserve_bridge_rubbers_against_random() -> None:
    assert _win_rate("reserve-bridge", 12) >= 0.9


@pytest.mark.slow
def test_computer_wins_sixty_reserve_bridge_rubbers_against_random() -> None:
    assert _win_rate("reserve-bridge", 60) >= 0.9


@pytest.mark.parametrize(
    ("game", "seats", "least"),
    [
        ("pitch", 4, 0.5),
        ("pinochle", 3, 0.75),
        ("pinochle-three", 3, 0.7),
        ("pinochle-widow", 3, 0.75),
        ("pinochle-four", 4, 0.6),
    ],
)
def test_computer_outscores_random_seats(game: str, seats: int, least: float) -> None:
    """One computer seat among random ones: it wins ``least`` of the games at least
    (random seats would win 1 in ``seats``) and scores more per deal than they do."""
    games = 30
    wins = 0
    ours = theirs = 0
    for i in range(games):
        mine = bots.computer_seats(game, i)
        result = bots.play_game(game, 8000 + i, mine)
        assert result.refused == 0
        wins += any(w in mine for w in result.winners)
        ours += sum(result.scores[s] for s in mine)
        theirs += sum(result.scores) - sum(result.scores[s] for s in mine)
    assert wins / games >= least
    assert ours > theirs / (seats - 1)


def test_bench_bots_prints_json_figures_per_game_id(capsys: pytest.CaptureFixture[str]) -> None:
    """``cardroom bench bots``: two-sided games report a win rate, the others a win rate and
    points per deal for the computer seat and the random seats; nothing is refused."""
    argv = ["bench", "bots", "--games", "4", "--seed", "11", "--game", "forty-five"]
    assert cli.main([*argv, "--game", "pitch"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["games_per_id"] == 4 and figures["seed"] == 11
    results = figures["results"]
    assert set(results) == {"forty-five", "pitch"}
    assert 0 <= results["forty-five"]["win_rate"] <= 1
    assert set(results["pitch"]["win_rate"]) == {"computer", "random_seat"}
    assert set(results["pitch"]["points_per_deal"]) == {"computer", "random_seat"}
    assert all(r["refused"] == 0 and r["games"] == 4 for r in results.values())


def test_bench_bots_refuses_an_unknown_game_id(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bench", "bots", "--game", "chess"]) == 2
    assert "unknown game id: chess" in capsys.readouterr().err


def _other_hands_dealt_again(table: Any, seat: int, rng: random.Random) -> Any:
    """``table`` with the cards of every other seat's hand shuffled among those hands
    (each keeps its size): a position the seat cannot tell from the real one."""
    hands = [list(h) for h in table.state.hands]
    others = [s for s in range(len(hands)) if s != seat]
    pool = [card for s in others for card in hands[s]]
    rng.shuffle(pool)
    for s in others:
        hands[s], pool = pool[: len(hands[s])], pool[len(hands[s]) :]
    return replace(table, state=replace(table.state, hands=tuple(tuple(h) for h in hands)))


@pytest.mark.parametrize("spec", TABLES, ids=[spec[0] for spec in TABLES])
def test_the_computer_never_reads_what_its_seat_cannot_see(spec: TableSpec) -> None:
    """Autoplay and absent seats use the computer (DESIGN 10): it must decide the same in
    every position its seat cannot tell apart, so no hidden card can steer it."""
    game, seats, options = spec
    playout = Playout(tables.create("t", game, seats, options), seed=11)
    playout.seat_everyone()
    rng = random.Random(5)
    checked = 0
    for _ in playout.steps(limit=COMMAND_LIMIT):
        if checked >= 60 or playout.table.status != "playing":
            break
        for seat in tables.to_act(playout.table):
            disguised = _other_hands_dealt_again(playout.table, seat, rng)
            assert tables.view(disguised, seat) == tables.view(playout.table, seat)
            assert computer.choose(disguised, seat) == computer.choose(playout.table, seat)
            checked += 1
    assert checked >= 30


T0 = datetime(2026, 12, 2, 20, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("game", "seats"),
    [
        ("forty-five", 4),
        ("pitch", 4),
        ("pinochle", 4),
        ("pinochle-three", 3),
        ("pinochle-widow", 3),
        ("pinochle-four", 4),
        ("reserve-bridge", 2),
    ],
)
def test_a_finished_game_shows_the_dealer_of_its_last_deal(game: str, seats: int) -> None:
    """The finished view still shows the last deal (its auction, its tricks): its dealer
    is that deal's, not the next one's, a deal never dealt (RULES 0.4 passes the deal on
    after every deal)."""
    playout, _ = play(game, seats, 2, set(range(seats)), {})
    assert playout.table.status == "finished"
    assert_last_dealer_shown(playout)


def assert_last_dealer_shown(playout: Playout) -> None:
    [*_, last] = [e for e in playout.events if isinstance(e, CardsDealt)]
    for audience in ("spectator", 0):
        assert msgspec.to_builtins(tables.view(playout.table, audience))["dealer"] == last.dealer


@pytest.mark.parametrize(
    ("game", "seats"), [("forty-five", 4), ("pitch", 4), ("pinochle", 4), ("reserve-bridge", 2)]
)
def test_a_game_ended_on_time_shows_the_dealer_of_its_last_deal(game: str, seats: int) -> None:
    """A timed round's table ends between deals too (``game_timed``), after the scoring
    that passed the deal on; the game's view says it ended, won by the side ahead (its
    phase stayed at the next deal, and ``winners`` empty)."""
    created = tables.create("t", game, seats, {}, ends_at=T0, tournament="a-tournament")
    playout = Playout(created, seed=3)
    playout.seat_everyone()
    playout.apply(liveness.call_time(playout.table, T0 + timedelta(seconds=1)))
    for _ in playout.steps():
        pass
    timed = playout.events[-1]
    assert isinstance(timed, GameTimed)
    assert_last_dealer_shown(playout)
    view = msgspec.to_builtins(tables.view(playout.table, "spectator"))
    assert (view["phase"], view["winners"]) == ("finished", timed.winners)
