"""Examples in the OpenAPI document: every operation's request and responses, one body
per command type, and a problem document for every documented error.

Request bodies are written here (a test sends each one and checks it is accepted);
response bodies come from :mod:`service.http.sample`, a real table played through the
domain. Litestar builds the document once and caches it, so :func:`attach` mutates it
in place before the first request.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Any

import msgspec
from litestar.openapi.spec import (
    Example,
    OpenAPI,
    OpenAPIResponse,
    Operation,
    Parameter,
    RequestBody,
)

from domain.commands import PlayerCommand
from domain.errors import RuleCode
from domain.registry import GAMES
from domain.shuffle import shuffle
from service import settings
from service.http import games
from service.http import sample as s
from service.http import tournament_examples as t
from service.http.problems import CATALOGUE, RULE_PROBLEMS, problem
from service.ratelimit import parse_policy
from service.release import VIEW_RELEASE

# --- requests -------------------------------------------------------------------------------

COMMANDS: dict[str, Any] = {
    "pass": {"type": "pass"},
    "bid": {"type": "bid", "amount": 20},
    "hold": {"type": "hold"},
    "name_trump": {"type": "name_trump", "suit": "H"},
    "exchange": {"type": "exchange", "discard": ["2D", "7C", "9S"]},
    "play": {"type": "play", "card": "5H"},
    "stand": {"type": "stand"},
    "declare": {"type": "declare", "denomination": "NT"},
    "contra": {"type": "contra"},
    "recontra": {"type": "recontra"},
    "accept": {"type": "accept"},
    "reserve": {"type": "reserve", "cards": ["7C", "8D", "9H"]},
    "meld": {
        "type": "meld",
        "melds": [
            {"kind": "royal_marriage", "cards": ["KH", "QH"]},
            {"kind": "pinochle", "cards": ["QS", "JD"]},
        ],
    },
    "bury": {"type": "bury", "cards": ["9C", "9D", "TC"]},
    "concede": {"type": "concede"},
    "take_widow": {"type": "take_widow"},
    "exchange_dix": {"type": "exchange_dix"},
    "leave": {"type": "leave"},
    "resign": {"type": "resign"},
    "return": {"type": "return"},
}


def command_summaries() -> dict[str, str]:
    """Each command tag with the first line of its class's docstring."""
    summaries = {}
    for member in typing.get_args(PlayerCommand):
        info = msgspec.inspect.type_info(member)
        assert isinstance(info, msgspec.inspect.StructType)
        summaries[str(info.tag)] = (member.__doc__ or "").splitlines()[0].replace("``", "`")
    return summaries


def create_bodies() -> dict[str, Any]:
    """A table of each game with every option at its default; an operator's own deck."""
    bodies: dict[str, Any] = {}
    for game_id, game in GAMES.items():
        options = msgspec.to_builtins(game.options_type())
        seats = min(max(game.min_seats, 4), game.max_seats)
        bodies[game_id] = (
            f"{game_id} at {seats} seats",
            {
                "game": game_id,
                "seats": seats,
                "options": {k: v for k, v in options.items() if v is not None},
            },
        )
    bodies["clock"] = (
        "A clocked table: 20 seconds a turn, a minute's bank; the computer plays a turn"
        " that runs out",
        {
            "game": "pitch",
            "seats": 4,
            "clock": {"action_seconds": 20, "bank_seconds": 60},
            "on_timeout": "autoplay",
        },
    )
    deck = shuffle(GAMES["forty-five"].pack, bytes(32))
    bodies["operator"] = (
        "Operator only: the first dealer, and the deck of the first deal (top card first)",
        {"game": "forty-five", "seats": 4, "first_dealer": 2, "deals": [{"deck": list(deck)}]},
    )
    return bodies


def requests() -> dict[str, dict[str, tuple[str, Any]]]:
    summaries = command_summaries()
    return {
        "createTable": create_bodies(),
        "takeSeat": {
            "name": ("A player's name", {"name": "Ann"}),
            "computer": ("The computer plays the seat", {"computer": True}),
        },
        "replaceSeat": {
            "name": ("Another player takes the seat", {"name": "Eve"}),
            "computer": ("The computer takes the seat", {"computer": True}),
        },
        "abortTable": {"reason": ("Why", {"reason": "The hall closes at nine"})},
        "postAction": {tag: (summaries.get(tag, tag), body) for tag, body in COMMANDS.items()},
        "createTournament": {
            "swiss": ("A Swiss event in three rounds, paired as rounds end", t.SWISS_BODY),
            "pairs": ("Forty-Five partnerships in a Swiss event", t.PAIRS_BODY),
            "club night": (
                "A Forty-Five tournament whose tables the operator opens",
                {"game": "forty-five", "name": "Club night", "options": {}},
            ),
        },
        **t.REQUESTS,
        "createTournamentTable": {
            "players": ("Four players, seat 0 first", {"players": list(s.NAMES)}),
            "first dealer": (
                "Players and the first dealer",
                {"players": list(s.NAMES), "first_dealer": 1},
            ),
        },
    }


