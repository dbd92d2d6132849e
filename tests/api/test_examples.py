"""The OpenAPI examples: one for every operation, response and command type; every one
valid against its schema, and every request example accepted by the service."""

from __future__ import annotations

import typing
from typing import Any

import msgspec
import pytest
from jsonschema import Draft202012Validator
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from domain.commands import PlayerCommand
from service.http.examples import COMMANDS
from service.http.spec import spec
from tests.support.api import OPERATOR, bearer, new_table, ok, seat_all

SPEC = spec()
OPERATIONS = {op["operationId"]: op for item in SPEC["paths"].values() for op in item.values()}
REGISTRY = Registry().with_resource("urn:spec", DRAFT202012.create_resource(SPEC))


def examples(content: dict[str, Any]) -> dict[str, Any]:
    return {name: example["value"] for name, example in content.get("examples", {}).items()}


def lines(body: str) -> list[Any]:
    """The lines of an example body of newline-delimited JSON."""
    assert body.endswith("\n"), "an NDJSON body ends its last line"
    return [msgspec.json.decode(line) for line in body.splitlines()]


def check(schema: dict[str, Any], value: Any, where: str) -> None:
    # Component references are absolute within the document: resolve them against it.
    rooted = msgspec.json.decode(
        msgspec.json.encode(schema).replace(b'"#/components/', b'"urn:spec#/components/')
    )
    errors = [e.message for e in Draft202012Validator(rooted, registry=REGISTRY).iter_errors(value)]
    assert not errors, f"{where}: {errors[:3]}"


@pytest.mark.parametrize("operation", list(OPERATIONS))
def test_every_operation_has_request_and_response_examples(operation: str) -> None:
    op = OPERATIONS[operation]
    body = op.get("requestBody", {}).get("content", {})
    for media, content in body.items():
        named = examples(content)
        assert named, f"{operation}: no request example for {media}"
        for name, value in named.items():
            check(content["schema"], value, f"{operation} request {name}")
    for parameter in op.get("parameters", []):
        assert "example" in parameter, f"{operation}: parameter {parameter['name']}"
        check(parameter["schema"], parameter["example"], f"{operation} {parameter['name']}")
    for status, response in op["responses"].items():
        for media, content in response.get("content", {}).items():
            named = examples(content)
            assert named, f"{operation} {status} {media}: no example"
            for name, value in named.items():
                check(content["schema"], value, f"{operation} {status} {name}")
                if "x-itemSchema" in content:  # each line of an export matches its schema
                    found = lines(value)
                    assert found, f"{operation} {status} {name}: no line"
                    for line in found:
                        check(content["x-itemSchema"], line, f"{operation} {status} {name}")


def test_every_command_type_has_an_example_the_service_decodes() -> None:
    tags = set()
    for member in typing.get_args(PlayerCommand):
        info = msgspec.inspect.type_info(member)
        assert isinstance(info, msgspec.inspect.StructType)
        tags.add(info.tag)
    assert set(COMMANDS) == tags
    body = OPERATIONS["postAction"]["requestBody"]["content"]["application/json"]
    assert set(examples(body)) == tags
    for tag, value in examples(body).items():
        command = msgspec.convert(value, PlayerCommand, strict=True)
        assert msgspec.to_builtins(command) == value, tag


def test_problem_examples_name_documented_codes() -> None:
    for operation, op in OPERATIONS.items():
        for status, response in op["responses"].items():
            if "application/problem+json" not in response.get("content", {}):
                continue
            for value in examples(response["content"]["application/problem+json"]).values():
                assert value["status"] == int(status), (operation, value)
                assert value["type"].endswith("/" + value["code"])


def request_examples(operation: str) -> dict[str, Any]:
    return examples(OPERATIONS[operation]["requestBody"]["content"]["application/json"])


