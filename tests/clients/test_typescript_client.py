"""The TypeScript example (clients/src/play.ts, compiled with ``tsc --strict`` against the
types generated from the committed spec) plays a whole game against a real server."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import AsyncIterator

import pytest

from service.http.app import create_app
from tests.conftest import make_settings
from tests.support import services
from tests.support.generated import CLIENTS, require
from tests.support.live import serving

PROGRAM = CLIENTS / "dist" / "src" / "play.js"
NODE = shutil.which("node")

require(PROGRAM.exists() and NODE is not None, "the compiled TypeScript example (with node)")


@pytest.fixture(scope="module")
async def base_url() -> AsyncIterator[str]:
    async with serving(create_app(make_settings(services.fresh_database("ts_")))) as url:
        yield url


@pytest.mark.parametrize(("game", "seats"), [("pitch", 3), ("pinochle-three", 3)])
async def test_the_typescript_example_plays_a_whole_game(
    base_url: str, game: str, seats: int
) -> None:
    assert NODE is not None
    process = await asyncio.create_subprocess_exec(
        NODE,
        str(PROGRAM),
        base_url,
        game,
        str(seats),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=300)
    assert process.returncode == 0, err.decode()
    final = json.loads(out.decode())
    assert final["game"] == game and final["winners"]
