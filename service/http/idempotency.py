"""The ``Idempotency-Key`` header of the requests a client may safely send again: a
command, taking a seat, entering players in a tournament, pairing its rounds, and
opening a table or a tournament.
One header, one lifetime (``CARDROOM_IDEMPOTENCY_HOURS``), each with its own scope and
its own words."""

from __future__ import annotations

from typing import Annotated, Any

from litestar.params import HeaderParameter

from service.write.sealed_tokens import MIN_KEY

_KEPT = "while the server keeps it (24 hours by default); after that a retry is a new request."


def _key(description: str, *, min_length: int = 1) -> Any:
    return HeaderParameter(
        name="Idempotency-Key", min_length=min_length, max_length=200, description=description
    )


IdempotencyKey = Annotated[
    str | None,
    _key(
        f"Retries with the same key and body get the first answer again {_KEPT} Keys are the"
        " seat token's: the seat's next player has keys of his own."
    ),
]
SeatIdempotencyKey = Annotated[
    str | None,
    _key(
        "A retry with the same key and body, for the same seat, gets the first answer"
        f" again, the same token included, instead of `seat-taken`, {_KEPT} The key is"
        " what recovers the token, so it must be hard to guess: a fresh random one per"
        f" seat taken, such as a UUID. A key of fewer than {MIN_KEY} characters counts"
        " for nothing here (the take is not idempotent)."
    ),
]
EntryIdempotencyKey = Annotated[
    str | None,
    _key(
        "A retry with the same key and body gets the first answer again, the same entry"
        f" and tokens, instead of entering the players twice, {_KEPT} Keys are the"
        " caller's: the director's and the operator's are apart."
    ),
]
TableIdempotencyKey = Annotated[
    str | None,
    _key(
        "A retry with the same key and body gets the first answer again, the same table"
        f" and seat tokens, instead of opening a second table, {_KEPT} Keys are the"
        " operator's, per tournament."
    ),
]
OpeningIdempotencyKey = Annotated[
    str | None,
    _key(
        "A retry with the same key and body gets the first answer again, the table as it"
        f" opened, instead of opening a second table, {_KEPT} The operator's keys are its"
        " own (per tournament, for a tournament's table); everybody else's share one"
        " space, so send a fresh random key per table, such as a UUID."
    ),
]
TournamentIdempotencyKey = Annotated[
    str | None,
    _key(
        "A retry with the same key and body gets the first answer again, the same"
        f" tournament and director's token, instead of opening a second tournament, {_KEPT}"
    ),
]
PairingIdempotencyKey = Annotated[
    str | None,
    _key(
        "A retry with the same key gets the first answer again, the round as it was"
        f" paired, instead of pairing the next round, {_KEPT} Keys are the caller's, per"
        " tournament: the director's and the operator's are apart."
    ),
]
