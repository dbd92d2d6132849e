"""Replay: the operator's view of a table at any version is the fold of its first N events."""

from __future__ import annotations

import msgspec
import pytest
from httpx import AsyncClient
from litestar import Litestar

from domain import table as tables
from service.write.codec import event_decoder
from tests.support.api import OPERATOR, bearer, ok
from tests.support.audit import Player, export, lines_of, new_game, play


@pytest.mark.parametrize("game", ["pinochle", "forty-five"])
async def test_replay_at_every_version_is_the_fold_of_the_first_events(
    client: AsyncClient, app: Litestar, game: str
) -> None:
    """A whole two-deal chips table, and the first 150-odd versions of a Forty-Five game
    (every step is a request folding the table afresh: the cost grows with the square)."""
    table_id, seats, options = await new_game(client, game)
    player = Player(game, seats, options, seed=4)
    await play(client, app.state.service, table_id, player, until=lambda t: t.version >= 150)
    header, *lines = lines_of(await export(client, table_id))
    decode = event_decoder(game).decode
    events = [decode(msgspec.json.encode(line["data"])) for line in lines]
    for version in range(1, len(events) + 1):
        step = ok(
            await client.get(
                f"/tables/{table_id}/replay", params={"version": version}, headers=OPERATOR
            )
        )
        folded = tables.fold(events[:version])
        assert step["table"] == msgspec.to_builtins(tables.view(folded, "operator")), version
        assert (step["version"], step["latest"]) == (version, header["version"])
        record = step["event"]
        assert record["event"] == msgspec.to_builtins(events[version - 1])
        assert (record["version"], record["actor"]) == (version, lines[version - 1]["actor"])
    live = ok(await client.get(f"/tables/{table_id}", headers=OPERATOR))
    assert step["table"] == live


async def test_replay_is_for_the_operator_and_within_the_table_versions(
    client: AsyncClient,
) -> None:
    table = ok(await client.post("/tables", json={"game": "pitch", "seats": 2}), 201)
    url = f"/tables/{table['id']}/replay"
    granted = ok(await client.post(f"/tables/{table['id']}/seats/0", json={"name": "Ann"}), 201)
    assert (await client.get(url, params={"version": 1})).status_code == 401
    as_seat = await client.get(url, params={"version": 1}, headers=bearer(granted["token"]))
    assert as_seat.status_code == 403 and as_seat.json()["code"] == "operator-only"
    first = ok(await client.get(url, params={"version": 1}, headers=OPERATOR))
    assert (
        first["table"]["status"] == "waiting" and first["event"]["event"]["type"] == "table_created"
    )
    assert first["latest"] == 2
    beyond = await client.get(url, params={"version": 3}, headers=OPERATOR)
    assert beyond.status_code == 404 and beyond.json()["code"] == "version-not-found"
    assert beyond.json()["context"] == {"version": 2}
    for bad in ({"version": 0}, {"version": "x"}, {}):
        refused = await client.get(url, params=bad, headers=OPERATOR)
        assert refused.status_code == 400, bad
    unknown = await client.get(
        "/tables/00000000-0000-4000-8000-000000000000/replay",
        params={"version": 1},
        headers=OPERATOR,
    )
    assert unknown.status_code == 404 and unknown.json()["code"] == "table-not-found"
