"""DESIGN 10 over HTTP: clocks in views, leaving and taking over, replacing, resigning,
aborting, pausing and resuming — and every bad request a clear problem that changes
nothing."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from litestar import Litestar

from domain.commands import Leave
from service.audit.verify import verify_lines
from tests.support.api import OPERATOR, all_events, bearer, new_table, ok, seat_all
from tests.support.audit import export
from tests.support.refusals import assert_problem, assert_token_replaced, stored

CLOCK = {"action_seconds": 20, "bank_seconds": 60}


async def verified(client: Any, table_id: str) -> None:
    """The table's export passes ``cardroom verify``: every liveness batch re-runs."""
    report = verify_lines((await export(client, table_id)).splitlines())
    assert report.ok, report.failure


async def started(client: Any, **extra: Any) -> tuple[str, list[str], dict[str, Any]]:
    table = await new_table(client, **extra)
    seats = table["seats"]
    tokens = await seat_all(client, table["id"], len(seats))
    return table["id"], tokens, ok(await client.get(f"/tables/{table['id']}"))


async def test_a_clocked_table_shows_its_deadline_and_banks(client: Any) -> None:
    table_id, _, view = await started(client, clock=CLOCK)
    assert view["clock"] == {
        "action_seconds": 20,
        "bank_seconds": 60,
        "on_timeout": "autoplay",
        "bank": [60.0] * 4,
    }
    deadline = datetime.fromisoformat(view["deadline"])
    events = await all_events(client, table_id)
    clock_set = [e for e in events if e["event"]["type"] == "clock_set"][-1]
    started_at = datetime.fromisoformat(clock_set["at"])
    assert (deadline - started_at).total_seconds() == 80
    assert datetime.fromisoformat(clock_set["event"]["deadline"]) == deadline


async def test_a_table_without_a_clock_has_no_deadline_and_no_clock_events(client: Any) -> None:
    table_id, _, view = await started(client)
    assert view["clock"] is None and view["deadline"] is None
    assert not [e for e in await all_events(client, table_id) if e["event"]["type"] == "clock_set"]


async def test_leave_then_another_player_takes_the_seat_over(client: Any) -> None:
    table_id, tokens, view = await started(client)
    seat = (view["to_act"][0] + 1) % 4
    ok(
        await client.post(
            f"/tables/{table_id}/actions", json={"type": "leave"}, headers=bearer(tokens[seat])
        )
    )
    view = ok(await client.get(f"/tables/{table_id}"))
    assert view["seats"][seat]["vacant"] and view["seats"][seat]["absent"]
    old = await client.get(f"/tables/{table_id}", headers=bearer(tokens[seat]))
    assert_problem(old, 401, "unauthorized")
    granted = ok(await client.post(f"/tables/{table_id}/seats/{seat}", json={"name": "Zoe"}), 201)
    mine = ok(await client.get(f"/tables/{table_id}", headers=bearer(granted["token"])))
    assert mine["you"] == seat and mine["hand"]
    assert mine["seats"][seat] == {
        "seat": seat,
        "name": "Zoe",
        "computer": False,
        "absent": False,
        "vacant": False,
    }
    taken = await client.post(f"/tables/{table_id}/seats/{seat}", json={"name": "Max"})
    assert_problem(taken, 409, "seat-taken")
    await verified(client, table_id)


async def test_every_read_of_a_table_refuses_a_revoked_token_and_another_tables(
    client: Any,
) -> None:
    """The view, the events and the score sheet alike: 401 for the token of a seat that
    was left, 403 for a seat token of another table; the seats still sitting read on."""
    table_id, tokens, view = await started(client)
    _, others, _ = await started(client)
    seat = (view["to_act"][0] + 1) % 4
    leave = {"type": "leave"}
    ok(await client.post(f"/tables/{table_id}/actions", json=leave, headers=bearer(tokens[seat])))
    for read in ("", "/events", "/scoresheet"):
        path = f"/tables/{table_id}{read}"
        assert_problem(await client.get(path, headers=bearer(tokens[seat])), 401, "unauthorized")
        assert_problem(await client.get(path, headers=bearer(others[0])), 403, "wrong-seat")
        ok(await client.get(path, headers=bearer(tokens[(seat + 1) % 4])))


