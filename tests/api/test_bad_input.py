"""Bad input gets the right status and problem code, and appends nothing (DESIGN 6)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import psycopg
import pytest
from httpx import Response

from domain.cards import standard_pack
from service.release import VIEW_RELEASE
from service.write.handler import etag
from tests.domain.test_forty_five_rules import EXAMPLE_HANDS
from tests.support.api import OPERATOR, bearer, new_table, ok, seat_all
from tests.support.decks import forty_five_order, stack_deck
from tests.support.refusals import assert_problem, stored

N, E, S, W = 0, 1, 2, 3


class Table:
    def __init__(self, client: Any, table_id: str, tokens: list[str]) -> None:
        self.client = client
        self.id = table_id
        self.tokens = tokens

    async def act(self, seat: int, command: dict[str, Any], **headers: str) -> Response:
        return await self.client.post(  # type: ignore[no-any-return]
            f"/tables/{self.id}/actions",
            json=command,
            headers={**bearer(self.tokens[seat]), **headers},
        )

    async def view(self, seat: int) -> dict[str, Any]:
        return ok(await self.client.get(f"/tables/{self.id}", headers=bearer(self.tokens[seat])))  # type: ignore[no-any-return]

    async def stored_events(self) -> int:
        page = ok(await self.client.get(f"/tables/{self.id}/events?limit=1000", headers=OPERATOR))
        return len(page["events"])


@pytest.fixture
async def table(client: Any) -> AsyncIterator[Table]:
    """West deals the RULES 1.9 example hands; North to speak."""
    deck = stack_deck(EXAMPLE_HANDS, forty_five_order(W), standard_pack())
    created = await new_table(client, first_dealer=W, deals=[{"deck": deck}])
    yield Table(client, created["id"], await seat_all(client, created["id"], 4))


async def refused(
    table: Table, attempt: Callable[[], Awaitable[Response]], status: int, code: str
) -> Response:
    """``attempt`` is refused with ``status``/``code`` and the stream does not move."""
    before = await table.stored_events()
    response = await attempt()
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    problem = response.json()
    assert problem["code"] == code and problem["status"] == status
    assert problem["type"].endswith("/" + code)
    assert await table.stored_events() == before, "a refused request appended events"
    return response


async def to_play(table: Table) -> None:
    """North bids 20, the others pass, spades trump, nobody exchanges: East leads."""
    for seat, command in [
        (N, {"type": "bid", "amount": 20}),
        (E, {"type": "pass"}),
        (S, {"type": "pass"}),
        (W, {"type": "pass"}),
        (N, {"type": "name_trump", "suit": "S"}),
        *[(seat, {"type": "exchange", "discard": []}) for seat in (N, E, S, W)],
    ]:
        ok(await table.act(seat, command))


async def test_out_of_turn_is_refused(table: Table) -> None:
    await refused(table, lambda: table.act(E, {"type": "pass"}), 409, "not-your-turn")


async def test_a_card_not_held_is_refused(table: Table) -> None:
    await to_play(table)
    await refused(table, lambda: table.act(E, {"type": "play", "card": "AH"}), 409, "card-not-held")


async def test_a_renege_is_refused(table: Table) -> None:
    """RULES 1.6: South holds clubs and must follow a club lead (or trump)."""
    await to_play(table)
    ok(await table.act(E, {"type": "play", "card": "2C"}))
    await refused(
        table, lambda: table.act(S, {"type": "play", "card": "KH"}), 409, "must-follow-suit"
    )


async def test_withholding_an_unprotected_trump_is_refused(table: Table) -> None:
    """RULES 1.6: West's AS is not protected against the 7S lead."""
    await to_play(table)
    ok(await table.act(E, {"type": "play", "card": "7S"}))
    ok(await table.act(S, {"type": "play", "card": "KH"}))  # 5S is protected: any card
    await refused(
        table, lambda: table.act(W, {"type": "play", "card": "2H"}), 409, "must-play-trump"
    )


async def test_a_command_of_another_phase_is_refused(table: Table) -> None:
    await to_play(table)
    await refused(
        table, lambda: table.act(E, {"type": "bid", "amount": 25}), 409, "not-allowed-now"
    )