async def test_the_service_accepts_every_request_example(client: Any) -> None:
    created = None
    for name, body in request_examples("createTable").items():
        created = ok(await client.post("/tables", json=body, headers=OPERATOR), 201)
        assert created["game"] == body["game"], name
    assert created is not None
    for seat, body in enumerate(request_examples("takeSeat").values()):
        ok(await client.post(f"/tables/{created['id']}/seats/{seat}", json=body), 201)
    for body in request_examples("replaceSeat").values():
        path = f"/tables/{created['id']}/seats/0/replace"
        ok(await client.post(path, json=body, headers=OPERATOR), 200)
    for body in request_examples("abortTable").values():
        ok(await client.post(f"/tables/{created['id']}/abort", json=body, headers=OPERATOR), 200)
    tournament = None
    by_entry: dict[str, dict[str, Any]] = {}
    for body in request_examples("createTournament").values():
        tournament = ok(await client.post("/tournaments", json=body, headers=OPERATOR), 201)
        if tournament["format"] != "open":
            by_entry.setdefault(tournament["entry"], tournament)
    assert tournament is not None and tournament["format"] == "open"
    for body in request_examples("addEntry").values():
        target = by_entry["pair" if "names" in body else "single"]
        path = f"/tournaments/{target['id']}/entries"
        ok(await client.post(path, json=body, headers=bearer(target["director_token"])), 201)
    for body in request_examples("createTournamentTable").values():
        path = f"/tournaments/{tournament['id']}/tables"
        ok(await client.post(path, json=body, headers=OPERATOR), 201)


def assert_documented(response: Any, operation: str) -> str:
    """The refusal's code, one the operation documents for its status: a client generated
    from the document branches on those."""
    assert 400 <= response.status_code < 500, response.text
    code: str = response.json()["code"]
    content = OPERATIONS[operation]["responses"][str(response.status_code)]["content"]
    listed = {v["code"] for v in examples(content["application/problem+json"]).values()}
    assert code in listed, (operation, response.status_code, code, sorted(listed))
    return code


async def test_the_refusals_of_commands_and_interventions_are_documented(client: Any) -> None:
    """``game-over`` and ``table-aborted`` (how a client learns its game ended),
    ``bid-not-allowed`` and ``not-allowed-now`` were answered to commands whose operations
    listed none of them; a seat of an aborted table was ``game-over``, where every other
    operation says ``table-aborted``."""
    ended, aborted = await new_table(client, "pitch", 2), await new_table(client, "pitch", 2)
    waiting = await new_table(client, "pitch", 2)
    ended_tokens = await seat_all(client, ended["id"], 2)
    aborted_tokens = await seat_all(client, aborted["id"], 2)
    waiting_token = ok(
        await client.post(f"/tables/{waiting['id']}/seats/0", json={"name": "Ann"}), 201
    )["token"]
    playing = ok(await client.get(f"/tables/{ended['id']}"))
    to_act = bearer(ended_tokens[playing["to_act"][0]])
    actions = f"/tables/{ended['id']}/actions"
    bid = await client.post(actions, json={"type": "bid", "amount": 1}, headers=to_act)
    assert assert_documented(bid, "postAction") == "bid-not-allowed"
    play = await client.post(actions, json={"type": "play", "card": "AS"}, headers=to_act)
    assert assert_documented(play, "postAction") == "not-allowed-now"
    early = await client.post(
        f"/tables/{waiting['id']}/actions", json={"type": "pass"}, headers=bearer(waiting_token)
    )
    assert assert_documented(early, "postAction") == "not-allowed-now"
    ok(await client.post(actions, json={"type": "resign"}, headers=to_act))
    stop = {"reason": "the hall closes"}
    ok(await client.post(f"/tables/{aborted['id']}/abort", json=stop, headers=OPERATOR))
    for table, tokens, code in (
        (ended, ended_tokens, "game-over"),
        (aborted, aborted_tokens, "table-aborted"),
    ):
        path = f"/tables/{table['id']}"
        for token, command in zip(tokens, ({"type": "pass"}, {"type": "leave"}), strict=True):
            move = await client.post(f"{path}/actions", json=command, headers=bearer(token))
            assert assert_documented(move, "postAction") == code
        for intervention in ("pause", "resume"):
            refused = await client.post(f"{path}/{intervention}", headers=OPERATOR)
            assert assert_documented(refused, f"{intervention}Table") == code
        taken = await client.post(f"{path}/seats/0", json={"name": "Late"})
        assert assert_documented(taken, "takeSeat") == code
    # The computer counts in a tournament's standings: only its director seats it.
    event = ok(
        await client.post("/tournaments", json={"game": "pitch", "name": "Eve"}, headers=OPERATOR),
        201,
    )
    body = {"game": "pitch", "seats": 2, "tournament": event["id"]}
    table = ok(await client.post("/tables", json=body, headers=OPERATOR), 201)
    computer = await client.post(
        f"/tables/{table['id']}/seats/0", json={"computer": True}, headers=bearer(waiting_token)
    )
    assert assert_documented(computer, "takeSeat") == "operator-only"
