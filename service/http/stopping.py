"""A graceful stop lets the long-polls and event streams go at once.

On SIGTERM uvicorn stops accepting connections, asks each open one to close once its
answer is sent, and waits up to ``CARDROOM_SHUTDOWN_SECONDS`` for the answers in flight.
A long-poll (``?wait=``) or an event stream would hold that wait to its end and then be
cut off, which uvicorn logs as an error and the client sees as a dropped connection.
Instead, the first connection asked to close (:mod:`service.http.protocol`) calls
:func:`begin`: every long-poll answers with the table as it is (a 304 if it has not
moved) and every stream sends what is new and ends, each on a ``Connection: close``, so
the clients ask again at once, of another process. Commands in flight still get the
whole grace period; one still unanswered when it ends is answered ``503 server-stopping``
(:mod:`service.http.deadline`) rather than uvicorn's plain-text 500.

One process, one stop: the hooks are the app's, registered while it serves.
"""

from __future__ import annotations

from collections.abc import Callable

_hooks: list[Callable[[], None]] = []
_begun = False


def on_stop(hook: Callable[[], None]) -> Callable[[], None]:
    """Call ``hook`` when a graceful stop begins; the answer removes it again."""
    _hooks.append(hook)

    def forget() -> None:
        if hook in _hooks:  # not run yet
            _hooks.remove(hook)

    return forget


def begin() -> None:
    """A graceful stop has begun (uvicorn asks every connection to close): run the hooks,
    once each."""
    global _begun
    _begun = True
    while _hooks:
        _hooks.pop()()


def begun() -> bool:
    """Whether this process has begun a graceful stop."""
    return _begun