async def test_a_bid_that_is_too_low_is_refused(table: Table) -> None:
    ok(await table.act(N, {"type": "bid", "amount": 15}))
    await refused(table, lambda: table.act(E, {"type": "bid", "amount": 10}), 409, "bid-too-low")
    await refused(
        table, lambda: table.act(E, {"type": "bid", "amount": 17}), 409, "bid-not-allowed"
    )


async def post_body(table: Table, body: bytes) -> Response:
    """North sends ``body`` as a command, as it is."""
    return await table.client.post(  # type: ignore[no-any-return]
        f"/tables/{table.id}/actions",
        content=body,
        headers={**bearer(table.tokens[N]), "content-type": "application/json"},
    )


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(b"{not json", id="not JSON"),
        pytest.param(b'{"type": "shout"}', id="unknown command type"),
        pytest.param(b'{"type": "bid"}', id="missing field"),
        pytest.param(b'{"type": "bid", "amount": 10, "extra": 1}', id="unknown field"),
        pytest.param(b'{"type": "bid", "amount": 1000000000000}', id="out of range"),
        pytest.param(b'{"type": "play", "card": "1Z"}', id="not a card"),
        pytest.param(b"", id="no body"),
    ],
)
async def test_a_malformed_body_is_refused(table: Table, body: bytes) -> None:
    await refused(table, lambda: post_body(table, body), 400, "malformed-request")


@pytest.mark.parametrize(
    ("body", "key", "message"),
    [
        pytest.param(b'{"type": "play", "card": 5}', "card", "Expected `str`, got `int`"),
        pytest.param(b'{"type": "bid", "amount": "10"}', "amount", "Expected `int`, got `str`"),
        pytest.param(b'{"type": "bid"}', "data", "Object missing required field `amount`"),
        pytest.param(b"[]", "data", "Expected `object`, got `array`"),
    ],
)
async def test_a_body_refused_by_the_schema_names_the_field_at_fault(
    table: Table, body: bytes, key: str, message: str
) -> None:
    """The strict check says which field is wrong (``data``: the body as a whole)."""

    refusal = await refused(table, lambda: post_body(table, body), 400, "malformed-request")
    problem = refusal.json()
    assert [(e["key"], e["message"]) for e in problem["errors"]] == [(key, message)]


async def test_a_missing_body_is_named_as_missing(table: Table) -> None:
    response = await table.client.post(
        f"/tables/{table.id}/actions",
        headers={**bearer(table.tokens[N]), "content-type": "application/json"},
    )
    assert response.status_code == 400
    assert response.json()["detail"] == "this operation takes a JSON body: none was sent"


@pytest.mark.parametrize("body", [b'{"reason": "lunch"}', b"[]", b"lunch"])
async def test_a_body_sent_to_an_operation_that_takes_none_is_refused(
    table: Table, body: bytes
) -> None:
    async def pause() -> Response:
        return await table.client.post(  # type: ignore[no-any-return]
            f"/tables/{table.id}/pause",
            content=body,
            headers={**OPERATOR, "content-type": "application/json"},
        )

    await refused(table, pause, 400, "malformed-request")
    view = ok(await table.client.get(f"/tables/{table.id}", headers=OPERATOR))
    assert view["paused"] is False
    paused = await table.client.post(f"/tables/{table.id}/pause", json={}, headers=OPERATOR)
    assert ok(paused)["paused"] is True, "an empty object is no body"


@pytest.mark.parametrize(
    ("headers", "status"),
    [({"content-type": "text/plain"}, 415), ({"content-encoding": "gzip"}, 415), ({}, 415)],
    ids=["text", "gzip", "no-type"],
)
async def test_the_empty_object_sent_for_no_body_is_json_too(
    table: Table, headers: dict[str, str], status: int
) -> None:
    async def pause() -> Response:
        return await table.client.post(  # type: ignore[no-any-return]
            f"/tables/{table.id}/pause", content=b"{}", headers={**OPERATOR, **headers}
        )

    await refused(table, pause, status, "unsupported-media-type")
    view = ok(await table.client.get(f"/tables/{table.id}", headers=OPERATOR))
    assert view["paused"] is False