PARAMETERS: dict[str, Any] = {
    "table_id": s.TABLE,
    "tournament_id": s.TOURNAMENT,
    "seat": 1,
    # As the service writes them (service.write.handler.etag): version, audience, release.
    "If-None-Match": f'"6.s1.{VIEW_RELEASE}"',
    "If-Match": f'"6.s1.{VIEW_RELEASE}"',
    "wait": 30,
    "Idempotency-Key": "0b6c1f3e-9d2a-4f1b-8e57-2c4a6d8f0e13",
    "after": 6,
    "Last-Event-ID": "6",
    "limit": 100,
    "timeout": 900,
    "game": "forty-five",
    "status": "playing",
    "tournament": s.TOURNAMENT,
    "player": "Ann",
    "cursor": "1200",
    "version": 12,
    **t.PARAMETERS,
}


def operation_parameters() -> dict[str, dict[str, Any]]:
    """Where one operation's parameter differs from :data:`PARAMETERS`: the catalogue's
    ETags are its own, and a tournament's polled answers are tagged by their bytes."""
    answer_tag = '"9d5b34b894cc2fb7b8270d09f48e5acd"'
    return {
        "listGames": {"If-None-Match": games.etag(None)},
        "getGame": {"If-None-Match": games.etag("forty-five")},
        "getMySeat": {"If-None-Match": answer_tag},
        "getRound": {"If-None-Match": answer_tag},
    }


# --- responses ------------------------------------------------------------------------------


