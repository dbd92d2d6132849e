"""DESIGN 14 over HTTP, format by format: a whole tournament of each, every entrant a
computer, played to ``finished`` with ``auto_rounds`` — round-robin, progressive and
duplicate (Swiss is in test_tournament_rounds.py) — and how a late entry, an aborted table
and a resignation count.

Each event is played once, when a test first asks for it, and read by several tests."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import pytest
from litestar import Litestar

from service.audit.render import render_tournament
from service.audit.tournament_verify import verify_tournament_lines
from tests.support.api import OPERATOR, bearer, ok
from tests.support.audit import document_of, lines_of, rechain_tournament
from tests.support.deadlines import expire_at_deadline
from tests.support.refusals import assert_problem
from tests.support.tournaments import (
    assert_verifies,
    enter,
    finished,
    open_event,
    round_over,
    tournament_export,
)


@dataclass(frozen=True)
class Played:
    """An event played to the end: as created, its entries, its rounds and standings."""

    event: dict[str, Any]
    entries: list[str]
    rounds: list[dict[str, Any]]
    standings: list[dict[str, Any]]

    def line(self, entry: str, number: int) -> dict[str, Any]:
        """The entry's standings line for round ``number``."""
        mine = next(s for s in self.standings if s["entry"] == entry)
        return next(line for line in mine["rounds"] if line["round"] == number)  # type: ignore[no-any-return]


async def play_event(client: Any, game: str, field: int, **extra: Any) -> Played:
    """``field`` computer entries (partnerships for ``entry: "pair"``) enter an event that
    the service pairs round after round."""
    event = await open_event(client, game, auto_rounds=True, **extra)
    pairs = extra.get("entry") == "pair"
    names = (
        {"names": [f"Bot {n}", f"Bot {n}b"]} if pairs else {"name": f"Bot {n}"}
        for n in range(field)
    )
    entries = [(await enter(client, event, computer=True, **name))["entry"] for name in names]
    path = f"/tournaments/{event['id']}"
    ok(await client.post(f"{path}/rounds", headers=bearer(event["director_token"])), 201)
    done = await finished(client, event["id"])
    rounds = [ok(await client.get(f"{path}/rounds/{n}")) for n in range(1, done["round"] + 1)]
    standings = ok(await client.get(f"{path}/standings"))["entries"]
    return Played(event, entries, rounds, standings)


EVENTS = {
    "round-robin of 4": ("reserve-bridge", 4, {"format": "round-robin"}),
    # Five partnerships at Forty-Five: its deals are quicker than Reserve Bridge's.
    "round-robin of 5": ("forty-five", 5, {"format": "round-robin", "entry": "pair"}),
    "progressive pitch": ("pitch", 9, {"format": "progressive", "seats": 4, "rounds": 2}),
    "progressive forty-five": ("forty-five", 8, {"format": "progressive", "rounds": 2}),
    "duplicate": ("reserve-bridge", 4, {"format": "duplicate", "rounds": 2}),
    # Auction Pinochle settles each deal in chips (two deals a table here).
    "duplicate pinochle": (
        "pinochle",
        6,
        {"format": "duplicate", "seats": 3, "rounds": 1, "options": {"deals": 2}},
    ),
}