async def test_a_token_of_another_table_is_the_wrong_seat(client: Any, table: Table) -> None:
    other = await new_table(client)
    other_tokens = await seat_all(client, other["id"], 4)
    stranger = Table(client, table.id, other_tokens)
    await refused(table, lambda: stranger.act(N, {"type": "pass"}), 403, "wrong-seat")
    response = await client.get(f"/tables/{table.id}", headers=bearer(other_tokens[N]))
    assert response.status_code == 403


async def test_the_operator_does_not_play(table: Table) -> None:
    async def as_operator() -> Response:
        return await table.client.post(  # type: ignore[no-any-return]
            f"/tables/{table.id}/actions", json={"type": "pass"}, headers=OPERATOR
        )

    await refused(table, as_operator, 403, "wrong-seat")


@pytest.mark.parametrize(
    ("headers", "code"),
    [
        ({}, "unauthorized"),
        (bearer("not-a-token"), "unauthorized"),
        ({"Authorization": "Basic abc"}, "unauthorized"),
    ],
)
async def test_acting_needs_a_valid_seat_token(
    table: Table, headers: dict[str, str], code: str
) -> None:
    async def post() -> Response:
        return await table.client.post(  # type: ignore[no-any-return]
            f"/tables/{table.id}/actions", json={"type": "pass"}, headers=headers
        )

    await refused(table, post, 401, code)


async def test_a_stale_if_match_is_refused_with_the_current_etag(table: Table) -> None:
    first = ok(await table.client.get(f"/tables/{table.id}", headers=bearer(table.tokens[N])))
    response = await table.client.get(f"/tables/{table.id}", headers=bearer(table.tokens[N]))
    tag = response.headers["etag"]
    ok(await table.act(N, {"type": "bid", "amount": 5}, **{"If-Match": tag}))
    stale = await refused(
        table,
        lambda: table.act(E, {"type": "pass"}, **{"If-Match": tag}),
        412,
        "precondition-failed",
    )
    assert stale.headers["etag"] == etag(first["version"] + 1, E)


async def test_a_weak_if_match_never_matches_the_current_view(table: Table) -> None:
    """If-Match compares strongly (RFC 9110 §13.1.1): the current tag made weak fails."""
    response = await table.client.get(f"/tables/{table.id}", headers=bearer(table.tokens[N]))
    weak = f"W/{response.headers['etag']}"
    await refused(
        table,
        lambda: table.act(N, {"type": "bid", "amount": 5}, **{"If-Match": weak}),
        412,
        "precondition-failed",
    )


async def test_idempotency_key_replays_the_first_answer_and_appends_nothing(
    table: Table,
) -> None:
    key = {"Idempotency-Key": "bid-once"}
    first = await table.act(N, {"type": "bid", "amount": 5}, **key)
    assert first.status_code == 200
    count = await table.stored_events()
    again = await table.act(N, {"type": "bid", "amount": 5}, **key)
    assert again.status_code == 200
    assert again.content == first.content and again.headers["etag"] == first.headers["etag"]
    assert await table.stored_events() == count


async def test_idempotency_key_reused_with_another_body_is_refused(table: Table) -> None:
    key = {"Idempotency-Key": "k-1"}
    ok(await table.act(N, {"type": "bid", "amount": 5}, **key))
    await refused(
        table,
        lambda: table.act(N, {"type": "bid", "amount": 10}, **key),
        422,
        "idempotency-key-reused",
    )


