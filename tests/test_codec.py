"""``codec.convert``: msgspec.convert's answers and errors, with the type worked out once."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain.commands import Bid, PlayerCommand
from service.write.codec import convert

BODIES = [
    {"type": "play", "card": "AS"},
    {"type": "bid", "amount": 20},
    {"type": "exchange", "discard": []},
    {"type": "play", "card": 5},
    {"type": "bid", "amount": "20"},
    {"type": "exchange", "discard": ["AS", 1]},
    {"type": "shout"},
    {"type": "bid"},
    {"type": "bid", "amount": 20, "extra": 1},
    [],
    None,
]


def _outcome(call: Any) -> tuple[str, Any]:
    try:
        return "value", call()
    except msgspec.ValidationError as exc:
        return "error", str(exc)


@pytest.mark.parametrize("body", BODIES, ids=repr)
def test_a_union_converts_and_refuses_as_msgspec_convert_does(body: Any) -> None:
    assert _outcome(lambda: convert(body, PlayerCommand)) == _outcome(
        lambda: msgspec.convert(body, PlayerCommand)
    )


def test_strictness_is_passed_on() -> None:
    assert convert({"type": "bid", "amount": "20"}, PlayerCommand, strict=False) == Bid(amount=20)
    with pytest.raises(msgspec.ValidationError, match=r"got `str` - at `\$\.amount`$"):
        convert({"type": "bid", "amount": "20"}, PlayerCommand)
