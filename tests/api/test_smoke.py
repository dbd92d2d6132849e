from __future__ import annotations

import random

from tests.support.api import new_table, ok, play_to_end, seat_all


async def test_a_whole_game_over_http(client) -> None:
    table = await new_table(client)
    tokens = await seat_all(client, table["id"], 4)
    final = await play_to_end(client, table["id"], tokens, random.Random(1))
    assert final["status"] == "finished"
    page = ok(await client.get(f"/tables/{table['id']}/events"))
    assert page["version"] == final["version"]
