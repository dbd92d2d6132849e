"""A clock the test moves: the service, the timekeeper and the sweeper take it instead of
reading the time, so no test waits for a real deadline."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

START = datetime(2026, 12, 2, 20, 0, tzinfo=UTC)


class FakeClock:
    """The time as the test says; starts at ``start`` and only moves on request."""

    def __init__(self, start: datetime = START) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, by: float | timedelta) -> None:
        """Move on by a span, or by a number of seconds."""
        self.now += by if isinstance(by, timedelta) else timedelta(seconds=by)

    def set(self, moment: datetime) -> None:
        self.now = moment
