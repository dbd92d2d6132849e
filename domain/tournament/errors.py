"""Why a tournament refuses a command: stable codes, like the games' (domain.errors)."""

from __future__ import annotations

from enum import StrEnum

from domain.errors import CodedError


class TournamentCode(StrEnum):
    FORMAT_DOES_NOT_FIT = "format-does-not-fit"
    ROUND_IN_PROGRESS = "round-in-progress"
    TOURNAMENT_FINISHED = "tournament-finished"
    TOURNAMENT_STARTED = "tournament-started"
    TOO_FEW_ENTRIES = "too-few-entries"
    NO_SUCH_ENTRY = "no-such-entry"
    NO_SUCH_ROUND = "no-such-round"
    ENTRY_WITHDRAWN = "entry-withdrawn"
    WRONG_ENTRY = "wrong-entry"
    NOT_IN_ROUNDS = "not-in-rounds"
    TABLES_IN_PLAY = "tables-in-play"


MEANINGS: dict[TournamentCode, str] = {
    TournamentCode.FORMAT_DOES_NOT_FIT: (
        "The format, the kind of entry or the number of seats does not fit the game; the"
        " problem names the field."
    ),
    TournamentCode.ROUND_IN_PROGRESS: "A table of the current round is still being played.",
    TournamentCode.TOURNAMENT_FINISHED: (
        "The tournament has finished: it played its last round, or its director ended it."
    ),
    TournamentCode.TOURNAMENT_STARTED: (
        "A round-robin takes no entry once its first round is paired."
    ),
    TournamentCode.TOO_FEW_ENTRIES: "Not enough entries to fill a table of the game.",
    TournamentCode.NO_SUCH_ENTRY: "The tournament has no entry with that id.",
    TournamentCode.NO_SUCH_ROUND: "That round has not been paired (yet).",
    TournamentCode.ENTRY_WITHDRAWN: "The entry has already withdrawn.",
    TournamentCode.WRONG_ENTRY: (
        "An entry is one name, or two for a partnership; the tournament takes the other kind."
    ),
    TournamentCode.NOT_IN_ROUNDS: (
        "An open tournament has no rounds: its tables are opened by hand."
    ),
    TournamentCode.TABLES_IN_PLAY: (
        "An open tournament finishes once none of its tables is still being played."
    ),
}


class TournamentError(CodedError[TournamentCode]):
    """A command the tournament refuses."""