def responses() -> dict[tuple[str, str], dict[str, tuple[str, Any]]]:
    """Examples by (operation id, status): name → (summary, value)."""
    game = s.sample()
    first, choice, final = game.first_turn, game.choice, game.final
    turn = first.rules.to_act(first.state)[0]
    chooser = choice.rules.to_act(choice.state)[0]
    before, after = game.before_bid, game.after_bid
    bidder = before.rules.to_act(before.state)[0]
    scored = game.scored.version
    summary = {
        "id": s.TABLE,
        "game": "forty-five",
        "status": "playing",
        "version": first.version,
        "players": list(s.NAMES),
        "tournament": None,
        "created_at": s.json(s.at(1)),
    }
    record = game.records("spectator", first.version + 1, first.version + 1)  # the first call
    # An open tournament, as the operator opens it: tables by hand, no rounds.
    tournament = {
        **t.TOURNAMENT,
        "name": "Club night",
        "game": "forty-five",
        "tables": [s.TABLE],
        "format": "open",
        "status": "open",
        "seats": None,
        "rounds": None,
        "round": 0,
        "auto_rounds": False,
    }
    health = {"status": "ok", "checks": {"postgres": "ok", "redis": "ok"}}
    return {
        ("createTable", "201"): {
            "created": (
                "The new table, created by the operator with `first_dealer`",
                s.view(game.created, "operator"),
            )
        },
        ("listTables", "200"): {
            "page": ("A page of tables", {"tables": [summary], "next": "1200"}),
        },
        ("takeSeat", "201"): {
            "seat": (
                "The seat's token",
                {"table": s.TABLE, "seat": 1, "token": s.TOKEN, "version": 3},
            )
        },
        ("replaceSeat", "200"): {
            "seat": (
                "The new player's token",
                {"table": s.TABLE, "seat": 1, "token": s.TOKEN, "version": 13},
            )
        },
        ("abortTable", "200"): {
            "aborted": ("The table as it ends", s.view(s.aborted(first), "operator"))
        },
        ("pauseTable", "200"): {"paused": ("Clocks stopped", s.view(s.paused(first), "operator"))},
        ("resumeTable", "200"): {"resumed": ("Clocks running", s.view(first, "operator"))},
        ("getTable", "200"): {
            "seat": (f"Seat {turn}, to bid", s.view(first, turn)),
            "choice": (f"Seat {chooser}, offered a card choice", s.view(choice, chooser)),
            "spectator": ("A spectator, at the same time", s.view(first, "spectator")),
        },
        ("postAction", "200"): {
            "bid": (
                f"Seat {bidder} bid",
                {
                    "version": after.version,
                    "events": game.records(bidder, before.version + 1, after.version),
                    "table": s.view(after, bidder),
                },
            )
        },
        ("listEvents", "200"): {
            "page": (
                "The first events, as a spectator sees them",
                {
                    "table": s.TABLE,
                    "version": final.version,
                    "events": game.records("spectator", 1, 8),
                },
            )
        },
        ("streamTable", "200"): {
            "message": (
                "One message (its `data` is an event record)",
                {
                    "id": str(record[0]["version"]),
                    "event": record[0]["event"]["type"],
                    "data": msgspec.json.encode(record[0]).decode(),
                },
            )
        },
        ("getScoreSheet", "200"): {
            "sheet": (
                "Two deals scored",
                {"position": scored, "table_version": scored, "sheet": s.sheet(scored)},
            )
        },
        ("createTournament", "201"): {
            "tournament": (
                "The new tournament, with its director's token",
                {
                    **t.TOURNAMENT,
                    "tables": [],
                    "status": "open",
                    "round": 0,
                    "director_token": t.DIRECTOR,
                },
            )
        },
        ("getTournament", "200"): {
            "tournament": ("An open tournament", tournament),
            "swiss": ("A Swiss event in its first round", t.TOURNAMENT),
        },
        ("createTournamentTable", "201"): {
            "table": (
                "The table as the operator sees it, and the players' tokens",
                {
                    "table": s.view(first, "operator"),
                    "seats": [
                        {"seat": i, "name": name, "token": s.TOKEN[i:] + s.TOKEN[:i]}
                        for i, name in enumerate(s.NAMES)
                    ],
                },
            )
        },
        ("getStandings", "200"): {
            "standings": (
                "An open tournament after one finished table",
                {
                    "position": final.version,
                    "standings": s.ranking(),
                    "format": "open",
                    "version": 2,
                    "entries": [],
                },
            ),
            "swiss": (
                "A Swiss event after its first round",
                t.standings_page(s.ranking(), final.version),
            ),
        },
        **t.RESPONSES,
        **audit_responses(game),
        **game_responses(),
        ("getTokenHolder", "200"): token_holders(),
        ("health", "200"): {"ok": ("Alive", {"status": "ok", "checks": {}})},
        ("readiness", "200"): {
            "ready": ("Ready", health),
            "replicas": (
                "Ready, with one replica skipped (CARDROOM_REPLICA_URLS): reads go elsewhere",
                {
                    "status": "ok",
                    "checks": {
                        "postgres": "ok",
                        "redis": "ok",
                        "replica db-replica-1:5432/cardroom": "ok",
                        "replica db-replica-2:5432/cardroom": "lagging: 7.4 s behind the primary",
                    },
                },
            ),
        },
        ("readiness", "503"): {
            "down": (
                "Postgres does not answer",
                {
                    "status": "unavailable",
                    "checks": {"postgres": "error: PoolTimeout", "redis": "ok"},
                },
            )
        },
        ("metrics", "200"): {
            "metrics": (
                "Prometheus text format",
                "# HELP cardroom_commands_total Seat commands by outcome\n"
                "# TYPE cardroom_commands_total counter\n"
                'cardroom_commands_total{outcome="accepted"} 1364.0\n'
                'cardroom_commands_total{outcome="not-your-turn"} 12.0\n'
                "# HELP cardroom_relay_lag_events Events the relay has not published yet\n"
                "# TYPE cardroom_relay_lag_events gauge\n"
                "cardroom_relay_lag_events 0.0\n",
            )
        },
    }


