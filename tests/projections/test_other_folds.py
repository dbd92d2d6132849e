"""The other folds over a table's events take the liveness events (DESIGN 10) in their
stride: the deal records ignore them, and the ``table_state`` row — what ``GET /tables``
lists and filters on — carries the table's status and seated names."""

from __future__ import annotations

import pytest

from domain import liveness
from domain.events import Event
from domain.table import LIVENESS_EVENTS
from projections.deals import deal_records
from projections.table_state import project, with_decks
from service.write.codec import snapshot_decoder
from tests.support.endings import FORFEIT, T0, abort, forfeit, play_until_scored, resign, seated
from tests.support.playout import Playout

NAMES = ["Ann", "Bob", "Cid", "Dee"]


def ended(how: str) -> Playout:
    """A table past its first scored deal, paused and resumed, then ended ``how``."""
    playout = seated("t1", NAMES, clock=FORFEIT)
    playout.apply(liveness.set_clock(playout.table, T0, None))
    play_until_scored(playout)
    playout.apply(liveness.pause(playout.table, T0))
    playout.apply(liveness.resume(playout.table, T0))
    playout.apply(liveness.replace_seat(playout.table, 3, "Zoe", computer=True))
    match how:
        case "resigned":
            resign(playout, 1)
        case "forfeit":
            forfeit(playout)
        case "aborted":
            abort(playout)
    return playout


def numbered(events: list[Event]) -> list[tuple[int, Event]]:
    return list(enumerate(events, start=1))


@pytest.mark.parametrize("how", ["resigned", "forfeit", "aborted"])
def test_the_deal_records_ignore_the_liveness_events(how: str) -> None:
    events = numbered(ended(how).events)
    records = deal_records(events)
    without = deal_records([(v, e) for v, e in events if not isinstance(e, LIVENESS_EVENTS)])
    assert records == without
    assert records[0].outcome == "scored"
    assert records[-1].outcome == "in_play"  # the deal the table ended in was never scored


@pytest.mark.parametrize(("how", "status"), [("resigned", "finished"), ("forfeit", "finished")])
def test_the_listing_row_of_an_ended_table(how: str, status: str) -> None:
    table = ended(how).table
    row = project(table, write_decks=True)
    assert row.status == status and not row.computer_turn
    assert row.players == ["Ann", "Bob", "Cid", "Zoe"]
    assert with_decks(snapshot_decoder(row.game).decode(row.state), row.decks) == table


def test_the_listing_row_of_an_aborted_table() -> None:
    table = ended("aborted").table
    row = project(table, write_decks=True)
    assert row.status == "aborted" and not row.computer_turn
    assert with_decks(snapshot_decoder(row.game).decode(row.state), row.decks) == table