async def test_idempotency_keys_are_the_tokens_not_the_seats(table: Table) -> None:
    """North's player leaves with key ``1``; the operator gives the seat to Eve, whose
    client also counts its keys from ``1``: her command is recorded, not answered with his."""
    key = {"Idempotency-Key": "1"}
    his = ok(await table.act(N, {"type": "leave"}, **key))
    replace = f"/tables/{table.id}/seats/{N}/replace"
    handed = ok(await table.client.post(replace, json={"name": "Eve"}, headers=OPERATOR))
    # His own retry still gets his first answer: the command was recorded.
    again = await table.act(N, {"type": "leave"}, **key)
    assert again.status_code == 200 and again.json() == his

    table.tokens[N] = handed["token"]
    count = await table.stored_events()
    hers = await table.act(N, {"type": "leave"}, **key)  # the same key, the same body
    assert hers.status_code == 200, hers.text
    assert hers.json()["version"] > handed["version"] > his["version"]
    assert await table.stored_events() > count


async def test_an_unknown_table_is_not_found(client: Any) -> None:
    response = await client.get(f"/tables/{uuid.uuid4()}")
    assert response.status_code == 404 and response.json()["code"] == "table-not-found"
    response = await client.get("/tables/not-a-uuid")  # names no table: it is no id at all
    assert response.status_code == 400 and response.json()["code"] == "malformed-request"
    response = await client.post(f"/tables/{uuid.uuid4()}/seats/0", json={"name": "x"})
    assert response.status_code == 404 and response.json()["code"] == "table-not-found"


# --- creating tables and taking seats ---------------------------------------------------


async def count_tables(database_url: str) -> int:
    async with await psycopg.AsyncConnection.connect(database_url) as conn:
        cur = await conn.execute("SELECT count(*) FROM tables")
        row = await cur.fetchone()
    assert row is not None
    return int(row[0])


@pytest.mark.parametrize(
    ("body", "headers", "status", "code"),
    [
        ({"game": "chess", "seats": 4}, {}, 400, "malformed-request"),
        ({"game": "forty-five", "seats": 3}, {}, 400, "invalid-options"),
        ({"game": "forty-five", "seats": 4, "options": {"target": 60}}, {}, 400, "invalid-options"),
        ({"game": "forty-five", "seats": 4, "first_dealer": 1}, {}, 401, "unauthorized"),
        ({"game": "forty-five", "seats": 4, "first_dealer": 9}, OPERATOR, 400, "invalid-options"),
        ({"game": "forty-five", "seats": 4, "first_dealer": 5}, OPERATOR, 400, "invalid-options"),
        (
            {"game": "forty-five", "seats": 4, "deals": [{"deck": ["AS"] * 52}]},
            OPERATOR,
            400,
            "invalid-deck",
        ),
        (
            {"game": "forty-five", "seats": 4, "deals": [{"deck": list(standard_pack())[:51]}]},
            OPERATOR,
            400,
            "invalid-deck",
        ),
    ],
)
async def test_bad_table_settings_create_nothing(
    client: Any,
    database_url: str,
    body: dict[str, Any],
    headers: dict[str, str],
    status: int,
    code: str,
) -> None:
    before = await count_tables(database_url)
    response = await client.post("/tables", json=body, headers=headers)
    assert response.status_code == status, response.text
    assert response.json()["code"] == code
    assert await count_tables(database_url) == before


async def test_operator_settings_need_the_operator_token(client: Any) -> None:
    """first_dealer and deals: without a token 401, with a seat's token 403."""
    table = await new_table(client)
    token = (await seat_all(client, table["id"], 4))[0]
    body = {"game": "forty-five", "seats": 4, "first_dealer": 1}
    response = await client.post("/tables", json=body, headers=bearer(token))
    assert response.status_code == 403 and response.json()["code"] == "operator-only"


async def test_a_taken_seat_and_a_missing_seat_are_refused(client: Any) -> None:
    created = await new_table(client)
    ok(await client.post(f"/tables/{created['id']}/seats/1", json={"name": "Ann"}), 201)
    taken = await client.post(f"/tables/{created['id']}/seats/1", json={"name": "Bob"})
    assert taken.status_code == 409 and taken.json()["code"] == "seat-taken"
    missing = await client.post(f"/tables/{created['id']}/seats/5", json={"name": "Cy"})
    assert missing.status_code == 404 and missing.json()["code"] == "no-such-seat"


