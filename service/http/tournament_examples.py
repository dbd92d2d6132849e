"""Examples of a tournament in rounds (DESIGN 14) for the OpenAPI document: a Reserve
Bridge Swiss event of four, its entries, its first round and its standings.
:mod:`service.http.examples` folds them into the rest."""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from domain.registry import GAMES
from domain.shuffle import deck_commitment, shuffle
from domain.tournament.events import RoundPaired, TableScored
from service.http import sample as s
from service.read.records import TournamentEventRecord

ENTRIES = ("a1f3c9d2e8b4", "b7e2d4a9c1f6", "c5d8e1f3a7b2", "d9a4b6c2e5f1")
ROUND_TABLES = ("7d1e9c3a-5b2f-4e8d-a6c4-0f9e8d7c6b5a", "8e2f0d4b-6c3a-4f9e-b7d5-1a0f9e8d7c6b")
DIRECTOR = "Zr4Xk9Lm2Qw8Ty6Up1Vs3No5Hj7Bg0Fd2Ce4Ax6Wi8"

SWISS_BODY = {
    "game": "reserve-bridge",
    "name": "Winter Swiss",
    "format": "swiss",
    "rounds": 3,
    "auto_rounds": True,
}

PAIRS_BODY = {
    "game": "forty-five",
    "name": "Pairs night",
    "format": "swiss",
    "rounds": 4,
    "entry": "pair",
}

TOURNAMENT = {
    "id": s.TOURNAMENT,
    "name": "Winter Swiss",
    "game": "reserve-bridge",
    "options": {},
    "tables": list(ROUND_TABLES),
    "duplicate_deals": 0,
    "first_dealer": None,
    "clock": None,
    "format": "swiss",
    "status": "playing",
    "entry": "single",
    "seats": 2,
    "rounds": 3,
    "round": 1,
    "round_minutes": None,
    "auto_rounds": True,
}

FIRST_ROUND = {
    "round": 1,
    "status": "playing",
    "tables": [
        {"table": ROUND_TABLES[0], "seats": [ENTRIES[2], ENTRIES[0]]},
        {"table": ROUND_TABLES[1], "seats": [ENTRIES[1], ENTRIES[3]]},
    ],
    "byes": [],
    "deadline": None,
}

ROUND_PAIRED = {
    "type": "round_paired",
    "round": 1,
    "tables": FIRST_ROUND["tables"],
    "byes": [],
    "inputs": s.head(5),
    "deadline": None,
}


def _deck(deal: int) -> str:
    """The commitment of the round's deck for ``deal``, as the table recorded it."""
    pack = GAMES["reserve-bridge"].pack
    return deck_commitment(shuffle(pack, hashlib.sha256(f"example deal {deal}".encode()).digest()))


# The record of the first table's result, as the tournament's stream sends it.
TABLE_SCORED = TournamentEventRecord(
    version=7,
    at=s.at(140),
    actor="tournament",
    event=TableScored(
        round=1,
        table=ROUND_TABLES[0],
        outcomes=["loss", "win"],
        scores=[140, 620],
        reason="played",
        deal_scores=[[60, 180], [80, 440]],
        deal_decks=[_deck(1), _deck(2)],
    ),
)


def _message(record: TournamentEventRecord) -> dict[str, Any]:
    """A Server-Sent Events message as ``streamTournament`` sends it."""
    tag = type(record.event).__struct_config__.tag
    data = msgspec.json.encode(record).decode()
    return {"id": str(record.version), "event": str(tag), "data": data}


def _line(table: int | None, opponent: str | None, result: str) -> dict[str, Any]:
    return {
        "round": 1,
        "table": None if table is None else ROUND_TABLES[table],
        "opponents": [] if opponent is None else [opponent],
        "result": result,
    }


def _standing(rank: int, entry: int, name: str, won: bool, table: int, opponent: int) -> Any:
    return {
        "entry": ENTRIES[entry],
        "name": name,
        "rank": rank,
        "points": 1.0 if won else 0.0,
        "wins": int(won),
        "losses": int(not won),
        "draws": 0,
        "score": 620 if won else 140,
        "buchholz": 0.0 if won else 1.0,
        "sonneborn_berger": 0.0,
        "matchpoints": 0.0,
        "percentage": 0.0,
        "rounds": [_line(table, ENTRIES[opponent], "win" if won else "loss")],
        "withdrawn": False,
    }