class Events:
    """The module's events, each played the first time a test asks for it."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.played: dict[str, Played] = {}

    async def __call__(self, name: str) -> Played:
        if name not in self.played:
            game, field, extra = EVENTS[name]
            self.played[name] = await play_event(self.client, game, field, **extra)
        return self.played[name]


@pytest.fixture(scope="module")
def events(client: Any) -> Events:
    return Events(client)


def seated(played_round: dict[str, Any]) -> list[str]:
    """Every entry of the round, at a table or on a bye (a partnership once)."""
    at_tables = [e for t in played_round["tables"] for e in dict.fromkeys(t["seats"])]
    return at_tables + played_round["byes"]


# --- round-robin ------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "rounds"), [("round-robin of 4", 3), ("round-robin of 5", 5)])
async def test_a_round_robin_without_rounds_plays_the_berger_number_of_rounds(
    client: Any, events: Events, name: str, rounds: int
) -> None:
    played = await events(name)
    assert played.event["rounds"] is None
    listed = ok(await client.get(f"/tournaments/{played.event['id']}"))
    assert listed["rounds"] == rounds, "known once round 1 is paired"
    assert [r["round"] for r in played.rounds] == list(range(1, rounds + 1))
    assert all(r["status"] == "finished" for r in played.rounds)
    for r in played.rounds:
        assert sorted(seated(r)) == sorted(played.entries), "everyone plays or sits out"


@pytest.mark.parametrize("name", ["round-robin of 4", "round-robin of 5"])
async def test_every_pair_of_a_round_robin_meets_exactly_once(events: Events, name: str) -> None:
    played = await events(name)
    met = Counter(frozenset(t["seats"]) for r in played.rounds for t in r["tables"])
    assert set(met) == {frozenset(p) for p in combinations(played.entries, 2)}
    assert set(met.values()) == {1}
    byes = Counter(e for r in played.rounds for e in r["byes"])
    odd = len(played.entries) % 2
    assert byes == Counter(played.entries if odd else []), "an odd field: one bye each"


@pytest.mark.parametrize("name", ["round-robin of 4", "round-robin of 5"])
async def test_round_robin_standings_break_ties_by_buchholz_and_sonneborn_berger(
    events: Events, name: str
) -> None:
    played = await events(name)
    points = {s["entry"]: s["points"] for s in played.standings}
    for standing in played.standings:
        against = [(o, line["result"]) for line in standing["rounds"] for o in line["opponents"]]
        assert standing["buchholz"] == sum(points[o] for o, _ in against)
        beaten = {"win": 1.0, "draw": 0.5, "loss": 0.0}
        assert standing["sonneborn_berger"] == sum(points[o] * beaten[r] for o, r in against)
    keys = [(s["points"], s["buchholz"], s["sonneborn_berger"]) for s in played.standings]
    assert keys == sorted(keys, reverse=True)


# --- progressive ------------------------------------------------------------------------


def _at(played_round: dict[str, Any], table: int) -> set[str]:
    return set(played_round["tables"][table]["seats"])


async def recorded(client: Any, played: Played) -> dict[str, dict[str, Any]]:
    """Each round table's ``table_scored`` event, by table, from the event's export."""
    lines = lines_of(await tournament_export(client, played.event))
    return {
        line["data"]["table"]: line["data"]
        for line in lines
        if line["type"] == "tournament_event" and line["data"]["type"] == "table_scored"
    }


def ranking_keys(table: dict[str, Any], scored: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """How a table's entries rank once it ended, lower first: result, then game points
    (the seed breaks what remains level)."""
    order = {"win": 0, "draw": 1, "loss": 2}
    seats = zip(table["seats"], scored["outcomes"], scored["scores"], strict=True)
    return {entry: (order[outcome], -points) for entry, outcome, points in seats}


@pytest.mark.parametrize("name", ["progressive pitch", "progressive forty-five"])
async def test_progressive_winners_move_up_and_the_head_tables_losers_go_down(
    client: Any, events: Events, name: str
) -> None:
    played = await events(name)
    first, second = played.rounds
    assert len(first["tables"]) == len(second["tables"]) == 2
    scored = await recorded(client, played)
    head, foot = first["tables"]
    h = 2  # half of a table of four; at Forty-Five, the winning side
    at_head = _at(second, 0)
    below = ranking_keys(foot, scored[foot["table"]])
    up = {e for e in below if e in at_head}
    assert len(up) == h, "the top h of table 2 move up"
    assert max(below[e] for e in up) <= min(k for e, k in below.items() if e not in up)
    above = ranking_keys(head, scored[head["table"]])
    down = {e for e in above if e not in at_head}
    assert len(down) == h, "the bottom h of table 1 move down"
    assert min(above[e] for e in down) >= max(k for e, k in above.items() if e not in down)
    for entry in down:
        assert entry in _at(second, 1) or entry in second["byes"], "to the last table"


async def test_a_progressive_field_of_nine_sits_out_in_turn(events: Events) -> None:
    played = await events("progressive pitch")
    first, second = played.rounds
    assert len(first["byes"]) == len(second["byes"]) == 1
    assert first["byes"] != second["byes"], "byes go round in turn"
    for r in played.rounds:
        assert sorted(seated(r)) == sorted(played.entries)
    for bye in first["byes"] + second["byes"]:
        standing = next(s for s in played.standings if s["entry"] == bye)
        wins = standing["wins"] + standing["draws"] / 2
        assert standing["points"] == wins + 0.5, "a bye scores as half a win"


async def test_progressive_partners_change_every_round_at_forty_five(
    events: Events,
) -> None:
    def partners(played_round: dict[str, Any]) -> dict[str, str]:
        mates = {}
        for table in played_round["tables"]:
            seats = table["seats"]
            for seat, entry in enumerate(seats):
                mates[entry] = seats[(seat + 2) % 4]
        return mates

    first, second = (partners(r) for r in (await events("progressive forty-five")).rounds)
    assert set(first) == set(second)
    assert all(first[e] != second[e] for e in first)


# --- duplicate --------------------------------------------------------------------------


async def test_every_table_of_a_duplicate_round_plays_the_same_deals(
    client: Any, events: Events
) -> None:
    played = await events("duplicate")
    lines = lines_of(await tournament_export(client, played.event))
    decks: dict[str, Any] = {}
    table = None
    for line in lines:
        if line["type"] == "header" and "table" in line:
            table = line["table"]
        elif line["type"] == "event" and line["data"]["type"] == "table_created":
            decks[table] = (line["data"]["decks"], line["data"]["first_dealer"])
    for r in played.rounds:
        dealt = [decks[t["table"]] for t in r["tables"]]
        assert len(dealt) == 2 and dealt[0] == dealt[1] and dealt[0][0]
    assert (
        decks[played.rounds[0]["tables"][0]["table"]]
        != decks[played.rounds[1]["tables"][0]["table"]]
    ), "each round its own deals"


async def test_a_duplicate_events_tables_are_closed_to_spectators_until_it_is_over(
    client: Any,
) -> None:
    """Both tables of the round play Ann's deals: nobody but a table's own seats, the
    operator and the event's director sees one (its view, events, stream or score sheet)
    until the event is over."""
    event = await open_event(client, format="duplicate", rounds=1)
    ann = await enter(client, event, name="Ann")
    for name in ("Bot 1", "Bot 2", "Bot 3"):
        await enter(client, event, name=name, computer=True)
    path = f"/tournaments/{event['id']}"
    ok(await client.post(f"{path}/rounds", headers=bearer(event["director_token"])), 201)
    me = ok(await client.get(f"{path}/me", headers=bearer(ann["token"])))
    tables = [t["table"] for t in ok(await client.get(f"{path}/rounds/1"))["tables"]]
    other = next(t for t in tables if t != me["table"])
    reads = ("", "/events", "/scoresheet", "/stream")
    for table in tables:
        for read in reads:
            closed = await client.get(f"/tables/{table}{read}")
            assert closed.status_code == 401, (read, closed.text)
            assert closed.json()["code"] == "unauthorized"
    for read in reads[:3]:  # a seat of one table may not look at another's
        peek = await client.get(f"/tables/{other}{read}", headers=bearer(me["token"]))
        assert_problem(peek, 403, "wrong-seat")
    ok(await client.get(f"/tables/{me['table']}", headers=bearer(me["token"])))
    ok(await client.get(f"/tables/{me['table']}/scoresheet", headers=bearer(me["token"])))
    ok(await client.get(f"/tables/{other}/events", headers=OPERATOR))
    director = bearer(event["director_token"])
    for read in reads[:3]:
        ok(await client.get(f"/tables/{other}{read}", headers=director))

    await _resign(client, event, ann)
    await finished(client, event["id"])
    for read in ("", "/events", "/scoresheet"):
        ok(await client.get(f"/tables/{other}{read}"))


@pytest.mark.parametrize(("name", "directions"), [("duplicate", 2), ("duplicate pinochle", 3)])
async def test_duplicate_standings_rank_by_matchpoints(
    client: Any, events: Events, name: str, directions: int
) -> None:
    """Each deal is compared, whether scored in points or settled in chips."""
    played = await events(name)
    lines = lines_of(await tournament_export(client, played.event))
    scored = [
        line["data"]
        for line in lines
        if line["type"] == "tournament_event" and line["data"]["type"] == "table_scored"
    ]
    assert all(len(s["deal_decks"]) == len(s["deal_scores"]) for s in scored)
    decks: dict[str, set[str]] = {s["table"]: set(s["deal_decks"]) for s in scored}
    # Two tables a round: on each deck both were dealt, the two entries of each direction
    # share one matchpoint.
    compared = sum(
        len(set.intersection(*(decks[t["table"]] for t in r["tables"]))) for r in played.rounds
    )
    assert compared > 0
    assert sum(s["matchpoints"] for s in played.standings) == directions * compared
    assert all(0 <= s["percentage"] <= 100 for s in played.standings)
    keys = [(s["points"], s["matchpoints"], s["percentage"]) for s in played.standings]
    assert keys == sorted(keys, reverse=True)


async def test_a_results_decks_emptied_to_wipe_its_matchpoints_is_refused(
    client: Any, events: Events
) -> None:
    """Matchpoints compare the tables dealt the same deck: a result whose decks are
    emptied scores against nobody, so the decks are checked like the scores."""
    played = await events("duplicate")
    lines = lines_of(await tournament_export(client, played.event))
    report = verify_tournament_lines(document_of(lines).splitlines())
    assert report.ok, render_tournament(report)
    scored = next(line for line in lines if line.get("data", {}).get("type") == "table_scored")
    assert scored["data"]["deal_decks"]
    scored["data"]["deal_decks"] = []
    report = verify_tournament_lines(rechain_tournament(document_of(lines)).splitlines())
    assert report.failure is not None, "the emptied decks verified"
    assert report.failure.table == scored["data"]["table"]


async def test_results_recorded_before_their_decks_were_still_verify(
    client: Any, events: Events
) -> None:
    """Results stored before API 1.9 have no deal_decks at all: a genuine export of
    such a tournament verifies as it did. (Those of the last round stand for them: an
    earlier round's results go into the next pairing's inputs digest as recorded.)"""
    played = await events("duplicate")
    lines = lines_of(await tournament_export(client, played.event))
    scored = [line for line in lines if line.get("data", {}).get("type") == "table_scored"]
    last = max(line["data"]["round"] for line in scored)
    for line in scored:
        if line["data"]["round"] == last:
            assert line["data"]["deal_decks"]
            del line["data"]["deal_decks"]
    report = verify_tournament_lines(rechain_tournament(document_of(lines)).splitlines())
    assert report.ok, render_tournament(report)


# --- every event --------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(EVENTS))
async def test_each_finished_event_verifies_from_its_export(
    client: Any, events: Events, name: str
) -> None:
    played = await events(name)
    report = await assert_verifies(client, played.event)
    tables = sum(len(r["tables"]) for r in played.rounds)
    assert len(report.tables) == tables
    assert any(f"{len(played.rounds)} pairings re-run" in check for check in report.checks)


# --- late entries, aborted tables, resignations ----------------------------------------


async def _resign(client: Any, event: dict[str, Any], entry: dict[str, Any]) -> str:
    """The entry resigns its current table; the table."""
    me = ok(await client.get(f"/tournaments/{event['id']}/me", headers=bearer(entry["token"])))
    resign = {"type": "resign"}
    path = f"/tables/{me['table']}/actions"
    ok(await client.post(path, json=resign, headers=bearer(me["token"])))
    return me["table"]  # type: ignore[no-any-return]


async def test_a_late_entry_an_aborted_table_and_a_resignation_count_as_the_rules_say(
    client: Any,
) -> None:
    event = await open_event(client, format="swiss", rounds=2)
    people = {name: await enter(client, event, name=name) for name in ("Ann", "Bob", "Cy", "Dee")}
    director = bearer(event["director_token"])
    path = f"/tournaments/{event['id']}"
    first = ok(await client.post(f"{path}/rounds", headers=director), 201)
    late = await enter(client, event, name="Eve", computer=True)
    assert late["entry"] not in seated(first), "a late entry is not paired this round"
    by_entry = {p["entry"]: name for name, p in people.items()}
    resigned_table, aborted_table = first["tables"]
    resigner = people[by_entry[resigned_table["seats"][0]]]
    await _resign(client, event, resigner)
    aborted = await client.post(
        f"/tables/{aborted_table['table']}/abort", json={"reason": "hall"}, headers=OPERATOR
    )
    assert ok(aborted)["status"] == "aborted"
    await round_over(client, event["id"], 1)
    second = ok(await client.post(f"{path}/rounds", headers=director), 201)
    assert late["entry"] in seated(second), "a late entry joins the next round"
    for table in second["tables"]:
        human = next(e for e in table["seats"] if e in by_entry)
        await _resign(client, event, people[by_entry[human]])
    await finished(client, event["id"])
    standings = {s["entry"]: s for s in ok(await client.get(f"{path}/standings"))["entries"]}
    winner = resigned_table["seats"][1]
    assert standings[resigner["entry"]]["rounds"][0]["result"] == "loss"
    assert standings[winner]["rounds"][0]["result"] == "win"
    for entry in aborted_table["seats"]:
        assert all(line["round"] != 1 for line in standings[entry]["rounds"]), "counts nowhere"
    assert [line["round"] for line in standings[late["entry"]]["rounds"]] == [2]
    await assert_verifies(client, event)


async def test_a_forfeit_on_time_counts_as_a_loss(client: Any, app: Litestar) -> None:
    clock = {"action_seconds": 20, "bank_seconds": 0}
    event = await open_event(client, format="swiss", rounds=1, clock=clock, on_timeout="forfeit")
    ann = await enter(client, event, name="Ann")
    bob = await enter(client, event, name="Bob")
    director = bearer(event["director_token"])
    paired = ok(await client.post(f"/tournaments/{event['id']}/rounds", headers=director), 201)
    table = paired["tables"][0]
    view = ok(await client.get(f"/tables/{table['table']}"))
    idle = table["seats"][view["to_act"][0]]  # nobody acts: the first to act runs out
    await expire_at_deadline(app.state.service.store, table["table"])
    await finished(client, event["id"])
    ended = ok(await client.get(f"/tables/{table['table']}"))
    assert ended["result"]["reason"] == "forfeit"
    standings = ok(await client.get(f"/tournaments/{event['id']}/standings"))["entries"]
    results = {s["entry"]: (s["points"], s["rounds"][0]["result"]) for s in standings}
    other = ({ann["entry"], bob["entry"]} - {idle}).pop()
    assert results == {idle: (0.0, "loss"), other: (1.0, "win")}
    await assert_verifies(client, event)


async def test_chips_deals_count_in_results_recorded_by_the_second_rules_only(
    client: Any, events: Events
) -> None:
    """A tournament created before chips deals counted (results rules 1) recorded no
    deal of a chips table: its genuine export still verifies. Under rules 2 the same
    emptied results are refused."""
    played = await events("duplicate pinochle")
    lines = lines_of(await tournament_export(client, played.event))
    created = next(
        line for line in lines if line.get("data", {}).get("type") == "tournament_created"
    )
    assert created["data"]["results_rules"] == 2
    scored = [line for line in lines if line.get("data", {}).get("type") == "table_scored"]
    for line in scored:
        assert line["data"]["deal_scores"] and line["data"]["deal_decks"]
        line["data"]["deal_scores"], line["data"]["deal_decks"] = [], []
    report = verify_tournament_lines(rechain_tournament(document_of(lines)).splitlines())
    assert report.failure is not None, "results that left out the chips deals verified"
    del created["data"]["results_rules"]
    report = verify_tournament_lines(rechain_tournament(document_of(lines)).splitlines())
    assert report.ok, render_tournament(report)
