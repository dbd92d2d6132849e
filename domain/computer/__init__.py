"""Computer players (DESIGN 10): the next command for a seat, from what that seat sees.

:func:`choose` reads the seat's view alone (``domain.table.view``): its own cards, the
public auction, melds and tricks, and its legal actions — never another hand, the stock
or a widow still face down. It returns one of those legal actions, card-set choices
filled in, so ``decide`` accepts it. It is pure and deterministic: the same table gives
the same command, ties always going to the first of the options as the game offers them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from domain import table as tables
from domain.commands import PlayerCommand
from domain.computer import bridge, fortyfive, pinochle, pitch
from domain.errors import RuleCode, RuleError
from domain.protocol import View
from domain.table import Table

PINOCHLE_GAMES = ("pinochle", "pinochle-three", "pinochle-widow", "pinochle-four")
PLAYERS: dict[str, Callable[[View], PlayerCommand]] = {
    "forty-five": fortyfive.choose,
    "pitch": pitch.choose,
    "reserve-bridge": bridge.choose,
    **{g: partial(pinochle.choose, game=g) for g in PINOCHLE_GAMES},
}


def choose(table: Table[Any], seat: int) -> PlayerCommand:
    """The computer's command for ``seat``, which must be a seat the table waits on."""
    if seat not in tables.to_act(table):
        raise RuleError(RuleCode.NOT_YOUR_TURN, f"seat {seat} is not to act", seat=seat)
    view = tables.view(table, seat)
    return PLAYERS[table.game](view)