def audit_responses(game: Any) -> dict[tuple[str, str], dict[str, tuple[str, Any]]]:
    """The operator's audit answers, from the same sample table."""
    first, final = game.first_turn, game.final
    scored = game.scored
    header = {
        "type": "header",
        "format": "cardroom-export/1",
        "table": s.TABLE,
        "game": "forty-five",
        "seats": 4,
        "options": {},
        "rules_version": final.rules_version,
        "tournament": None,
        "players": [{"seat": i, "name": n} for i, n in enumerate(s.NAMES)],
        "status": "finished",
        "version": final.version,
        "head": s.head(final.version),
        "exported_at": s.json(s.at(final.version + 10)),
    }
    played = next(r for r in game.records("operator") if r["event"]["type"] == "card_played")
    line = {
        "type": "event",
        "version": played["version"],
        "recorded_at": played["at"],
        "actor": played["actor"],
        "command": {"type": "play", "card": played["event"]["card"]},
        "data": played["event"],
        "hash": s.head(played["version"]),
    }
    deal = game.deal_outcome(scored.version)
    report = {
        "tournament": s.TOURNAMENT,
        "game": "forty-five",
        "decks": 2,
        "deals": [{"deal": 1, "commitment": deal["commitment"], "tables": [deal["table"]]}],
    }
    step = game.records("operator", first.version, first.version)[0]
    return {
        ("exportTable", "200"): {
            "header": ("The first line: what was played, by whom", header),
            "event": ("A later line: one stored event with its chain hash", line),
        },
        ("replayTable", "200"): {
            "step": (
                "Just after the first deal",
                {
                    "version": first.version,
                    "latest": final.version,
                    "event": step,
                    "table": s.view(first, "operator"),
                },
            )
        },
        ("getTournamentDeals", "200"): {
            "report": ("One operator deck, compared across the tables that played it", report)
        },
    }


def game_responses() -> dict[tuple[str, str], dict[str, tuple[str, Any]]]:
    """The game catalogue as served (it is read from the registry, like the answers)."""
    catalogue = msgspec.to_builtins(games.catalogue())
    by_id = {entry["id"]: entry for entry in catalogue["games"]}
    return {
        ("listGames", "200"): {"catalogue": ("Every game", catalogue)},
        ("getGame", "200"): {
            "pinochle": ("Three of three to five seats dealt in; options", by_id["pinochle"]),
            "forty-five": ("Two partnerships; no options", by_id["forty-five"]),
        },
    }


def token_holders() -> dict[str, tuple[str, Any]]:
    """``GET /me`` for each kind of token."""
    nobody = {"table": None, "seat": None, "tournament": None, "entry": None}
    return {
        "seat": ("A seat's token", {**nobody, "kind": "seat", "table": s.TABLE, "seat": 1}),
        "entry": (
            "An entry's token",
            {**nobody, "kind": "entry", "tournament": s.TOURNAMENT, "entry": t.ENTRIES[0]},
        ),
        "director": (
            "A tournament director's token",
            {**nobody, "kind": "director", "tournament": s.TOURNAMENT},
        ),
        "operator": ("The operator's token", {**nobody, "kind": "operator"}),
    }


# A command at an existing table may meet a process of an older release during an upgrade.
UPGRADE = ["database-unavailable", "upgrade-in-progress"]

# A table that ended: each way has its own code, answered to any command or intervention.
ENDED = ["game-over", "table-aborted", "table-expired"]
# A seat's command may break any rule of play or meet the table's state: every code is
# listed, since a client branches on them (the catalogue says what each means).
COMMAND_REFUSALS = [
    *(
        code.value
        for code in RuleCode
        if RULE_PROBLEMS[code.value].status == 409
        and code not in (RuleCode.SEAT_TAKEN, RuleCode.NOT_PAUSED)
    ),
    "version-conflict",
]

