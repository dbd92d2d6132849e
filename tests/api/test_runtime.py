"""A serving process sets up the garbage collector once started (service.runtime)."""

from __future__ import annotations

import gc

from litestar.testing import AsyncTestClient

from service.http.app import create_app
from service.runtime import YOUNG_THRESHOLD
from service.settings import Settings


async def test_a_started_app_freezes_what_start_up_made_and_collects_the_young_less_often(
    settings: Settings,
) -> None:
    gc.unfreeze()
    gc.set_threshold(700, 10, 10)  # the interpreter's defaults
    app = create_app(settings)
    assert gc.get_freeze_count() == 0
    async with AsyncTestClient(app) as client:
        assert (await client.get("/healthz")).status_code == 200
        # The app, its routes and schemas are out of the collector's reach...
        assert gc.get_freeze_count() > 10_000
        # ...and the young generation is collected less often; cycles still are.
        assert gc.get_threshold()[0] == YOUNG_THRESHOLD
        assert gc.isenabled()
