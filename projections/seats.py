"""Who sits where, kept as the table keeps it (``domain.table``), for every read model
that shows or credits players' names.

``seat_taken`` (a take-over of a vacant seat is one too) and ``seat_replaced`` seat a
name. ``seat_left`` frees the seat only while the table is still waiting for players:
a seat left during play stays under its player's name, vacant, while the computer plays
it. Copying these rules, rather than each read model guessing, keeps the score sheet
and the standings naming the same people as the table's view and the listing.
"""

from __future__ import annotations

from domain.events import Event, SeatLeft, SeatReplaced, SeatTaken


def seated(names: list[str | None], event: Event) -> list[str | None] | None:
    """The seats' names after ``event``; ``None`` when the event seats nobody."""
    match event:
        case SeatTaken(seat=seat, name=name) | SeatReplaced(seat=seat, name=name):
            return _named(names, seat, name)
        case SeatLeft(seat=seat) if None in names:
            # An empty seat means the game has not started (it needs every seat), which
            # is when the table frees a seat that is left.
            return _named(names, seat, None)
    return None


def _named(names: list[str | None], seat: int, name: str | None) -> list[str | None]:
    return [name if i == seat else n for i, n in enumerate(names)]