# Problem codes each operation may answer with, where a status has more than one cause.
PROBLEMS: dict[str, dict[int, list[str]]] = {
    "createTable": {
        400: ["invalid-options", "invalid-deck", "malformed-request"],
        403: ["operator-only"],
        404: ["tournament-not-found"],
        409: ["tournament-finished"],
    },
    "takeSeat": {
        403: ["operator-only"],
        404: ["table-not-found", "no-such-seat"],
        409: ["seat-taken", *ENDED],
        503: UPGRADE,
    },
    "postAction": {
        403: ["wrong-seat"],
        409: COMMAND_REFUSALS,
        503: [*UPGRADE, "clocks-recovering"],
    },
    "replaceSeat": {
        403: ["operator-only"],
        404: ["table-not-found", "no-such-seat"],
        409: ["game-over", "table-aborted", "table-expired"],
        503: UPGRADE,
    },
    "abortTable": {
        403: ["operator-only"],
        409: ["table-aborted", "game-over", "table-expired"],
        503: UPGRADE,
    },
    "pauseTable": {
        403: ["operator-only"],
        409: ["table-paused", "not-allowed-now", *ENDED],
        503: UPGRADE,
    },
    "resumeTable": {
        403: ["operator-only"],
        409: ["not-paused", *ENDED],
        503: [*UPGRADE, "clocks-recovering"],
    },
    "createTournamentTable": {
        403: ["operator-only"],
        404: ["tournament-not-found"],
        409: ["tournament-finished"],
    },
    "getTournament": {404: ["tournament-not-found"]},
    "getGame": {404: ["game-not-found"]},
    "getStandings": {404: ["tournament-not-found"]},
    "exportTable": {403: ["operator-only"]},
    "replayTable": {403: ["operator-only"], 404: ["table-not-found", "version-not-found"]},
    "streamTable": {404: ["table-not-found", "version-not-found"]},
    "getTournamentDeals": {403: ["operator-only"], 404: ["tournament-not-found"]},
    **t.PROBLEMS,
}
DEFAULT_PROBLEMS = {
    400: ["malformed-request"],
    401: ["unauthorized"],
    403: ["wrong-seat"],
    404: ["table-not-found"],
    408: ["request-timeout"],
    409: ["version-conflict"],
    412: ["precondition-failed"],
    413: ["payload-too-large"],
    414: ["uri-too-long"],
    415: ["unsupported-media-type"],
    422: ["idempotency-key-reused"],
    429: ["rate-limited"],
    431: ["headers-too-large"],
    503: ["database-unavailable"],
}


def _rate_limited(operation: str, path: str) -> Any:
    """The 429 as the default policies give it: table creation, a seat's requests, or an
    anonymous caller's."""
    name, setting = {
        "createTable": ("create", settings.RATE_CREATE),
        "postAction": ("seat", settings.RATE_SEAT),
    }.get(operation, ("address", settings.RATE_ADDRESS))
    policy = parse_policy(name, setting)
    detail = f"over the {name} limit of {policy.describe()}; retry in 2 s"
    context = {"policy": name, "limit": policy.burst, "window_seconds": policy.seconds}
    return msgspec.to_builtins(problem("rate-limited", detail, instance=path, context=context))


def problems(operation: str, status: int, path: str) -> dict[str, tuple[str, Any]]:
    codes = PROBLEMS.get(operation, {}).get(status) or DEFAULT_PROBLEMS.get(status, [])
    return {
        code: (
            CATALOGUE[code].title,
            _rate_limited(operation, path)
            if code == "rate-limited"
            else msgspec.to_builtins(problem(code, CATALOGUE[code].meaning, instance=path)),
        )
        for code in codes
    }


# --- attaching them -------------------------------------------------------------------------


@dataclass
class JSONExample(Example):
    """An example whose value keeps its ``null``s (Litestar drops ``None`` from dicts)."""

    def to_schema(self) -> dict[str, Any]:
        return {**super().to_schema(), "value": self.value}


def _examples(named: dict[str, tuple[str, Any]]) -> dict[str, Example | Any]:
    return {
        name: JSONExample(summary=summary, value=value) for name, (summary, value) in named.items()
    }


def _path(path: str) -> str:
    return (
        path.replace("{table_id}", s.TABLE)
        .replace("{tournament_id}", s.TOURNAMENT)
        .replace("{seat}", "1")
        .replace("{game}", "euchre")
    )


def attach(openapi: OpenAPI) -> None:
    """Put the examples into the document (missing ones fail the tests, not the app)."""
    bodies, answers = requests(), responses()
    for path, item in (openapi.paths or {}).items():
        for method in ("get", "post"):
            operation: Operation | None = getattr(item, method, None)
            if operation is None or operation.operation_id is None:
                continue
            name = operation.operation_id
            body = operation.request_body
            if isinstance(body, RequestBody) and name in bodies:
                for media in (body.content or {}).values():
                    media.examples = _examples(bodies[name])
            own = operation_parameters().get(name, {})
            for parameter in operation.parameters or []:
                if isinstance(parameter, Parameter) and parameter.name in own:
                    parameter.example = own[parameter.name]
                elif isinstance(parameter, Parameter) and parameter.name in PARAMETERS:
                    parameter.example = PARAMETERS[parameter.name]
            for status, response in (operation.responses or {}).items():
                if not isinstance(response, OpenAPIResponse) or not response.content:
                    continue
                named = answers.get((name, status)) or problems(name, int(status), _path(path))
                for media in response.content.values():
                    media.examples = _examples(named) if named else None
