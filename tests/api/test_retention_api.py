"""Retention over HTTP: a table nobody filled, once expired, says so everywhere and takes
nothing more (DESIGN 12). The expiry itself runs as the sweeper runs it, through the
app's own service; its timing is tested in tests/integration/test_retention.py."""

from __future__ import annotations

from functools import partial

from httpx import AsyncClient
from litestar import Litestar

from service.audit.render import render
from service.audit.verify import verify_lines
from service.write import interventions
from tests.support.api import OPERATOR, all_events, bearer, new_table, ok
from tests.support.audit import export, nonconforming_lines
from tests.support.refusals import assert_problem, stored


async def test_an_expired_table_lists_refuses_seats_and_commands_and_verifies(
    client: AsyncClient, app: Litestar, database_url: str
) -> None:
    table = await new_table(client, game="pitch", seats=3)
    table_id = table["id"]
    ann = ok(await client.post(f"/tables/{table_id}/seats/0", json={"name": "Ann"}), 201)
    expire = partial(interventions.expire_waiting, app.state.service, table_id)
    assert client.blocking_portal.call(expire) is not None  # type: ignore[attr-defined]

    view = ok(await client.get(f"/tables/{table_id}"))
    assert view["status"] == "expired" and view["legal_actions"] == []
    last = (await all_events(client, table_id))[-1]
    assert last["event"] == {"type": "table_expired"} and last["actor"] == "retention"
    listed = ok(await client.get("/tables?status=expired&game=pitch"))
    assert table_id in [t["id"] for t in listed["tables"]]
    waiting = ok(await client.get("/tables?status=waiting&game=pitch"))
    assert table_id not in [t["id"] for t in waiting["tables"]]

    before = await stored(database_url)
    late = await client.post(f"/tables/{table_id}/seats/1", json={"name": "Bob"})
    assert_problem(late, 409, "table-expired")
    leave = await client.post(
        f"/tables/{table_id}/actions", json={"type": "leave"}, headers=bearer(ann["token"])
    )
    assert_problem(leave, 409, "table-expired")
    abort = await client.post(f"/tables/{table_id}/abort", json={"reason": "x"}, headers=OPERATOR)
    assert_problem(abort, 409, "table-expired")
    assert await stored(database_url) == before

    document = await export(client, table_id)
    assert nonconforming_lines(document) == []
    report = verify_lines(document.splitlines())
    assert report.ok, render(report)
    assert report.header is not None and report.header.status == "expired"