async def test_conditional_get_answers_304_while_current(table: Table) -> None:
    seat_view = await table.client.get(f"/tables/{table.id}", headers=bearer(table.tokens[N]))
    tag = seat_view.headers["etag"]
    assert tag == etag(seat_view.json()["version"], N)
    again = await table.client.get(
        f"/tables/{table.id}", headers={**bearer(table.tokens[N]), "If-None-Match": tag}
    )
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == tag
    spectator = await table.client.get(f"/tables/{table.id}", headers={"If-None-Match": tag})
    assert spectator.status_code == 200, "another audience's tag must not match"
    ok(await table.act(N, {"type": "pass"}))
    moved = await table.client.get(
        f"/tables/{table.id}", headers={**bearer(table.tokens[N]), "If-None-Match": tag}
    )
    assert moved.status_code == 200


async def test_a_tag_of_an_earlier_release_gets_the_view_again(table: Table) -> None:
    """The same version may be shown differently by another release (a field added, a
    phase named otherwise): its tag, which named the version and audience only, was told
    304 by a newer release, and the client kept the old view for good. The tag now names
    the release too (a digest of the API and rules engine versions), so a client holding
    an older one gets the view whole."""
    me = bearer(table.tokens[N])
    view = await table.client.get(f"/tables/{table.id}", headers=me)
    version = view.json()["version"]
    assert view.headers["etag"] == f'"{version}.s{N}.{VIEW_RELEASE}"'
    earlier = f'"{version}.s{N}"'  # as releases before API 1.13 tagged it
    again = await table.client.get(f"/tables/{table.id}", headers={**me, "If-None-Match": earlier})
    assert again.status_code == 200 and again.headers["etag"] == view.headers["etag"]
    stale = await table.act(N, {"type": "pass"}, **{"If-Match": earlier})
    assert_problem(stale, 412, "precondition-failed")


@pytest.mark.parametrize(
    "query",
    ["limit=1e1", "limit=5.0", "limit=+5", "limit=5&limit=6", "status=playing&status=waiting"],
)
async def test_a_query_is_read_as_strictly_as_the_document_states_it(
    client: Any, query: str
) -> None:
    """Each parameter once, an integer written as one: the framework would take the last
    of two, and convert 1e1 or 5.0."""
    response = await client.get(f"/tables?{query}")
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "malformed-request"


async def test_an_integer_with_a_leading_zero_is_refused_alike_in_path_and_query(
    client: Any,
) -> None:
    """``01`` would be a second URL for seat 1 (one resource, one URL); in the query the
    framework refused it, naming a string it had not been sent."""
    created = await new_table(client)
    for path in (
        f"/tables/{created['id']}/seats/01",
        f"/tables/{created['id']}/seats/-0",
        "/tables?limit=007",
    ):
        method = "POST" if "seats" in path else "GET"
        body = {"name": "Ann"} if method == "POST" else None
        response = await client.request(method, path, json=body)
        assert response.status_code == 400, response.text
        assert response.json()["code"] == "malformed-request"
        assert "leading zero" in response.json()["detail"]
    zero = await client.post(f"/tables/{created['id']}/seats/0", json={"name": "Ann"})
    assert ok(zero, 201)["seat"] == 0  # a zero alone is no leading zero


@pytest.mark.parametrize("seat", ["%D9%A1", "+1", "%201", "0_1"])
async def test_a_seat_in_the_path_is_written_in_ascii_digits_alone(
    client: Any, database_url: str, seat: str
) -> None:
    """The router would read Arabic-Indic one, ``+1`` or `` 1`` as seat 1 and seat a
    player there: one seat, one URL."""
    created = await new_table(client)
    before = await stored(database_url)
    response = await client.post(f"/tables/{created['id']}/seats/{seat}", json={"name": "Ann"})
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "malformed-request"
    assert await stored(database_url) == before
    view = ok(await client.get(f"/tables/{created['id']}"))
    assert all(s["name"] is None for s in view["seats"])


