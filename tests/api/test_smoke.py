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
    # Past the table's version: no events, and the version a client behind it resumes at.
    beyond = ok(await client.get(f"/tables/{table['id']}/events?after={final['version'] + 5}"))
    assert beyond == {"table": table["id"], "version": final["version"], "events": []}


async def test_options_lists_every_method_of_the_path(client) -> None:
    """``/tables`` has a GET and a POST handler; OPTIONS must name both."""
    answer = await client.options("/tables")
    assert answer.status_code == 204
    assert answer.headers["allow"] == "GET, HEAD, OPTIONS, POST"
    table = await new_table(client)
    answer = await client.options(f"/tables/{table['id']}")
    assert answer.headers["allow"] == "GET, HEAD, OPTIONS"
