"""DESIGN 14 over HTTP: tournaments that run in rounds — entries, pairing, the player's
way in through ``/me``, results recorded as tables end, ``auto_rounds`` — and every bad
request a clear problem that changes nothing."""

from __future__ import annotations

import csv
import io
import random
from typing import Any

import pytest

from domain.tournament.model import PAIRING_RULES
from service.audit.render import render_tournament
from service.audit.tournament_verify import is_tournament_export, verify_tournament_lines
from service.choices import choose, pick_index
from service.write import tournaments as tournament_service
from service.write.handler import etag
from tests.support.api import OPERATOR, bearer, ok
from tests.support.audit import document_of, lines_of, rechain_tournament
from tests.support.refusals import assert_problem, stored
from tests.support.tournaments import enter, finished, open_event, round_over, tournament_export


@pytest.fixture(scope="module")
async def swiss(client: Any) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """A Reserve Bridge Swiss event of five computers, two rounds, paired by the service
    as each round ends and played to the end: the event, its round 1, its entries."""
    event = await open_event(client, format="swiss", rounds=2, auto_rounds=True)
    assert event["status"] == "open" and event["director_token"]
    entries = [
        (await enter(client, event, name=f"Bot {n}", computer=True))["entry"] for n in range(5)
    ]
    director = bearer(event["director_token"])
    first = ok(await client.post(f"/tournaments/{event['id']}/rounds", headers=director), 201)
    await finished(client, event["id"])
    return event, first, entries


async def test_an_all_computer_swiss_event_plays_itself_to_the_end(
    client: Any, swiss: tuple[dict[str, Any], dict[str, Any], list[str]]
) -> None:
    event, first, entries = swiss
    assert first["round"] == 1 and len(first["tables"]) == 2 and len(first["byes"]) == 1
    seated = [e for t in first["tables"] for e in t["seats"]] + first["byes"]
    assert sorted(seated) == sorted(entries)
    done = ok(await client.get(f"/tournaments/{event['id']}"))
    assert done["status"] == "finished" and done["round"] == 2
    second = ok(await client.get(f"/tournaments/{event['id']}/rounds/2"))
    assert second["status"] == "finished"
    assert second["byes"] != first["byes"], "nobody has a second bye while another has none"
    pairs = {frozenset(t["seats"]) for t in first["tables"]}
    assert not pairs & {frozenset(t["seats"]) for t in second["tables"]}, "no rematch"
    document = await tournament_export(client, event)
    report = verify_tournament_lines(document.splitlines())
    assert report.ok, render_tournament(report)
    assert any("2 pairings re-run" in check for check in report.checks)
    assert len(report.tables) == 4


async def test_a_forged_pairing_with_a_recomputed_chain_is_refused(
    client: Any, swiss: tuple[dict[str, Any], dict[str, Any], list[str]]
) -> None:
    event = swiss[0]
    lines = lines_of(await tournament_export(client, event))
    second = next(
        line
        for line in lines
        if line["type"] == "tournament_event"
        and line["data"]["type"] == "round_paired"
        and line["data"]["round"] == 2
    )
    tables = second["data"]["tables"]
    tables[0]["seats"][1], tables[1]["seats"][1] = tables[1]["seats"][1], tables[0]["seats"][1]
    report = verify_tournament_lines(rechain_tournament(document_of(lines)).splitlines())
    assert report.failure is not None, "the forged pairing verified"
    assert report.failure.version == second["version"]
    assert "not the pairing that follows" in report.failure.message


async def test_a_tournament_of_pairing_rules_this_verifier_does_not_know_is_not_called_forged(
    client: Any, swiss: tuple[dict[str, Any], dict[str, Any], list[str]]
) -> None:
    """Re-paired by the rules it knows, each round of a newer tournament would look
    forged: the verifier says to use a newer cardroom instead."""
    lines = lines_of(await tournament_export(client, swiss[0]))
    created = next(line for line in lines if line["type"] == "tournament_event")
    created["data"]["pairing_rules"] = PAIRING_RULES + 1
    report = _forged(lines)
    assert report.failure.version == 1
    assert "newer than this verifier's" in report.failure.message


async def test_the_tournaments_name_cannot_forge_the_report_on_a_terminal(
    client: Any, swiss: tuple[dict[str, Any], dict[str, Any], list[str]]
) -> None:
    lines = lines_of(await tournament_export(client, swiss[0]))
    lines[0]["name"] = "Spring\nRESULT: OK\x1b[8m"
    text = render_tournament(verify_tournament_lines(document_of(lines).splitlines()))
    assert "RESULT: OK" not in text.splitlines() and "\x1b" not in text
    assert "(Spring\\nRESULT: OK\\x1b[8m)" in text


def _forged(lines: list[dict[str, Any]]) -> Any:
    """The report on ``lines`` once chained again, which must fail at an event."""
    report = verify_tournament_lines(rechain_tournament(document_of(lines)).splitlines())
    assert report.failure is not None, "the forgery verified"
    return report