async def test_a_table_id_in_the_path_is_a_uuids_36_characters(client: Any) -> None:
    """Braced, URN and undashed forms of the id are refused; its letters may be either
    case (RFC 9562 reads them alike)."""
    table_id = (await new_table(client))["id"]
    for form in (f"{{{table_id}}}", f"urn:uuid:{table_id}", table_id.replace("-", "")):
        response = await client.get(f"/tables/{form}")
        assert response.status_code == 400, (form, response.text)
        assert response.json()["code"] == "malformed-request"
    assert ok(await client.get(f"/tables/{table_id.upper()}"))["id"] == table_id


@pytest.mark.parametrize(
    ("method", "path", "named"),
    [
        ("GET", "/tables/undefined", "table_id"),
        ("POST", "/tables/undefined/actions", "table_id"),
        ("GET", "/tables/{table}x/events", "table_id"),
        ("POST", "/tables/{table}/seats/abc", "seat"),
        ("POST", "/tables/{table}/seats/1.0", "seat"),
        ("POST", "/tables/{table}/seats/1_", "seat"),
        ("GET", "/tournaments/abc/rounds/1", "tournament_id"),
        ("GET", "/tournaments/{tournament}/rounds/x", "number"),
    ],
)
async def test_a_path_parameter_the_router_cannot_read_is_a_400_naming_it(
    client: Any, method: str, path: str, named: str
) -> None:
    """The router takes a UUID or an integer parameter only as it reads one: a client
    building ``/tables/undefined/actions`` was told 404 "no such route", as if its base
    URL were wrong, where the document promises a 400 for a malformed parameter."""
    table = (await new_table(client))["id"]
    body = {"game": "pitch", "name": "Club night"}
    tournament = ok(await client.post("/tournaments", json=body, headers=OPERATOR), 201)["id"]
    path = path.format(table=table, tournament=tournament)
    response = await client.request(method, path, json={} if method == "POST" else None)
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "malformed-request"
    assert response.json()["detail"].startswith(f"{named}: ")


async def test_a_path_no_route_takes_is_still_a_404(client: Any) -> None:
    """Whatever its pieces look like, a path with a NUL byte or an encoded slash is no
    route's (the Limits table)."""
    table = (await new_table(client))["id"]
    for path in (
        "/table/undefined",
        f"/tables/{table}/nothing",
        "/tables/a/b/c/d/e",
        "/tables/%00",
        "/tables/abc%2Fevents",
        f"/tables/{table}%2Fevents",
    ):
        response = await client.get(path)
        assert response.status_code == 404, (path, response.text)
        assert response.json()["code"] == "not-found"


async def test_a_nul_byte_in_a_text_parameter_is_no_routes_either(client: Any) -> None:
    """An entry's id is any text to the router: a NUL byte in it reached the handler,
    which answered 404 ``no-such-entry`` "no entry \\u0000 here"."""
    body = {"game": "pitch", "name": "Club night"}
    tournament = ok(await client.post("/tournaments", json=body, headers=OPERATOR), 201)["id"]
    for path in (
        f"/tournaments/{tournament}/entries/%00/withdraw",
        f"/tournaments/{tournament}/entries/a%00b/withdraw",
    ):
        response = await client.post(path, headers=OPERATOR)
        assert response.status_code == 404, (path, response.text)
        assert response.json()["code"] == "not-found"


async def test_the_tournament_filter_reads_a_uuid_in_either_case(client: Any) -> None:
    body = {"game": "pitch", "name": "Club night"}
    tournament = ok(await client.post("/tournaments", json=body, headers=OPERATOR), 201)["id"]
    players = {"players": ["Ann", "Bob"]}
    opened = await client.post(f"/tournaments/{tournament}/tables", json=players, headers=OPERATOR)
    table_id = ok(opened, 201)["table"]["id"]
    for form in (tournament, tournament.upper()):
        listed = ok(await client.get("/tables", params={"tournament": form}))["tables"]
        assert [t["id"] for t in listed] == [table_id], form


async def test_a_long_poll_takes_its_wait_as_an_integer_only(table: Table) -> None:
    path = f"/tables/{table.id}"
    tag = (await table.client.get(path)).headers["etag"]
    refused = await table.client.get(f"{path}?wait=1.0", headers={"If-None-Match": tag})
    assert refused.status_code == 400