REQUESTS: dict[str, dict[str, tuple[str, Any]]] = {
    "addEntry": {
        "player": ("A player", {"name": "Ann"}),
        "pair": ("A fixed partnership (Forty-Five with pair entries)", {"names": ["Ann", "Bob"]}),
        "computer": ("The computer, to fill the field", {"name": "Bot", "computer": True}),
    },
}

RESPONSES: dict[tuple[str, str], dict[str, tuple[str, Any]]] = {
    ("listTournaments", "200"): {
        "page": (
            "A page of tournaments",
            {
                "tournaments": [
                    {
                        "id": s.TOURNAMENT,
                        "name": "Winter Swiss",
                        "game": "reserve-bridge",
                        "format": "swiss",
                        "status": "playing",
                        "created_at": s.json(s.at(1)),
                    }
                ],
                "next": "1200",
            },
        )
    },
    ("addEntry", "201"): {
        "entry": (
            "The entry and its token",
            {"entry": ENTRIES[0], "token": s.TOKEN, "partner_token": None},
        ),
        "pair": (
            "A partnership: a token for each player",
            {"entry": ENTRIES[1], "token": s.TOKEN, "partner_token": s.TOKEN[7:] + s.TOKEN[:7]},
        ),
    },
    ("listEntries", "200"): {
        "entries": (
            "Four players; Dee withdrew",
            {
                "entries": [
                    {
                        "entry": entry,
                        "names": [name],
                        "computer": False,
                        "first_round": 1,
                        "withdrawn": name == "Dee",
                    }
                    for entry, name in zip(ENTRIES, s.NAMES, strict=True)
                ]
            },
        )
    },
    ("withdrawEntry", "200"): {
        "withdrawn": (
            "Paired no more",
            {
                "entry": ENTRIES[3],
                "names": ["Dee"],
                "computer": False,
                "first_round": 1,
                "withdrawn": True,
            },
        )
    },
    ("getMySeat", "200"): {
        "seat": (
            "Ann plays seat 1 of the first round's head table",
            {
                "entry": ENTRIES[0],
                "round": 1,
                "table": ROUND_TABLES[0],
                "seat": 1,
                "token": s.TOKEN,
                "status": "playing",
                "bye": False,
                "partner_seat": None,
                "partner_token": None,
            },
        ),
        "partner": (
            "Cy of the pair Cy and Di: Di sits opposite, with a token of their own",
            {
                "entry": ENTRIES[1],
                "round": 1,
                "table": ROUND_TABLES[0],
                "seat": 0,
                "token": s.TOKEN,
                "status": "playing",
                "bye": False,
                "partner_seat": 2,
                "partner_token": None,
            },
        ),
        "bye": (
            "Sitting the round out",
            {
                "entry": ENTRIES[0],
                "round": 2,
                "table": None,
                "seat": None,
                "token": None,
                "status": "playing",
                "bye": True,
                "partner_seat": None,
                "partner_token": None,
            },
        ),
        "finished": (
            "The tournament is over: no round follows",
            {
                "entry": ENTRIES[0],
                "round": 3,
                "table": ROUND_TABLES[0],
                "seat": 1,
                "token": s.TOKEN,
                "status": "finished",
                "bye": False,
                "partner_seat": None,
                "partner_token": None,
            },
        ),
    },
    ("pairRound", "201"): {"round": ("The first round, its tables opened", FIRST_ROUND)},
    ("finishTournament", "200"): {
        "finished": (
            "Ended by its director after round 1 of 3",
            {**TOURNAMENT, "status": "finished"},
        )
    },
    ("verifyTournament", "200"): {
        "intact": (
            "A finished tournament whose export verifies",
            {
                "ok": True,
                "failure": None,
                "report": "\n".join(
                    [
                        "Cardroom tournament export verification",
                        "",
                        f"tournament  {s.TOURNAMENT} (Winter Swiss)",
                        "game        reserve-bridge, swiss, 2 tables",
                        "exported    2026-01-10 21:30:00 UTC, finished at version 14",
                        "",
                        "checks",
                        "  ok    the chain of 14 tournament events",
                        "  ok    2 tables verified",
                        "  ok    every pairing re-run from the revealed seed",
                        "",
                        "RESULT: OK — the stream is intact, every pairing and result follows",
                        "",
                    ]
                ),
            },
        )
    },
    ("exportTournament", "200"): {
        "header": (
            "The first line: the tournament, its stream's head, the tables that follow",
            {
                "type": "tournament_header",
                "format": "cardroom-tournament-export/1",
                "tournament": s.TOURNAMENT,
                "name": "Winter Swiss",
                "game": "reserve-bridge",
                "tournament_format": "swiss",
                "status": "finished",
                "version": 14,
                "head": s.head(14),
                "tables": list(ROUND_TABLES),
                "exported_at": s.json(s.at(200)),
            },
        ),
        "event": (
            "A line of the tournament's stream: a round paired",
            {
                "type": "tournament_event",
                "version": 6,
                "recorded_at": s.json(s.at(20)),
                "actor": "director",
                "command": {"type": "pair_round"},
                "data": ROUND_PAIRED,
                "hash": s.head(6),
            },
        ),
    },
    ("getRound", "200"): {"round": ("The first round, in play", FIRST_ROUND)},
    ("streamTournament", "200"): {
        "paired": (
            "A round paired (its `data` is a tournament event record)",
            _message(
                TournamentEventRecord(
                    6, s.at(20), "director", msgspec.convert(ROUND_PAIRED, RoundPaired)
                )
            ),
        ),
        "scored": ("A table's result recorded", _message(TABLE_SCORED)),
    },
}