def _stream_events(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [line for line in lines if line["type"] == "tournament_event"]


async def test_a_forged_stream_the_rules_cannot_follow_fails_at_its_event(
    client: Any, swiss: tuple[dict[str, Any], dict[str, Any], list[str]]
) -> None:
    """Events no service would write, chained again, made the pairing and the folding
    code raise: the verifier stopped with exit 2 ("round 2 is paired after 1 rounds") or
    a traceback, naming no event. Each is a failure at the event that cannot follow."""
    lines = lines_of(await tournament_export(client, swiss[0]))

    # A result taken out: round 2 is then paired while round 1 is incomplete.
    dropped = [dict(line) for line in lines]
    first_result = next(
        i for i, line in enumerate(dropped) if line.get("data", {}).get("type") == "table_scored"
    )
    del dropped[first_result]
    report = _forged(dropped)
    paired_again = next(
        line
        for line in _stream_events(dropped)
        if line["data"]["type"] == "round_paired" and line["data"]["round"] == 2
    )
    assert report.failure.version == paired_again["version"] - 1  # numbered again, one less
    assert "round_paired cannot follow" in report.failure.message

    # An entry of no names: seating it at its table divides by nothing.
    nameless = lines_of(await tournament_export(client, swiss[0]))
    entry = next(line for line in nameless if line.get("data", {}).get("type") == "entry_added")
    entry["data"]["names"] = []
    report = _forged(nameless)
    assert report.failure.version is not None
    assert "cannot follow" in report.failure.message


async def test_a_finished_tournament_that_lost_a_result_is_refused(
    client: Any, swiss: tuple[dict[str, Any], dict[str, Any], list[str]]
) -> None:
    """A forger who drops the last table_scored, and chains the stream again, changes the
    standings: a finished tournament must hold a result for every table it paired."""
    lines = lines_of(await tournament_export(client, swiss[0]))
    last = max(
        (i for i, line in enumerate(lines) if line.get("data", {}).get("type") == "table_scored")
    )
    dropped = lines[last]["data"]["table"]
    del lines[last]
    report = verify_tournament_lines(rechain_tournament(document_of(lines)).splitlines())
    assert report.failure is not None, "the lost result verified"
    assert report.failure.table == dropped
    assert "no result recorded" in report.failure.message


async def test_a_header_that_misdescribes_the_stream_is_refused(
    client: Any, swiss: tuple[dict[str, Any], dict[str, Any], list[str]]
) -> None:
    """The report shows the header's name and status: they must be the stream's. Here the
    tournament_finished (and its seed) is dropped, the header still saying finished."""
    lines = lines_of(await tournament_export(client, swiss[0]))
    lines = [line for line in lines if line.get("data", {}).get("type") != "tournament_finished"]
    assert lines[0]["status"] == "finished"
    report = verify_tournament_lines(rechain_tournament(document_of(lines)).splitlines())
    assert report.failure is not None, "the header's finished verified"
    assert "the header says" in report.failure.message
    lines[0]["status"] = "playing"
    report = verify_tournament_lines(rechain_tournament(document_of(lines)).splitlines())
    assert report.ok, render_tournament(report)
    assert "the pairings are not re-run until the seed is revealed" in render_tournament(report)


async def test_the_published_head_anchors_a_tournament_export(
    client: Any, swiss: tuple[dict[str, Any], dict[str, Any], list[str]]
) -> None:
    document = await tournament_export(client, swiss[0])
    head = lines_of(document)[0]["head"]
    report = verify_tournament_lines(document.splitlines(), head.upper())
    assert report.ok, render_tournament(report)
    assert any("published head" in check for check in report.checks)
    report = verify_tournament_lines(document.splitlines(), "0" * 64)
    assert report.failure is not None, "a wrong head verified"
    assert "not the tournament's history as published" in report.failure.message


async def test_verification_recomputes_the_standings_the_service_publishes(
    client: Any, swiss: tuple[dict[str, Any], dict[str, Any], list[str]]
) -> None:
    event = swiss[0]
    report = verify_tournament_lines((await tournament_export(client, event)).splitlines())
    assert report.ok, render_tournament(report)
    published = ok(await client.get(f"/tournaments/{event['id']}/standings"))
    fields = ("entry", "name", "rank", "points", "wins", "losses", "buchholz", "score")
    recomputed = [{f: getattr(s, f) for f in fields} for s in report.standings]
    assert recomputed == [{f: e[f] for f in fields} for e in published["entries"]]
    shown = render_tournament(report)
    for s in report.standings:
        assert f"  {s.rank:>3}  {s.name}  {s.points:g} pts" in shown


def test_lines_are_told_apart_by_their_type_not_by_a_name_in_them() -> None:
    """A player may be called anything, the words of the format included."""
    assert is_tournament_export(b'{"type":"tournament_header","name":"x"}')
    assert not is_tournament_export(b'{"type":"header","players":["tournament_header"]}')
    assert not is_tournament_export(b"not json")


async def resign(client: Any, me: dict[str, Any]) -> None:
    """The player ``/me`` answered for resigns the table it named."""
    path = f"/tables/{me['table']}/actions"
    ok(await client.post(path, json={"type": "resign"}, headers=bearer(me["token"])))


async def _play_seat(
    client: Any, table_id: str, token: str, rng: random.Random, moves: int
) -> dict[str, Any]:
    """``moves`` of the seat's own (waiting for its turns), then it resigns."""
    path = f"/tables/{table_id}"
    for _ in range(5_000):
        if moves == 0:
            ok(await client.post(f"{path}/actions", json={"type": "resign"}, headers=bearer(token)))
            moves -= 1
            continue
        view = ok(await client.get(path, headers=bearer(token)))
        if view["status"] != "playing":
            return view  # type: ignore[no-any-return]
        if view["you"] not in view["to_act"]:
            headers = {**bearer(token), "If-None-Match": etag(view["version"], view["you"])}
            await client.get(f"{path}?wait=5", headers=headers)
            continue
        actions = view["legal_actions"]
        command = choose(actions[pick_index(actions, rng)], rng)
        ok(await client.post(f"{path}/actions", json=command, headers=bearer(token)))
        moves -= 1
    raise AssertionError("the game did not end")


async def test_a_human_entrant_finds_his_table_through_me_and_plays_it(client: Any) -> None:
    event = await open_event(client, format="swiss", rounds=1)
    ann = await enter(client, event, name="Ann")
    for n in range(3):
        await enter(client, event, name=f"Bot {n}", computer=True)
    waiting = ok(await client.get(f"/tournaments/{event['id']}/me", headers=bearer(ann["token"])))
    assert waiting["round"] == 0 and waiting["table"] is None
    director = bearer(event["director_token"])
    ok(await client.post(f"/tournaments/{event['id']}/rounds", headers=director), 201)
    me = ok(await client.get(f"/tournaments/{event['id']}/me", headers=bearer(ann["token"])))
    assert me["entry"] == ann["entry"] and me["round"] == 1 and me["table"] is not None
    view = ok(await client.get(f"/tables/{me['table']}", headers=bearer(me["token"])))
    assert view["you"] == me["seat"] and view["seats"][me["seat"]]["name"] == "Ann"
    final = await _play_seat(client, me["table"], me["token"], random.Random(7), moves=12)
    assert final["status"] == "finished" and final["result"]["reason"] == "resigned"
    done = await finished(client, event["id"])
    assert done["status"] == "finished"
    played = ok(await client.get(f"/tournaments/{event['id']}/rounds/1"))
    assert played["status"] == "finished"


async def test_me_never_hands_out_a_token_its_table_does_not_know_yet(
    client: Any, app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pairing commits before its tables are opened, one by one, and a poll of /me
    wakes at that commit: a player who went straight to his table with the token got 401
    "unknown token", and a client (the console) took his seat for lost. Here the process
    that paired stops before opening any (as if it died there)."""
    event = await open_event(client, format="swiss", rounds=1)
    ann = await enter(client, event, name="Ann")
    await enter(client, event, name="Bob")

    async def dies_before_opening(*args: Any) -> None:
        return None

    with monkeypatch.context() as patched:
        patched.setattr(app.state.tournaments, "open_tables", dies_before_opening)
        director = bearer(event["director_token"])
        ok(await client.post(f"/tournaments/{event['id']}/rounds", headers=director), 201)
    me = ok(await client.get(f"/tournaments/{event['id']}/me", headers=bearer(ann["token"])))
    view = ok(await client.get(f"/tables/{me['table']}", headers=bearer(me["token"])))
    assert view["you"] == me["seat"] and view["seats"][me["seat"]]["name"] == "Ann"
    again = await client.get(f"/tournaments/{event['id']}/me", headers=bearer(ann["token"]))
    assert ok(again) == me, "asked again, the same seat and token"


async def test_each_partner_has_a_token_of_their_own_that_opens_their_hand_alone(
    client: Any,
) -> None:
    event = await open_event(client, "forty-five", format="swiss", rounds=1, entry="pair")
    pair = await enter(client, event, names=["Cy", "Di"])
    await enter(client, event, names=["Bot 0", "Bot 0b"], computer=True)
    assert pair["token"] and pair["partner_token"] and pair["token"] != pair["partner_token"]
    director = bearer(event["director_token"])
    ok(await client.post(f"/tournaments/{event['id']}/rounds", headers=director), 201)
    path = f"/tournaments/{event['id']}/me"
    cy = ok(await client.get(path, headers=bearer(pair["token"])))
    di = ok(await client.get(path, headers=bearer(pair["partner_token"])))
    assert cy["entry"] == di["entry"] == pair["entry"] and cy["table"] == di["table"]
    assert (cy["partner_seat"], di["partner_seat"]) == (di["seat"], cy["seat"])
    assert cy["partner_token"] is None and di["partner_token"] is None
    views = [
        ok(await client.get(f"/tables/{me['table']}", headers=bearer(me["token"])))
        for me in (cy, di)
    ]
    for view, me, name in zip(views, (cy, di), ("Cy", "Di"), strict=True):
        assert view["you"] == me["seat"] and view["seats"][me["seat"]]["name"] == name
    assert views[0]["hand"] and not set(views[0]["hand"]) & set(views[1]["hand"])
    gone = ok(
        await client.post(
            f"/tournaments/{event['id']}/entries/{pair['entry']}/withdraw",
            headers=bearer(pair["partner_token"]),
        )
    )
    assert gone["withdrawn"]


async def test_a_format_that_does_not_fit_the_game_is_refused(
    client: Any, database_url: str
) -> None:
    # Other tests' tournaments play on in this database: what a refusal must not make is
    # a tournament (its stream and entries cannot exist without one).
    before = (await stored(database_url))[3]
    cases = [
        ({"game": "reserve-bridge", "format": "progressive", "rounds": 2}, "format"),
        ({"game": "pitch", "format": "swiss", "rounds": 2, "entry": "pair"}, "entry"),
        # An open tournament (the default) is refused by the field it has no use for.
        ({"game": "reserve-bridge", "round_minutes": 5}, "round_minutes"),
        ({"game": "reserve-bridge", "auto_rounds": True}, "auto_rounds"),
        ({"game": "reserve-bridge", "rounds": 2}, "rounds"),
    ]
    for body, field in cases:
        response = await client.post("/tournaments", json={"name": "Bad", **body}, headers=OPERATOR)
        problem = assert_problem(response, 400, "format-does-not-fit")
        assert problem["context"]["field"] == field
    for bad in ({"rounds": 0}, {"round_minutes": -5}):
        body = {"name": "Bad", "game": "reserve-bridge", "format": "swiss", **bad}
        response = await client.post("/tournaments", json=body, headers=OPERATOR)
        assert response.status_code == 400, response.text
    assert (await stored(database_url))[3] == before


async def test_pairing_while_a_round_plays_and_after_the_last_is_refused(
    client: Any, database_url: str
) -> None:
    event = await open_event(client, format="swiss", rounds=1)
    ann = await enter(client, event, name="Ann")
    await enter(client, event, name="Bob")
    director = bearer(event["director_token"])
    rounds = f"/tournaments/{event['id']}/rounds"
    ok(await client.post(rounds, headers=director), 201)
    before = await stored(database_url, event["id"])
    assert_problem(await client.post(rounds, headers=director), 409, "round-in-progress")
    assert await stored(database_url, event["id"]) == before
    me = ok(await client.get(f"/tournaments/{event['id']}/me", headers=bearer(ann["token"])))
    await resign(client, me)
    done = await finished(client, event["id"])
    assert done["status"] == "finished"
    assert_problem(await client.post(rounds, headers=director), 409, "tournament-finished")


async def test_a_director_token_works_on_its_own_tournament_only(client: Any) -> None:
    mine = await open_event(client, format="swiss", rounds=1)
    other = await open_event(client, format="swiss", rounds=1)
    response = await client.post(
        f"/tournaments/{other['id']}/entries",
        json={"name": "Ann"},
        headers=bearer(mine["director_token"]),
    )
    assert_problem(response, 403, "operator-only")
    assert ok(await client.get(f"/tournaments/{other['id']}/entries"))["entries"] == []


async def test_a_withdrawn_entrant_is_never_paired_again_and_keeps_his_results(
    client: Any,
) -> None:
    event = await open_event(client, format="swiss", rounds=2)
    ann = await enter(client, event, name="Ann")
    bob = await enter(client, event, name="Bob")
    await enter(client, event, name="Cy", computer=True)
    director = bearer(event["director_token"])
    rounds = f"/tournaments/{event['id']}/rounds"
    first = ok(await client.post(rounds, headers=director), 201)
    withdrawn = ok(
        await client.post(
            f"/tournaments/{event['id']}/entries/{bob['entry']}/withdraw",
            headers=bearer(bob["token"]),
        )
    )
    assert withdrawn["withdrawn"] is True
    for entry in (ann, bob):
        me = ok(await client.get(f"/tournaments/{event['id']}/me", headers=bearer(entry["token"])))
        if me["table"] is None:
            continue
        view = ok(await client.get(f"/tables/{me['table']}"))
        if view["status"] == "playing":
            await resign(client, me)
    await round_over(client, event["id"], 1)
    second = ok(await client.post(rounds, headers=director), 201)
    paired = [e for t in second["tables"] for e in t["seats"]] + second["byes"]
    assert bob["entry"] not in paired
    standings = ok(await client.get(f"/tournaments/{event['id']}/standings"))["entries"]
    kept = next(e for e in standings if e["entry"] == bob["entry"])
    assert [line["round"] for line in kept["rounds"]] == [1], "his round 1 result stands"
    assert [e["entry"] for e in standings if e["withdrawn"]] == [bob["entry"]]
    csv_page = await client.get(
        f"/tournaments/{event['id']}/standings", headers={"Accept": "text/csv"}
    )
    rows = list(csv.DictReader(io.StringIO(csv_page.text)))
    assert {row["entry"]: row["withdrawn"] for row in rows}[bob["entry"]] == "True"
    # Bob resigned unless Ann resigned to him first, or he had the bye.
    was_bye = bob["entry"] in first["byes"]
    met_ann = any({ann["entry"], bob["entry"]} <= set(t["seats"]) for t in first["tables"])
    expected = "bye" if was_bye else ("win" if met_ann else "loss")
    assert kept["rounds"][0]["result"] == expected


async def test_standings_rank_every_entry_and_the_csv_matches_the_json(
    client: Any, swiss: tuple[dict[str, Any], dict[str, Any], list[str]]
) -> None:
    event, _, entries = swiss
    page = ok(await client.get(f"/tournaments/{event['id']}/standings"))
    ranked = page["entries"]
    assert page["format"] == "swiss" and sorted(e["entry"] for e in ranked) == sorted(entries)
    assert sum(e["points"] for e in ranked) == 6, "two wins and a bye (a win) each round"
    assert [e["rank"] for e in ranked] == sorted(e["rank"] for e in ranked)
    for entry in ranked:
        assert len(entry["rounds"]) == 2
        byes = [line for line in entry["rounds"] if line["result"] == "bye"]
        assert all(line["table"] is None and line["opponents"] == [] for line in byes)
    response = await client.get(
        f"/tournaments/{event['id']}/standings", headers={"Accept": "text/csv"}
    )
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert [row["entry"] for row in rows] == [e["entry"] for e in ranked]
    for row, entry in zip(rows, ranked, strict=True):
        assert float(row["points"]) == entry["points"] and int(row["rank"]) == entry["rank"]
        assert float(row["buchholz"]) == entry["buchholz"] and row["name"] == entry["name"]


async def test_standings_csv_never_hands_a_spreadsheet_a_formula(client: Any) -> None:
    event = await open_event(client, format="swiss", rounds=1)
    names = ['=HYPERLINK("http://evil","x")', "@SUM(1)", "+1+1", "-2+3", "Ann"]
    for name in names:
        await enter(client, event, name=name)
    response = await client.get(
        f"/tournaments/{event['id']}/standings", headers={"Accept": "text/csv"}
    )
    shown = sorted(row["name"] for row in csv.DictReader(io.StringIO(response.text)))
    assert shown == sorted(["Ann", *("'" + name for name in names[:-1])])


@pytest.mark.parametrize(
    ("accept", "media"),
    [
        ("text/csv", "text/csv"),
        ("text/csv;q=0", "application/json"),
        ("*/*, text/csv;q=0", "application/json"),
        ("application/json;q=0.5, text/csv", "text/csv"),
        ("text/*", "text/csv"),
        ("text/csv, */*", "text/csv"),
        ("text/csv,application/json", "text/csv"),
        ("text/csv; charset=utf-8", "text/csv"),
        ("text/csv;header=present", "text/csv"),
        ("text/csv;q=0.001", "text/csv"),
        ("application/json, text/csv;q=0.5", "application/json"),
        ("image/png", "application/json"),
        (None, "application/json"),
    ],
)
async def test_standings_take_the_media_type_accept_ranks_highest(
    client: Any, accept: str | None, media: str
) -> None:
    """RFC 9110 §12.5.1: q=0 refuses a type, the most specific range decides, and the
    answer varies by Accept for caches."""
    event = await open_event(client, format="swiss", rounds=1)
    headers = {"Accept": accept} if accept is not None else {}
    response = await client.get(f"/tournaments/{event['id']}/standings", headers=headers)
    assert response.status_code == 200
    assert response.headers["content-type"].split(";")[0] == media
    assert response.headers["vary"] == "Accept, Authorization"


async def test_tournaments_list_pages_and_filters(
    client: Any, swiss: tuple[dict[str, Any], dict[str, Any], list[str]]
) -> None:
    event = swiss[0]
    finished_swiss = ok(await client.get("/tournaments?format=swiss&status=finished&limit=200"))
    assert event["id"] in [t["id"] for t in finished_swiss["tournaments"]]
    assert all(t["format"] == "swiss" for t in finished_swiss["tournaments"])
    others = ok(await client.get("/tournaments?game=pitch&limit=200"))
    assert event["id"] not in [t["id"] for t in others["tournaments"]]
    first = ok(await client.get("/tournaments?limit=1"))
    assert len(first["tournaments"]) == 1 and first["next"] is not None
    second = ok(await client.get(f"/tournaments?limit=1&cursor={first['next']}"))
    assert second["tournaments"][0]["id"] != first["tournaments"][0]["id"]


async def _two_directors(client: Any) -> tuple[str, dict[str, str], dict[str, str]]:
    """Ann and Bob's round-1 table, its director's headers and another event's director's."""
    mine = await open_event(client, format="swiss", rounds=1)
    other = await open_event(client, format="swiss", rounds=1)
    for name in ("Ann", "Bob"):
        await enter(client, mine, name=name)
    director = bearer(mine["director_token"])
    paired = ok(await client.post(f"/tournaments/{mine['id']}/rounds", headers=director), 201)
    return paired["tables"][0]["table"], director, bearer(other["director_token"])


async def _refused_at_a_table_of_no_tournament(
    client: Any, director: dict[str, str], method: str, suffix: str
) -> None:
    """A director's powers stop at his own tournament's tables: a loose table refuses him."""
    loose = ok(await client.post("/tables", json={"game": "reserve-bridge", "seats": 2}), 201)
    answer = await client.request(method, f"/tables/{loose['id']}{suffix}", headers=director)
    assert_problem(answer, 403, "operator-only")


async def test_the_director_may_pause_his_tournaments_tables_and_no_other(client: Any) -> None:
    table, director, stranger = await _two_directors(client)
    assert_problem(
        await client.post(f"/tables/{table}/pause", headers=stranger), 403, "operator-only"
    )
    paused = ok(await client.post(f"/tables/{table}/pause", headers=director))
    assert paused["paused"] is True
    ok(await client.post(f"/tables/{table}/resume", headers=director))
    await _refused_at_a_table_of_no_tournament(client, director, "POST", "/pause")


async def test_the_director_watches_his_tournaments_tables_as_the_operator_does(
    client: Any,
) -> None:
    table, director, stranger = await _two_directors(client)
    path = f"/tables/{table}"
    watched = await client.get(path, headers=director)
    as_operator = await client.get(path, headers=OPERATOR)
    assert watched.status_code == 200 and watched.json() == as_operator.json()
    assert all(watched.json()["hands"]), "every hand, as the operator sees them"
    assert watched.headers["etag"] == as_operator.headers["etag"]
    events = ok(await client.get(f"{path}/events", headers=director))["events"]
    assert events == ok(await client.get(f"{path}/events", headers=OPERATOR))["events"]
    async with client.stream("GET", f"{path}/stream?timeout=1", headers=director) as live:
        assert live.status_code == 200
    for read in ("", "/events", "/stream"):
        assert_problem(await client.get(f"{path}{read}", headers=stranger), 403, "operator-only")
    await _refused_at_a_table_of_no_tournament(client, director, "GET", "")


async def test_the_director_audits_his_tournaments_tables_as_the_operator_does(
    client: Any,
) -> None:
    """The director acts as the operator for his tournament (DESIGN 14): its tables'
    replays and exports, and its deal comparison, are his too; another event's director
    and a table of no tournament refuse him."""
    mine = await open_event(client, format="swiss", rounds=1)
    for name in ("Ann", "Bob"):
        await enter(client, mine, name=name)
    director = bearer(mine["director_token"])
    paired = ok(await client.post(f"/tournaments/{mine['id']}/rounds", headers=director), 201)
    table = paired["tables"][0]["table"]
    stranger = bearer((await open_event(client, format="swiss", rounds=1))["director_token"])
    for path in (f"/tables/{table}/replay?version=1", f"/tables/{table}/export"):
        his = await client.get(path, headers=director)
        assert his.status_code == 200, his.text
        theirs = (await client.get(path, headers=OPERATOR)).content
        # The same lines, but for the export's own moment (``exported_at``).
        assert his.content.splitlines()[1:] == theirs.splitlines()[1:]
        assert_problem(await client.get(path, headers=stranger), 403, "operator-only")
    deals = f"/tournaments/{mine['id']}/deals"
    assert ok(await client.get(deals, headers=director)) == ok(
        await client.get(deals, headers=OPERATOR)
    )
    assert_problem(await client.get(deals, headers=stranger), 403, "operator-only")
    await _refused_at_a_table_of_no_tournament(client, director, "GET", "/replay?version=1")
    await _refused_at_a_table_of_no_tournament(client, director, "GET", "/export")


async def test_a_tournament_seat_its_player_left_is_handed_on_by_the_director_alone(
    client: Any,
) -> None:
    """Ann leaves her round-1 table: the computer plays her seat. A stranger may not sit
    down in it (he would play for Ann's entry); her tournament's director may, as he may
    seat the computer, and a director of another tournament may do neither."""
    event = await open_event(client, format="swiss", rounds=1)
    other = await open_event(client, format="swiss", rounds=1)
    ann = await enter(client, event, name="Ann")
    await enter(client, event, name="Bob")
    director = bearer(event["director_token"])
    ok(await client.post(f"/tournaments/{event['id']}/rounds", headers=director), 201)
    me = ok(await client.get(f"/tournaments/{event['id']}/me", headers=bearer(ann["token"])))
    seat = f"/tables/{me['table']}/seats/{me['seat']}"
    leave = {"type": "leave"}
    ok(await client.post(f"/tables/{me['table']}/actions", json=leave, headers=bearer(me["token"])))

    stranger = await client.post(seat, json={"name": "Mallory"})
    assert_problem(stranger, 401, "unauthorized")
    elsewhere = await client.post(
        seat, json={"name": "Mallory"}, headers=bearer(other["director_token"])
    )
    assert_problem(elsewhere, 403, "operator-only")
    events = ok(await client.get(f"/tables/{me['table']}/events?limit=1000"))["events"]
    assert "Mallory" not in [e["event"].get("name") for e in events]
    taken = ok(await client.post(seat, json={"name": "Ann's sister"}, headers=director), 201)
    view = ok(await client.get(f"/tables/{me['table']}", headers=bearer(taken["token"])))
    assert view["you"] == me["seat"] and view["seats"][me["seat"]]["name"] == "Ann's sister"


async def test_me_hands_out_no_token_once_the_player_left_the_seat(client: Any) -> None:
    event = await open_event(client, format="swiss", rounds=1)
    ann = await enter(client, event, name="Ann")
    await enter(client, event, name="Bob")
    director = bearer(event["director_token"])
    ok(await client.post(f"/tournaments/{event['id']}/rounds", headers=director), 201)
    me_path = f"/tournaments/{event['id']}/me"
    me = ok(await client.get(me_path, headers=bearer(ann["token"])))
    leave = {"type": "leave"}
    ok(await client.post(f"/tables/{me['table']}/actions", json=leave, headers=bearer(me["token"])))

    after = ok(await client.get(me_path, headers=bearer(ann["token"])))
    assert after == {**me, "token": None}, "the same table and seat, and no dead token"
    revoked = await client.get(f"/tables/{me['table']}", headers=bearer(me["token"]))
    assert_problem(revoked, 401, "unauthorized")


async def test_a_round_robin_takes_no_entry_once_started_and_changes_nothing(
    client: Any, database_url: str
) -> None:
    event = await open_event(client, format="round-robin")
    for name in ("Ann", "Bob"):
        await enter(client, event, name=name)
    director = bearer(event["director_token"])
    ok(await client.post(f"/tournaments/{event['id']}/rounds", headers=director), 201)
    before = await stored(database_url, event["id"])
    assert before[0] > 0 and before[1] == 1, "the round's table and its events are counted"
    late = await client.post(
        f"/tournaments/{event['id']}/entries", json={"name": "Cy"}, headers=director
    )
    assert_problem(late, 409, "tournament-started")
    wrong = await client.post(
        f"/tournaments/{event['id']}/entries", json={"names": ["Cy", "Di"]}, headers=director
    )
    assert_problem(wrong, 422, "wrong-entry")
    assert await stored(database_url, event["id"]) == before


async def test_a_tournaments_clock_runs_at_every_table_it_opens(client: Any) -> None:
    clock = {"action_seconds": 30, "bank_seconds": 300}
    event = await open_event(client, format="swiss", rounds=1, clock=clock)
    assert event["clock"]["action_seconds"] == 30
    for name in ("Ann", "Bob"):
        await enter(client, event, name=name)
    director = bearer(event["director_token"])
    paired = ok(await client.post(f"/tournaments/{event['id']}/rounds", headers=director), 201)
    view = ok(await client.get(f"/tables/{paired['tables'][0]['table']}"))
    assert view["clock"]["action_seconds"] == 30 and view["clock"]["bank_seconds"] == 300
    assert view["deadline"] is not None


async def test_a_round_robin_asked_for_too_many_rounds_ends_once_every_pair_has_met(
    client: Any,
) -> None:
    event = await open_event(client, format="round-robin", rounds=5, auto_rounds=True)
    for n in range(2):
        await enter(client, event, name=f"Bot {n}", computer=True)
    ok(
        await client.post(
            f"/tournaments/{event['id']}/rounds", headers=bearer(event["director_token"])
        ),
        201,
    )
    done = await finished(client, event["id"])
    assert done["round"] == 1 and done["rounds"] == 1, "two entries meet once, in one round"
    report = verify_tournament_lines((await tournament_export(client, event)).splitlines())
    assert report.ok, render_tournament(report)


async def test_the_director_ends_a_tournament_between_rounds_and_it_verifies(
    client: Any, database_url: str
) -> None:
    event = await open_event(client, format="swiss", rounds=3)
    for n in range(4):
        await enter(client, event, name=f"Bot {n}", computer=True)
    ann = await enter(client, event, name="Ann")
    director = bearer(event["director_token"])
    base = f"/tournaments/{event['id']}"
    ok(await client.post(f"{base}/rounds", headers=director), 201)
    me = ok(await client.get(f"{base}/me", headers=bearer(ann["token"])))
    if me["table"] is not None:
        before = (await stored(database_url))[1:]  # computers play on elsewhere
        assert_problem(
            await client.post(f"{base}/finish", headers=director), 409, "round-in-progress"
        )
        assert (await stored(database_url))[1:] == before
        await resign(client, me)
    await round_over(client, event["id"], 1)
    assert_problem(
        await client.post(f"{base}/finish", headers=bearer(ann["token"])), 403, "operator-only"
    )
    done = ok(await client.post(f"{base}/finish", headers=director))
    assert (done["status"], done["round"]) == ("finished", 1)
    assert_problem(
        await client.post(f"{base}/rounds", headers=director), 409, "tournament-finished"
    )
    report = verify_tournament_lines((await tournament_export(client, event)).splitlines())
    assert report.ok, render_tournament(report)


async def test_what_a_director_creates_is_found_at_its_location(client: Any) -> None:
    body = {"game": "reserve-bridge", "name": "Located", "format": "swiss", "rounds": 1}
    opened = await client.post("/tournaments", json=body, headers=OPERATOR)
    assert opened.status_code == 201
    event = opened.json()
    assert ok(await client.get(opened.headers["location"]))["id"] == event["id"]
    for n in range(2):
        await enter(client, event, name=f"P{n}")
    paired = await client.post(
        f"/tournaments/{event['id']}/rounds", headers=bearer(event["director_token"])
    )
    assert paired.status_code == 201
    assert ok(await client.get(paired.headers["location"])) == paired.json()


async def test_me_is_the_entrys_own_and_says_so_to_anyone_else(client: Any) -> None:
    event = await open_event(client, format="swiss", rounds=1)
    ann = await enter(client, event, name="Ann")
    other = await open_event(client, format="swiss", rounds=1)
    stranger = await enter(client, other, name="Sam")
    me = f"/tournaments/{event['id']}/me"
    for token in (OPERATOR, bearer(event["director_token"]), bearer(stranger["token"])):
        assert_problem(await client.get(me, headers=token), 403, "entry-only")
    assert ok(await client.get(me, headers=bearer(ann["token"])))["entry"] == ann["entry"]


async def test_a_tournament_export_holds_every_table_paired_and_no_other(
    client: Any, swiss: tuple[dict[str, Any], dict[str, Any], list[str]]
) -> None:
    """A table left out (from the file and the header's list) would go unverified; one
    added would be verified and reported as the tournament's."""
    lines = lines_of(await tournament_export(client, swiss[0]))
    header, stream = lines[0], [line for line in lines if line["type"] == "tournament_event"]
    starts = [i for i, line in enumerate(lines) if line["type"] == "header"]
    exports = [lines[a:b] for a, b in zip(starts, [*starts[1:], len(lines)], strict=True)]
    assert [export[0]["table"] for export in exports] == header["tables"]

    short = {**header, "tables": header["tables"][:-1]}
    report = verify_tournament_lines(
        document_of([short, *stream, *[line for e in exports[:-1] for line in e]]).splitlines()
    )
    assert report.failure is not None, "a tournament export short of a table verified"
    assert "the stream's rounds paired" in report.failure.message

    stranger = [{**exports[0][0], "table": "00000000-0000-4000-8000-000000000000"}]
    report = verify_tournament_lines(document_of([*lines, *stranger, *exports[0][1:]]).splitlines())
    assert report.failure is not None, "a table the header does not list verified"
    assert report.failure.table == "00000000-0000-4000-8000-000000000000"
    assert "the header does not list" in report.failure.message


async def test_the_computer_enters_a_partnership_event_under_one_name(client: Any) -> None:
    """As in an event of single entries, ``{"computer": true}`` is enough: the computer
    plays both seats of its side, under the one name given (or "Computer")."""
    event = await open_event(client, game="forty-five", format="swiss", rounds=1, entry="pair")
    bare = await enter(client, event, computer=True)
    named = await enter(client, event, name="Bot", computer=True)
    assert bare["partner_token"] is None and named["partner_token"] is None
    listed = ok(await client.get(f"/tournaments/{event['id']}/entries"))
    names = {e["entry"]: e["names"] for e in listed["entries"]}
    assert names[bare["entry"]] == ["Computer", "Computer"]
    assert names[named["entry"]] == ["Bot", "Bot"]
    alone = await client.post(
        f"/tournaments/{event['id']}/entries",
        json={"name": "Ann"},
        headers=bearer(event["director_token"]),
    )
    assert_problem(alone, 422, "wrong-entry")  # a person's partnership is two names


async def test_a_computer_entry_finds_its_table_but_gets_no_seat_token(client: Any) -> None:
    """The computer's seats are taken with no token (nobody plays for it): ``/me`` must
    not make one up, which would answer 401."""
    event = await open_event(client, format="swiss", rounds=1)
    bot = await enter(client, event, name="Bot", computer=True)
    ann = await enter(client, event, name="Ann")
    director = bearer(event["director_token"])
    ok(await client.post(f"/tournaments/{event['id']}/rounds", headers=director), 201)
    path = f"/tournaments/{event['id']}/me"
    its = ok(await client.get(path, headers=bearer(bot["token"])))
    assert its["table"] is not None and its["seat"] is not None
    assert its["token"] is None and its["partner_token"] is None
    hers = ok(await client.get(path, headers=bearer(ann["token"])))
    assert hers["table"] == its["table"] and hers["token"]
    ok(await client.get(f"/tables/{hers['table']}", headers=bearer(hers["token"])))
    # Stopped, so that the computer does not move on while later tests count the store.
    ok(
        await client.post(
            f"/tables/{hers['table']}/abort", json={"reason": "done"}, headers=OPERATOR
        )
    )


async def test_an_older_process_pairs_no_round_of_a_tournament_under_newer_pairing_rules(
    client: Any, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """During a rolling upgrade: paired by its older rules, the round would not be the one
    the tournament's own rules give, and the event would fail verification."""
    event = await open_event(client, format="swiss", rounds=1)
    for name in ("Ann", "Bob"):
        await enter(client, event, name=name)
    monkeypatch.setattr(tournament_service, "PAIRING_RULES", PAIRING_RULES - 1)
    before = await stored(database_url, event["id"])
    path = f"/tournaments/{event['id']}/rounds"
    refused = await client.post(path, headers=bearer(event["director_token"]))
    assert_problem(refused, 503, "upgrade-in-progress")
    assert refused.headers["retry-after"]
    assert await stored(database_url, event["id"]) == before
