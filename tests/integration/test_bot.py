"""``cardroom bot`` against a real server: whole games from legal_actions, over HTTP.

The bots long-poll their views and send commands with If-Match and an Idempotency-Key;
two bots sharing one seat race each other on every command of that seat, so the losers'
412s and 409s are answered by reading the table again.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator

import httpx
import pytest

from service.http.app import create_app
from service.tools import bot
from tests.conftest import make_settings
from tests.support import services
from tests.support.live import serving


@pytest.fixture(scope="module")
async def base_url() -> AsyncIterator[str]:
    async with serving(create_app(make_settings(services.fresh_database("bot_")))) as url:
        yield url


async def test_play_all_finishes_pitch_tables(base_url: str) -> None:
    summaries = await bot.play_all(base_url, "pitch", 3, options={}, tables=2, seed=7)
    assert len(summaries) == 2 and summaries[0]["id"] != summaries[1]["id"]
    async with httpx.AsyncClient(base_url=base_url) as http:
        for summary in summaries:
            assert summary["game"] == "pitch" and summary["winners"]
            table = (await http.get(f"/tables/{summary['id']}")).json()
            assert table["status"] == "finished" and table["version"] == summary["version"]
            page = (await http.get(f"/tables/{summary['id']}/events?limit=1000")).json()
            actors = {record["actor"] for record in page["events"]}
            assert {"seat:0", "seat:1", "seat:2"} <= actors


async def test_seat_bots_finish_a_pinochle_table_even_racing_for_one_seat(base_url: str) -> None:
    async with httpx.AsyncClient(base_url=base_url) as http:
        body = {"game": "pinochle", "seats": 3, "options": {"deals": 2}}
        table = (await http.post("/tables", json=body)).json()["id"]
        tokens = [await bot.take_seat(http, table, seat, f"P{seat}") for seat in (1, 2)]
    seat_0 = bot.play_seat(base_url, table, 0, name="P0", token=None, seed=1, delay=0)
    others = [
        bot.play_seat(base_url, table, seat, name="-", token=token, seed=seat, delay=0)
        for seat, token in ((1, tokens[0]), (2, tokens[1]), (2, tokens[1]))  # seat 2 twice
    ]
    views = await asyncio.wait_for(asyncio.gather(seat_0, *others), timeout=120)
    assert {view["status"] for view in views} == {"finished"}
    assert len({view["version"] for view in views}) == 1
    assert [view["you"] for view in views] == [0, 1, 2, 2]
    assert views[0]["seats"][0]["name"] == "P0"


async def test_the_command_plays_a_whole_forty_five_game(base_url: str) -> None:
    command = [sys.executable, "-m", "service.tools.cli", "bot", "--url", base_url, "--seed", "3"]
    command += ["--play-all", "--game", "forty-five", "--seats", "4"]
    process = await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=300)
    assert process.returncode == 0, err.decode()
    summary = json.loads(out.decode().strip())
    assert summary["game"] == "forty-five" and summary["winners"]
    assert summary["commands"] > 20
