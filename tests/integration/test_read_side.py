"""The read side against real Postgres: score sheets, tournaments, listings, long-polls,
the projector's exactly-once checkpoints, and rebuilds (issue: read side)."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import httpx
import msgspec
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient
from psycopg_pool import AsyncConnectionPool

from projections import scoresheet, standings
from service.http.app import create_app
from service.read.catalog import PROJECTIONS
from service.settings import Settings
from service.workers.projector import Projector
from service.write.codec import event_decoder
from service.write.store import EventStore
from tests.conftest import make_settings
from tests.support import services
from tests.support.api import OPERATOR, all_events, bearer, new_table, ok, play_to_end, seat_all
from tests.support.live import serving
from tests.support.playout import choose, pick_index
from tests.support.seeding import seed_endings, seed_games


@pytest.fixture(scope="module")
def read_settings() -> Settings:
    return make_settings(services.fresh_database("read_"))


@pytest.fixture(scope="module")
async def reader(read_settings: Settings) -> AsyncIterator[AsyncTestClient[Litestar]]:
    async with AsyncTestClient(create_app(read_settings)) as client:
        yield client


async def until_projected(client: Any, path: str, version: int, timeout: float = 20) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        page = ok(await client.get(path))
        if page["sheet"]["version"] >= version:
            return page
        assert time.monotonic() < deadline, "the projector did not catch up"
        await asyncio.sleep(0.05)


async def test_scoresheet_has_a_row_per_deal_and_running_totals(reader: Any) -> None:
    table = await new_table(reader)
    tokens = await seat_all(reader, table["id"], 4)
    final = await play_to_end(reader, table["id"], tokens, random.Random(2))
    page = await until_projected(reader, f"/tables/{table['id']}/scoresheet", final["version"])
    sheet = msgspec.convert(page["sheet"], scoresheet.ScoreSheet)
    assert page["position"] > 0 and page["table_version"] == final["version"]
    assert sheet.finished and sheet.totals == final["scores"]
    assert sheet.units == [[0, 2], [1, 3]]
    assert scoresheet.check_totals(sheet)
    history = await all_events(reader, table["id"], OPERATOR)
    scored = [r for r in history if r["event"]["type"] == "hand_scored"]
    assert [row.version for row in sheet.rows] == [r["version"] for r in scored]
    assert sheet.players == ["P0", "P1", "P2", "P3"]


async def test_tournament_standings_rank_players_and_partnerships(reader: Any) -> None:
    created = ok(
        await reader.post(
            "/tournaments", json={"game": "forty-five", "name": "Autumn cup"}, headers=OPERATOR
        ),
        201,
    )
    lineups = [
        ["Ann", "Bob", "Cid", "Dee"],
        ["Ann", "Eve", "Cid", "Fay"],
        ["Bob", "Ann", "Dee", "Cid"],
    ]
    finals = []
    for i, players in enumerate(lineups):
        made = ok(
            await reader.post(
                f"/tournaments/{created['id']}/tables", json={"players": players}, headers=OPERATOR
            ),
            201,
        )
        table_id = made["table"]["id"]
        assert [s["name"] for s in made["seats"]] == players
        tokens = [s["token"] for s in made["seats"]]
        finals.append((players, await play_to_end(reader, table_id, tokens, random.Random(i))))
    tournament = ok(await reader.get(f"/tournaments/{created['id']}"))
    assert len(tournament["tables"]) == 3
    deadline = time.monotonic() + 20
    while True:
        page = ok(await reader.get(f"/tournaments/{created['id']}/standings"))
        done = [t for t in page["standings"]["tables"].values() if t["finished"]]
        if len(done) == 3:
            break
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)

    expected: dict[str, list[int]] = {}
    for players, final in finals:
        for side, seats in enumerate([[0, 2], [1, 3]]):
            won = int(seats[0] in final["winners"])
            for seat in seats:
                totals = expected.setdefault(players[seat], [0, 0, 0])
                totals[0] += 1
                totals[1] += won
                totals[2] += final["scores"][side]
    ranked = sorted(expected.items(), key=lambda kv: (-kv[1][1], -kv[1][2], kv[0]))
    got = [(e["name"], [e["played"], e["won"], e["score"]]) for e in page["standings"]["players"]]
    assert got == ranked
    pairs = {e["name"] for e in page["standings"]["partnerships"]}
    assert "Ann & Cid" in pairs and page["position"] > 0


async def test_tournaments_are_for_the_operator(reader: Any) -> None:
    body = {"game": "forty-five", "name": "x"}
    response = await reader.post("/tournaments", json=body)
    assert response.status_code == 401 and response.json()["code"] == "unauthorized"
    table = await new_table(reader)
    token = (await seat_all(reader, table["id"], 4))[0]
    response = await reader.post("/tournaments", json=body, headers=bearer(token))
    assert response.status_code == 403 and response.json()["code"] == "operator-only"


async def test_listing_filters_and_pages_with_a_cursor(reader: Any) -> None:
    mine = [await new_table(reader) for _ in range(5)]
    await reader.post(f"/tables/{mine[0]['id']}/seats/2", json={"name": "Zed Unique"})
    found, cursor = [], None
    while True:
        url = "/tables?game=forty-five&status=waiting&limit=2" + (
            f"&cursor={cursor}" if cursor else ""
        )
        page = ok(await reader.get(url))
        assert len(page["tables"]) <= 2
        found += [t["id"] for t in page["tables"]]
        cursor = page["next"]
        if cursor is None:
            break
    assert {t["id"] for t in mine} <= set(found)
    assert len(found) == len(set(found)), "a table listed twice across pages"
    by_player = ok(await reader.get("/tables?player=Zed%20Unique"))
    assert [t["id"] for t in by_player["tables"]] == [mine[0]["id"]]
    assert ok(await reader.get("/tables?status=finished&game=forty-five"))["tables"] is not None
    bad = await reader.get("/tables?cursor=!!!")
    assert bad.status_code == 400 and bad.json()["code"] == "malformed-request"


async def test_the_player_filter_pages_newest_first_and_follows_the_seats(reader: Any) -> None:
    """A name's tables are read from its own rows (migration 0017), kept with the seats:
    a page stops at its end however rare the name, and a seat handed on drops it."""
    tables = [await new_table(reader) for _ in range(3)]
    for table in tables:
        seat = f"/tables/{table['id']}/seats/0"
        ok(await reader.post(seat, json={"name": "Yves Paged"}), 201)
    first = ok(await reader.get("/tables?player=Yves%20Paged&limit=2"))
    rest = ok(await reader.get(f"/tables?player=Yves%20Paged&limit=2&cursor={first['next']}"))
    listed = [t["id"] for t in first["tables"] + rest["tables"]]
    assert listed == [t["id"] for t in reversed(tables)] and rest["next"] is None
    replace = f"/tables/{tables[0]['id']}/seats/0/replace"
    ok(await reader.post(replace, json={"name": "Zoe Paged"}, headers=OPERATOR))
    after = [t["id"] for t in ok(await reader.get("/tables?player=Yves%20Paged"))["tables"]]
    assert after == [tables[2]["id"], tables[1]["id"]]
    now = [t["id"] for t in ok(await reader.get("/tables?player=Zoe%20Paged"))["tables"]]
    assert now == [tables[0]["id"]]
    assert ok(await reader.get("/tables?player=Nobody%20At%20All"))["tables"] == []


async def test_long_poll_answers_when_the_table_moves_and_times_out_with_304(
    read_settings: Settings,
) -> None:
    """Over a real socket: an in-process transport would serialise the two requests."""
    async with (
        serving(create_app(read_settings)) as base,
        httpx.AsyncClient(base_url=base, timeout=60) as http,
    ):
        table = await new_table(http)
        tokens = await seat_all(http, table["id"], 4)
        first = await http.get(f"/tables/{table['id']}")
        tag = first.headers["etag"]
        assert first.headers["cache-control"] == "no-cache"
        idle = await http.get(f"/tables/{table['id']}?wait=1", headers={"If-None-Match": tag})
        assert idle.status_code == 304 and idle.headers["etag"] == tag

        async def act_soon() -> None:
            await asyncio.sleep(0.3)
            seat = first.json()["to_act"][0]
            answer = await http.post(
                f"/tables/{table['id']}/actions",
                json={"type": "pass"},
                headers=bearer(tokens[seat]),
            )
            ok(answer)

        actor = asyncio.create_task(act_soon())
        started = time.monotonic()
        moved = await http.get(f"/tables/{table['id']}?wait=30", headers={"If-None-Match": tag})
        await actor
    assert moved.status_code == 200
    assert moved.json()["version"] > first.json()["version"]
    assert time.monotonic() - started < 30, "the long-poll waited out its timeout"


async def test_a_long_poll_naming_any_version_is_answered_at_once(
    read_settings: Settings,
) -> None:
    """``If-None-Match: *`` names every version, so the table moving cannot end a wait on
    it: the 304 comes at once, not after ``wait`` seconds, from the way that reads first
    and from the way that parks before it reads (its version the one last heard). Over
    a real socket, where a request that parks can be given up on."""
    async with (
        serving(create_app(read_settings)) as base,
        httpx.AsyncClient(base_url=base, timeout=90) as http,
    ):
        table = await new_table(http)
        await seat_all(http, table["id"], 4)
        for _ in range(2):
            polled = await asyncio.wait_for(
                http.get(f"/tables/{table['id']}?wait=60", headers={"If-None-Match": "*"}), 10
            )
            assert polled.status_code == 304 and polled.headers["etag"]


async def _until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.01)


@dataclass
class Heard:
    """A server on one app, and a seated table whose version the app has heard announced."""

    app: Litestar
    http: httpx.AsyncClient
    table_id: str
    tokens: list[str]
    first: httpx.Response  # the table's view then

    @property
    def path(self) -> str:
        return f"/tables/{self.table_id}"

    def poll(self, headers: dict[str, str], wait: int = 30) -> asyncio.Task[httpx.Response]:
        return asyncio.create_task(self.http.get(f"{self.path}?wait={wait}", headers=headers))

    async def parked(self) -> None:
        watcher = self.app.state.watcher
        await _until(lambda: watcher.waiting_for(self.table_id) > 0, "the poll never parked")

    def count_loads(self, monkeypatch: pytest.MonkeyPatch) -> list[str]:
        """The tables the app's service loads from now on."""
        reads: list[str] = []
        service = self.app.state.service
        load = service.load

        async def counted(table_id: str, **options: Any) -> Any:
            reads.append(table_id)
            return await load(table_id, **options)

        monkeypatch.setattr(service, "load", counted)
        return reads