async def test_a_left_tournament_seat_is_judged_on_the_table_it_is_taken_from(
    client: Any, app: Litestar, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Taking over a seat its player left, at a tournament table, needs the director. A
    stranger's take read the table while the seat was occupied (no director needed),
    then the player left, then the take went through on the table as it then was: a
    seat of the tournament, and its hand, for anyone. Judged on the table the seat is
    taken from, the take finds the seat occupied (409); asked again, the director's."""
    body = {"game": "pitch", "name": "Club night"}
    tournament = ok(await client.post("/tournaments", json=body, headers=OPERATOR), 201)["id"]
    players = {"players": ["Ann", "Bob"]}
    opened = await client.post(f"/tournaments/{tournament}/tables", json=players, headers=OPERATOR)
    table_id = ok(opened, 201)["table"]["id"]
    service = app.state.service
    load = service.load

    async def the_player_leaves_after_this_read(key: str, *args: Any, **kwargs: Any) -> Any:
        loaded = await load(key, *args, **kwargs)
        if key == table_id:
            monkeypatch.setattr(service, "load", load)  # once
            await service.act(table_id, 1, Leave(), if_match=None, idempotency_key=None, epoch=0)
        return loaded

    monkeypatch.setattr(service, "load", the_player_leaves_after_this_read)
    stranger = await client.post(f"/tables/{table_id}/seats/1", json={"name": "Mallory"})
    assert_problem(stranger, 409, "seat-taken")
    view = ok(await client.get(f"/tables/{table_id}", headers=OPERATOR))
    assert view["seats"][1]["vacant"] and view["seats"][1]["name"] == "Bob"
    again = await client.post(f"/tables/{table_id}/seats/1", json={"name": "Mallory"})
    assert_problem(again, 401, "unauthorized")
    ok(await client.post(f"/tables/{table_id}/seats/1", json={"name": "Cy"}, headers=OPERATOR), 201)


async def test_the_operator_replaces_a_player_and_the_old_token_stops_working(
    client: Any,
) -> None:
    table_id, tokens, _ = await started(client)
    path = f"/tables/{table_id}/seats/2/replace"
    refused = await client.post(path, json={"name": "Eve"}, headers=bearer(tokens[0]))
    assert_problem(refused, 403, "operator-only")
    handed = ok(await client.post(path, json={"name": "Eve"}, headers=OPERATOR))
    assert handed["seat"] == 2 and handed["token"]
    view = await assert_token_replaced(
        client, table_id, tokens[2], handed["token"], {"type": "pass"}
    )
    assert view["seats"][2]["name"] == "Eve" and view["you"] == 2
    await verified(client, table_id)


async def test_the_operator_hands_a_seat_to_the_computer(client: Any) -> None:
    table_id, _, _ = await started(client)
    path = f"/tables/{table_id}/seats/3/replace"
    handed = ok(await client.post(path, json={"computer": True}, headers=OPERATOR))
    assert handed["token"] is None
    view = ok(await client.get(f"/tables/{table_id}"))
    assert view["seats"][3]["computer"] and view["seats"][3]["name"] == "Computer"
    await verified(client, table_id)


async def test_resign_ends_a_partnership_game_for_the_other_side(client: Any) -> None:
    table_id, tokens, _ = await started(client)
    answer = ok(
        await client.post(
            f"/tables/{table_id}/actions", json={"type": "resign"}, headers=bearer(tokens[1])
        )
    )
    view = answer["table"]
    assert view["status"] == "finished"
    assert view["result"] == {"reason": "resigned", "winners": [0, 2], "losers": [1, 3]}
    again = await client.post(
        f"/tables/{table_id}/actions", json={"type": "resign"}, headers=bearer(tokens[0])
    )
    assert_problem(again, 409, "game-over")
    await verified(client, table_id)


async def test_a_table_ended_in_play_shows_the_phase_it_stopped_in(client: Any) -> None:
    """``waiting`` is for a table still waiting for players: a table resigned or aborted
    in play showed it, as if it were waiting for them."""
    table_id, tokens, _ = await started(client)
    phase = ok(await client.get(f"/tables/{table_id}"))["phase"]
    resign = {"type": "resign"}
    answer = ok(
        await client.post(f"/tables/{table_id}/actions", json=resign, headers=bearer(tokens[1]))
    )
    assert answer["table"]["status"] == "finished" and answer["table"]["phase"] == phase
    other, _, _ = await started(client)
    phase = ok(await client.get(f"/tables/{other}"))["phase"]
    aborted = await client.post(f"/tables/{other}/abort", json={"reason": "x"}, headers=OPERATOR)
    assert ok(aborted)["status"] == "aborted" and ok(aborted)["phase"] == phase
    empty = await new_table(client)
    aborted = await client.post(
        f"/tables/{empty['id']}/abort", json={"reason": "x"}, headers=OPERATOR
    )
    assert ok(aborted)["phase"] == "waiting", "aborted before its seats were taken"


async def test_resign_in_a_game_without_sides_is_refused(client: Any, database_url: str) -> None:
    table_id, tokens, _ = await started(client, game="pinochle-three", seats=3)
    before = await stored(database_url)
    refused = await client.post(
        f"/tables/{table_id}/actions", json={"type": "resign"}, headers=bearer(tokens[0])
    )
    assert_problem(refused, 409, "no-sides")
    assert await stored(database_url) == before


async def test_abort_stops_the_table_once(client: Any, database_url: str) -> None:
    table_id, tokens, view = await started(client)
    path = f"/tables/{table_id}/abort"
    assert_problem(await client.post(path, json={"reason": "x"}), 401, "unauthorized")
    aborted = ok(await client.post(path, json={"reason": "The hall closes"}, headers=OPERATOR))
    assert aborted["status"] == "aborted" and aborted["result"]["reason"] == "aborted"
    before = await stored(database_url)
    assert_problem(
        await client.post(path, json={"reason": "again"}, headers=OPERATOR), 409, "table-aborted"
    )
    seat = view["to_act"][0]
    command = await client.post(
        f"/tables/{table_id}/actions", json={"type": "pass"}, headers=bearer(tokens[seat])
    )
    assert_problem(command, 409, "table-aborted")
    assert await stored(database_url) == before
    listed = ok(await client.get("/tables?status=aborted"))
    assert table_id in [t["id"] for t in listed["tables"]]
    await verified(client, table_id)


async def test_pause_holds_commands_and_stops_the_clock_until_resume(client: Any) -> None:
    table_id, tokens, view = await started(client, clock=CLOCK)
    seat = view["to_act"][0]
    paused = ok(await client.post(f"/tables/{table_id}/pause", headers=OPERATOR))
    assert paused["paused"] and paused["deadline"] is None
    mine = ok(await client.get(f"/tables/{table_id}", headers=bearer(tokens[seat])))
    assert mine["legal_actions"] == []
    # The frozen clock, from the view alone: at most the turn's time and the whole bank.
    full = CLOCK["action_seconds"] + CLOCK["bank_seconds"]
    left = mine["clock"]["paused_left"]
    assert 0 < left[seat] <= full and [v for i, v in enumerate(left) if i != seat] == [None] * 3
    command = await client.post(
        f"/tables/{table_id}/actions", json={"type": "pass"}, headers=bearer(tokens[seat])
    )
    assert_problem(command, 409, "table-paused")
    twice = await client.post(f"/tables/{table_id}/pause", headers=OPERATOR)
    assert_problem(twice, 409, "table-paused")
    resumed = ok(await client.post(f"/tables/{table_id}/resume", headers=OPERATOR))
    assert not resumed["paused"] and resumed["deadline"] is not None
    assert datetime.fromisoformat(resumed["deadline"]) >= datetime.fromisoformat(view["deadline"])
    again = await client.post(f"/tables/{table_id}/resume", headers=OPERATOR)
    assert_problem(again, 409, "not-paused")
    mine = ok(await client.get(f"/tables/{table_id}", headers=bearer(tokens[seat])))
    assert mine["legal_actions"]
    await verified(client, table_id)


async def test_an_absent_player_comes_back_with_return(client: Any) -> None:
    table_id, tokens, view = await started(client)
    seat = (view["to_act"][0] + 1) % 4
    refused = await client.post(
        f"/tables/{table_id}/actions", json={"type": "return"}, headers=bearer(tokens[seat])
    )
    assert_problem(refused, 409, "not-allowed-now")


@pytest.mark.parametrize(
    "clock",
    [
        {"action_seconds": 0, "bank_seconds": 10},
        {"action_seconds": -5, "bank_seconds": 10},
        {"action_seconds": 20, "bank_seconds": -1},
        {"action_seconds": 10**7, "bank_seconds": 0},
        {"action_seconds": 20, "bank_seconds": 10**9},
        {"action_seconds": 20.5, "bank_seconds": 0},
        {"bank_seconds": 60},
        {"action_seconds": 20, "bank_seconds": 60, "increment": 5},
    ],
)
async def test_absurd_clocks_are_refused(client: Any, database_url: str, clock: Any) -> None:
    before = await stored(database_url)
    response = await client.post("/tables", json={"game": "pitch", "seats": 2, "clock": clock})
    assert_problem(response, 400, "malformed-request")
    assert await stored(database_url) == before


async def test_forfeit_without_a_clock_is_refused(client: Any) -> None:
    response = await client.post(
        "/tables", json={"game": "pitch", "seats": 2, "on_timeout": "forfeit"}
    )
    assert_problem(response, 400, "invalid-options")


async def test_an_intervention_decided_on_a_view_gone_stale_is_refused_and_changes_nothing(
    client: Any, database_url: str
) -> None:
    """If-Match was ignored but on a seat's command: a Replace confirmed against an old
    view still replaced the seat (RFC 9110 §13.1.1: a false If-Match is not performed)."""
    table_id, tokens, _ = await started(client)
    path = f"/tables/{table_id}"
    old = (await client.get(path, headers=OPERATOR)).headers["etag"]
    seat = ok(await client.get(path))["to_act"][0]
    view = ok(await client.get(path, headers=bearer(tokens[seat])))
    action = view["legal_actions"][0]
    ok(await client.post(f"{path}/actions", json=action, headers=bearer(tokens[seat])))
    current = (await client.get(path, headers=OPERATOR)).headers["etag"]
    before = await stored(database_url)
    for route, body in (
        ("seats/1/replace", {"computer": True}),
        ("pause", None),
        ("abort", {"reason": "stale"}),
    ):
        for tag in (old, f"W/{current}"):
            refused = await client.post(
                f"{path}/{route}", json=body, headers={**OPERATOR, "If-Match": tag}
            )
            assert_problem(refused, 412, "precondition-failed")
            assert refused.headers["etag"] == current
    assert await stored(database_url) == before
    paused = await client.post(f"{path}/pause", headers={**OPERATOR, "If-Match": current})
    assert ok(paused)["paused"] is True
    resumed = await client.post(f"{path}/resume", headers={**OPERATOR, "If-Match": "*"})
    assert ok(resumed)["paused"] is False


async def test_each_interventions_answer_tags_the_if_match_of_the_next(client: Any) -> None:
    """The operator decides on the last answer, not on a view read again: a replace
    answered no ETag, so the intervention after it had no tag it might send."""
    table_id, _, view = await started(client)
    path = f"/tables/{table_id}"
    tag = (await client.get(path, headers=OPERATOR)).headers["etag"]
    # The computer takes a seat that is not to act: one that is would move at once, and
    # the table with it, before the next intervention's If-Match.
    idle = [seat for seat in range(4) if seat not in view["to_act"]]
    for route, body in (
        (f"seats/{idle[0]}/replace", {"computer": True}),
        ("pause", None),
        (f"seats/{idle[1]}/replace", {"name": "Eve"}),
        ("resume", None),
    ):
        answer = await client.post(
            f"{path}/{route}", json=body, headers={**OPERATOR, "If-Match": tag}
        )
        assert answer.status_code == 200, (route, answer.text)
        tag = answer.headers["etag"]
        assert tag == (await client.get(path, headers=OPERATOR)).headers["etag"], route


async def test_the_operator_actions_on_an_unknown_table_are_404(client: Any) -> None:
    unknown = "00000000-0000-4000-8000-000000000000"
    for path, body in (
        (f"/tables/{unknown}/abort", {"reason": "x"}),
        (f"/tables/{unknown}/seats/0/replace", {"name": "Eve"}),
        (f"/tables/{unknown}/pause", None),
        (f"/tables/{unknown}/resume", None),
    ):
        response = await client.post(path, json=body, headers=OPERATOR)
        assert_problem(response, 404, "table-not-found")


async def test_a_tournament_clock_is_given_to_every_table_it_opens(client: Any) -> None:
    tournament = ok(
        await client.post(
            "/tournaments",
            json={
                "game": "forty-five",
                "name": "Timed night",
                "clock": {"action_seconds": 30, "bank_seconds": 120},
                "on_timeout": "forfeit",
            },
            headers=OPERATOR,
        ),
        201,
    )
    opened = ok(
        await client.post(
            f"/tournaments/{tournament['id']}/tables",
            json={"players": ["Ann", "Bob", "Cy", "Di"]},
            headers=OPERATOR,
        ),
        201,
    )
    clock = opened["table"]["clock"]
    assert clock["action_seconds"] == 30 and clock["on_timeout"] == "forfeit"
    assert opened["table"]["deadline"] is not None
