"""Every game the service hosts, found by its id (DESIGN 6)."""

from __future__ import annotations

from typing import Any

from domain.bridge import RESERVE_BRIDGE
from domain.fortyfive import FORTY_FIVE
from domain.pinochle import PINOCHLE, PINOCHLE_FOUR, PINOCHLE_THREE, PINOCHLE_WIDOW
from domain.pitch import PITCH
from domain.protocol import Game

GAMES: dict[str, Game[Any]] = {
    FORTY_FIVE.id: FORTY_FIVE,
    PITCH.id: PITCH,
    RESERVE_BRIDGE.id: RESERVE_BRIDGE,
    PINOCHLE.id: PINOCHLE,
    PINOCHLE_THREE.id: PINOCHLE_THREE,
    PINOCHLE_WIDOW.id: PINOCHLE_WIDOW,
    PINOCHLE_FOUR.id: PINOCHLE_FOUR,
}


def find_game(game_id: str) -> Game[Any] | None:
    return GAMES.get(game_id)
