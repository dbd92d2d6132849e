"""``verify`` re-runs tables created with the house rules (RULES 2.10, 3.4, 3.5) by the
options their ``table_created`` records: such tables verify, and an export whose options
were changed afterwards (every hash recomputed) fails where the rules then differ.

The games are played by the computer on every seat, recorded as the service records
them (:class:`tests.support.clocked.Recorder`), without a clock.
"""

from __future__ import annotations

from typing import Any

import pytest

from service.audit.render import render
from service.audit.verify import Failure, verify_lines
from tests.support.audit import document_of, rechain
from tests.support.clocked import Lines, Recorder

HOUSE = {"double_melds": True, "must_overtrump": True}


def played(game: str, seats: int, options: dict[str, Any], seed: int = 7) -> Recorder:
    recorder = Recorder(game, seats, clock=None, seed=seed, options=options)
    recorder.seat_everyone(computers=tuple(range(seats)))
    recorder.play(5000)
    assert recorder.table.status == "finished"
    return recorder


def with_options(lines: Lines, options: dict[str, Any]) -> Failure | None:
    """The verifier's failure once the table's options are ``options`` in the header, the
    creation request and ``table_created`` alike, and the chain recomputed."""
    lines[0]["options"] = lines[1]["data"]["options"] = lines[1]["command"]["options"] = options
    report = verify_lines(document_of(rechain(lines)).splitlines())
    return report.failure


@pytest.mark.parametrize(
    ("game", "seats", "options"),
    [
        pytest.param("pinochle", 3, {"deals": 2, **HOUSE}, id="pinochle"),
        pytest.param("pinochle-three", 3, HOUSE, id="pinochle-three"),
        pytest.param("pinochle-widow", 3, HOUSE, id="pinochle-widow"),
        pytest.param("pinochle-four", 4, HOUSE, id="pinochle-four"),
        pytest.param("pitch", 3, {"game_end": "highest"}, id="pitch"),
    ],
)
def test_a_table_with_house_rules_re_verifies(
    game: str, seats: int, options: dict[str, Any]
) -> None:
    recorder = played(game, seats, options)
    lines = recorder.lines()
    assert lines[1]["data"]["options"].items() >= options.items()
    report = verify_lines(recorder.document().splitlines())
    assert report.ok, render(report)
    assert report.header is not None and report.header.options == lines[1]["data"]["options"]


def test_a_doubled_claim_fails_once_double_melds_is_taken_out() -> None:
    """RULES 3.4: seed 5 claims a double at version 81; without the option it is worth less."""
    lines = played("pinochle-three", 3, {"double_melds": True}, seed=5).lines()
    claimed = lines[81]["data"]
    assert claimed["type"] == "melds_claimed"
    failure = with_options(lines, {"must_head_plain": False})
    assert failure is not None and failure.version == 81, failure
    assert "points" in failure.message


def test_a_trump_under_the_trick_fails_once_must_overtrump_is_put_in() -> None:
    """RULES 3.5: played without the option, seed 3 has a void seat trump low over a
    trump at version 197, which the option forbids."""
    lines = played("pinochle-four", 4, {}, seed=3).lines()
    failure = with_options(lines, {"must_head_plain": False, "must_overtrump": True})
    assert failure is not None and failure.version == 197, failure
    assert lines[197]["data"]["type"] == "card_played"
    assert "must-head-trick" in failure.message