def standings_page(open_standings: Any, position: int) -> dict[str, Any]:
    """The standings of the Swiss event after its first round."""
    return {
        "position": position,
        "standings": open_standings,
        "format": "swiss",
        "version": 9,
        "entries": [
            _standing(1, 0, "Ann", True, 0, 2),
            _standing(1, 1, "Bob", True, 1, 3),
            _standing(3, 2, "Cid", False, 0, 0),
            _standing(3, 3, "Dee", False, 1, 1),
        ],
    }


PARAMETERS: dict[str, Any] = {"format": "swiss", "entry": ENTRIES[0], "number": 1}

PROBLEMS: dict[str, dict[int, list[str]]] = {
    "createTournament": {
        400: ["format-does-not-fit", "invalid-options", "malformed-request"],
        403: ["operator-only"],
    },
    "addEntry": {
        403: ["operator-only"],
        404: ["tournament-not-found"],
        409: ["tournament-started", "tournament-finished", "not-in-rounds"],
        422: ["wrong-entry", "idempotency-key-reused"],
    },
    "listEntries": {404: ["tournament-not-found"]},
    "withdrawEntry": {
        403: ["operator-only"],
        404: ["no-such-entry", "tournament-not-found"],
        409: ["entry-withdrawn", "tournament-finished"],
    },
    "getMySeat": {403: ["entry-only"], 404: ["tournament-not-found", "no-such-entry"]},
    "pairRound": {
        403: ["operator-only"],
        404: ["tournament-not-found"],
        409: ["round-in-progress", "tournament-finished", "too-few-entries", "not-in-rounds"],
        # A tournament created under newer pairing rules, met by an older process.
        503: ["database-unavailable", "upgrade-in-progress"],
    },
    "finishTournament": {
        403: ["operator-only"],
        404: ["tournament-not-found"],
        409: ["round-in-progress", "tables-in-play", "tournament-finished"],
    },
    "getRound": {404: ["no-such-round", "tournament-not-found"]},
    "exportTournament": {403: ["operator-only"], 404: ["tournament-not-found"]},
    "verifyTournament": {403: ["operator-only"], 404: ["tournament-not-found"]},
    "streamTournament": {404: ["tournament-not-found", "version-not-found"]},
}
