"""From a seat's ``legal_actions`` to a command: the random picks that the reference bot,
the bench plans, the OpenAPI samples and the tests make (JSON in, JSON out, as a client
sees them)."""

from __future__ import annotations

import random
from typing import Any


def choose(action: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A ready command from a legal-action entry: card-set choices get a random pick."""
    command = {}
    for key, value in action.items():
        if isinstance(value, dict) and {"from", "min", "max"} <= value.keys():
            count = rng.randint(value["min"], value["max"])
            value = rng.sample(value["from"], count)
        command[key] = value
    return command


def pick_index(actions: list[dict[str, Any]], rng: random.Random, pass_rate: float = 0.5) -> int:
    """Any legal action, but cautious in auctions so that random games reach their end."""
    kinds = [a["type"] for a in actions]
    if "pass" in kinds and len(actions) > 1 and rng.random() < pass_rate:
        return kinds.index("pass")
    bids = sorted((a["amount"], i) for i, a in enumerate(actions) if a["type"] == "bid")
    if bids and rng.random() < 0.7:
        return bids[0][1]
    return rng.randrange(len(actions))