@pytest.fixture
async def heard(read_settings: Settings) -> AsyncIterator[Heard]:
    app = create_app(read_settings)
    async with (
        serving(app) as base,
        httpx.AsyncClient(base_url=base, timeout=60) as http,
    ):
        table = await new_table(http)
        tokens = await seat_all(http, table["id"], 4)
        first = await http.get(f"/tables/{table['id']}")
        versions = app.state.watcher.versions
        await _until(
            lambda: versions.get(table["id"]) == first.json()["version"],
            "the seating was never announced",
        )
        yield Heard(app, http, table["id"], tokens, first)


async def test_a_poll_holding_the_version_last_announced_parks_before_it_reads(
    heard: Heard, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long-poll whose ETag names the version this process last heard announced waits
    without reading the table first; the commit that moves the table wakes it, and what
    it answers is read after the wake: the command's version, never the one it held."""
    reads = heard.count_loads(monkeypatch)
    poll = heard.poll({"If-None-Match": heard.first.headers["etag"]})
    await heard.parked()
    assert reads == []  # parked, nothing read
    mover = bearer(heard.tokens[heard.first.json()["to_act"][0]])
    posted = await heard.http.post(f"{heard.path}/actions", json={"type": "pass"}, headers=mover)
    moved = await poll
    assert moved.status_code == 200
    assert moved.json()["version"] == ok(posted)["version"]
    assert heard.table_id in reads


async def test_a_commit_wakes_the_polls_of_its_own_process_before_it_is_announced(
    heard: Heard, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process that commits knows the new version at once: a poll parked on it wakes
    without waiting for the announcement to come back through Postgres, and the mover's
    next poll, sent with the version its command answered, parks without a read."""
    monkeypatch.setattr(heard.app.state.store.notifier, "delay", 3600)  # no announcements
    poll = heard.poll({"If-None-Match": heard.first.headers["etag"]})
    await heard.parked()
    mover = bearer(heard.tokens[heard.first.json()["to_act"][0]])
    posted = await heard.http.post(f"{heard.path}/actions", json={"type": "pass"}, headers=mover)
    answer = ok(posted)
    assert heard.app.state.watcher.versions[heard.table_id] == answer["version"]
    # Unannounced, the poll would wait for its re-read, five seconds on.
    moved = await asyncio.wait_for(poll, timeout=4)
    assert moved.json()["version"] == answer["version"]
    reads = heard.count_loads(monkeypatch)
    next_poll = heard.poll({**mover, "If-None-Match": posted.headers["etag"]}, wait=1)
    await heard.parked()
    assert reads == []  # parked at once: the version it holds is known here
    assert (await next_poll).status_code == 304


async def test_a_typical_seat_view_stays_under_4_kb(reader: Any) -> None:
    """Measured over a whole game: every seat's view after every command."""
    table = await new_table(reader)
    tokens = await seat_all(reader, table["id"], 4)
    rng = random.Random(4)
    sizes = []
    view = ok(await reader.get(f"/tables/{table['id']}"))
    while view["status"] == "playing":
        seat = view["to_act"][0]
        mine = await reader.get(f"/tables/{table['id']}", headers=bearer(tokens[seat]))
        assert mine.headers["cache-control"] == "private, no-cache"
        sizes.append(len(mine.content))
        actions = mine.json()["legal_actions"]
        command = choose(actions[pick_index(actions, rng)], rng)
        view = ok(
            await reader.post(
                f"/tables/{table['id']}/actions", json=command, headers=bearer(tokens[seat])
            )
        )["table"]
    sizes.sort()
    print(f"seat view bytes: median {sizes[len(sizes) // 2]}, max {sizes[-1]}")
    assert sizes[-1] < 4096


# --- the projector: exactly once, killed and restarted, rebuilt --------------------------


def expected_docs(events_by_table: dict[str, list[Any]], tournament: str | None) -> dict[str, Any]:
    """The read models computed from scratch by the pure folds, in the test."""
    sheets = {}
    board = standings.Standings(tournament=tournament or "")
    for table_id, stored in events_by_table.items():
        sheet = None
        decode = event_decoder("forty-five").decode
        for record in stored:
            event = decode(record.data)
            sheet = scoresheet.fold(sheet, event, record.version, record.position)
            board = standings.fold(board, table_id, event, record.position)
        sheets[table_id] = sheet
    return {"sheets": sheets, "standings": board}


async def stored_docs(pool: AsyncConnectionPool[Any], projection: str) -> dict[str, Any]:
    async with pool.connection() as conn:
        cur = await conn.execute(
            "SELECT key, doc::text FROM read_models WHERE projection = %s", (projection,)
        )
        kind = PROJECTIONS[projection].doc_type
        return {key: msgspec.json.decode(doc, type=kind) for key, doc in await cur.fetchall()}


async def test_a_killed_projector_restarts_without_double_counting_or_missing() -> None:
    database_url = services.fresh_database("project_")
    tournament = "00000000-0000-4000-8000-000000000001"
    table_ids = await seed_games(database_url, 40, tournament=tournament)
    env = {**os.environ, "CARDROOM_DATABASE_URL": database_url}
    async with AsyncConnectionPool(database_url, kwargs={"autocommit": True}) as pool:
        store = EventStore(pool)
        total = 0
        for table_id in table_ids:
            total += len(await store.read_stream(table_id, 0, 10_000))
        runner = subprocess.Popen([sys.executable, "-m", "service.tools.cli", "project"], env=env)
        try:
            while True:  # kill it part-way through the backlog
                done = (await store.checkpoint("projection:scoresheet"))[1]
                assert runner.poll() is None
                if done > 0:
                    break
                await asyncio.sleep(0.001)
            runner.send_signal(signal.SIGKILL)
            runner.wait()
            last = (await store.checkpoint("projection:scoresheet"))[1]
            heads = [await store.read_stream(t, 0, 10_000) for t in table_ids]
            assert last < max(e.position for events in heads for e in events), "killed too late"
            runner = subprocess.Popen(
                [sys.executable, "-m", "service.tools.cli", "project"], env=env
            )
            deadline = time.monotonic() + 60
            head = max(e.position for events in heads for e in events)
            while (await store.checkpoint("projection:standings"))[1] < head or (
                await store.checkpoint("projection:scoresheet")
            )[1] < head:
                assert time.monotonic() < deadline
                await asyncio.sleep(0.05)
        finally:
            runner.terminate()
            runner.wait()
        by_table = {t: await store.read_stream(t, 0, 10_000) for t in table_ids}
        assert sum(len(v) for v in by_table.values()) == total
        expected = expected_docs(by_table, tournament)
        assert await stored_docs(pool, "scoresheet") == expected["sheets"]
        assert (await stored_docs(pool, "standings"))[tournament] == expected["standings"]


async def live_and_rebuilt(
    pool: AsyncConnectionPool[Any], batch: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Every projection's documents run live to the head, ``batch`` events a step, and
    then rebuilt from scratch."""
    projector = Projector(pool, batch=batch)
    while await projector.step():  # every projection, one read of the store a step
        pass
    live = {name: await stored_docs(pool, name) for name in PROJECTIONS}
    for projection in PROJECTIONS.values():
        events, _ = await projector.rebuild(projection)
        assert events > 0
    rebuilt = {name: await stored_docs(pool, name) for name in PROJECTIONS}
    return live, rebuilt


async def test_a_rebuilt_projection_equals_the_live_one() -> None:
    database_url = services.fresh_database("rebuild_")
    tournament = "00000000-0000-4000-8000-000000000002"
    await seed_games(database_url, 15, tournament=tournament)
    async with AsyncConnectionPool(database_url, kwargs={"autocommit": True}) as pool:
        live, rebuilt = await live_and_rebuilt(pool, batch=97)
    assert rebuilt == live
    assert live["scoresheet"] and live["standings"]


async def test_a_projection_behind_the_other_catches_up_in_their_shared_steps() -> None:
    """One step reads the store once for every projection, from the checkpoint furthest
    behind: the one behind folds the batch, the one ahead keeps its documents."""
    database_url = services.fresh_database("behind_")
    tournament = "00000000-0000-4000-8000-000000000003"
    await seed_games(database_url, 6, tournament=tournament)
    async with AsyncConnectionPool(database_url, kwargs={"autocommit": True}) as pool:
        live, _ = await live_and_rebuilt(pool, batch=500)
        behind = PROJECTIONS[standings.NAME]
        async with pool.connection() as conn:  # as if the standings were new: from zero
            await conn.execute("DELETE FROM read_models WHERE projection = %s", (behind.name,))
            await conn.execute(
                "DELETE FROM consumer_checkpoints WHERE name = %s", (behind.checkpoint_name,)
            )
        projector = Projector(pool, batch=53)
        while await projector.step():
            pass
        again = {name: await stored_docs(pool, name) for name in PROJECTIONS}
    assert again == live


async def test_tables_ended_every_way_project_rebuild_and_list_by_status() -> None:
    """DESIGN 10's endings through the projector: the documents are the pure folds from
    scratch, a rebuild equals the live run, and the listing filters on the status."""
    database_url = services.fresh_database("endings_")
    tournament = "00000000-0000-4000-8000-000000000003"
    ended = await seed_endings(database_url, tournament)
    counted = sorted(ended[how] for how in ("played", "resigned", "forfeit"))
    async with AsyncConnectionPool(database_url, kwargs={"autocommit": True}) as pool:
        live, rebuilt = await live_and_rebuilt(pool, batch=7)
        store = EventStore(pool)
        by_table = {t: await store.read_stream(t, 0, 10_000) for t in ended.values()}
    assert rebuilt == live
    expected = expected_docs(by_table, tournament)
    assert live["scoresheet"] == expected["sheets"]
    assert live["standings"][tournament] == expected["standings"]
    assert sorted(live["standings"][tournament].tables) == counted
    reasons = {how: live["scoresheet"][t].result.reason for how, t in ended.items()}
    assert reasons == {how: how for how in ended}

    async with AsyncTestClient(create_app(make_settings(database_url))) as client:
        listed = {
            status: ok(await client.get(f"/tables?status={status}&tournament={tournament}"))
            for status in ("aborted", "finished")
        }
        sheet = ok(await client.get(f"/tables/{ended['aborted']}/scoresheet"))["sheet"]
    assert [t["id"] for t in listed["aborted"]["tables"]] == [ended["aborted"]]
    assert listed["aborted"]["tables"][0]["status"] == "aborted"
    assert sorted(t["id"] for t in listed["finished"]["tables"]) == counted
    assert sheet["result"] == {"reason": "aborted", "winners": [], "losers": []}


@pytest.mark.parametrize(
    ("game", "seats"),
    [
        ("forty-five", 4),
        ("pitch", 7),
        ("pinochle", 5),
        ("pinochle-three", 3),
        ("pinochle-widow", 3),
        ("pinochle-four", 4),
        ("reserve-bridge", 2),
    ],
)
async def test_seat_views_of_every_game_stay_under_4_kb(reader: Any, game: str, seats: int) -> None:
    """Mobile apps poll seat views: measured over 300 commands of each game."""
    table = await new_table(reader, game, seats)
    tokens = await seat_all(reader, table["id"], seats)
    rng = random.Random(12)
    sizes = []
    view = ok(await reader.get(f"/tables/{table['id']}"))
    for _ in range(300):
        if view["status"] != "playing":
            break
        seat = rng.choice(view["to_act"])
        mine = await reader.get(f"/tables/{table['id']}", headers=bearer(tokens[seat]))
        sizes.append(len(mine.content))
        actions = mine.json()["legal_actions"]
        command = choose(actions[pick_index(actions, rng)], rng)
        answer = await reader.post(
            f"/tables/{table['id']}/actions", json=command, headers=bearer(tokens[seat])
        )
        view = ok(answer)["table"]
    sizes.sort()
    print(f"{game}: seat view bytes median {sizes[len(sizes) // 2]}, max {sizes[-1]}")
    assert sizes[-1] < 4096
