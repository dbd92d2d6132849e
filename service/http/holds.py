"""Bounds on held requests: long-polls (``?wait=``) and event streams, which keep a
connection, a parked task and their buffers for up to a minute or an hour (DESIGN 12).

Rate limits count requests, not how long they stay: one address within its budget once
held 2,657 streams open at a process, and nothing stopped it holding more. Each process
now bounds what it holds:

- **per client**: a seat's or an entry's token holds ``per_token`` at most, a caller
  without one ``per_address`` at most (by the address the rate limits use). A new
  request over the bound takes the place of the client's oldest: that long-poll answers
  at once with what it has (a 304 if nothing changed), that stream ends (its client
  resumes with ``Last-Event-ID``). Refusing the new one instead would lock out the very
  client most likely to be real — a phone back on the network, whose old connections
  died without a word and hold their places until their timeouts — while an attacker
  would keep his places for good. The operator's token and a director's have no bound
  of their own: a director follows every table of an event, and pages over the bound
  would take each other's places for ever.
- **per process**: ``per_process`` at most, whoever holds them; one more is answered 503
  ``server-busy`` with ``Retry-After``, before it holds anything (a load balancer may
  send the retry to another process), unless it takes its own client's oldest place.

A bound of 0 is none. The places are this process's: the bounds are on what a process
holds, which is what memory and file descriptors are spent on.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from service import metrics
from service.http.auth import Caller
from service.http.problems import ApiProblem
from service.http.protocol import hangup_of
from service.http.throttle import Network, scope_address
from service.read.watch import Hangup
from service.settings import Settings

BUSY_RETRY_SECONDS = 5


class Place:
    """One held request's place: its Hangup, and the release, which may come more than
    once (the stream's end, and its iterator collected unstarted) and counts once."""

    __slots__ = ("_holds", "client", "hangup")

    def __init__(self, holds: Holds, client: str | None, hangup: Hangup) -> None:
        self._holds: Holds | None = holds
        self.client = client
        self.hangup = hangup

    def release(self) -> None:
        holds, self._holds = self._holds, None
        if holds is not None:
            holds.give_back(self)


class Holds:
    """The held requests of this process, by client, oldest first."""

    def __init__(
        self,
        per_token: int,
        per_address: int,
        per_process: int,
        trusted: Sequence[Network] = (),
    ) -> None:
        self.per_token = per_token
        self.per_address = per_address
        self.per_process = per_process
        self.trusted = tuple(trusted)
        self.held = 0
        self._by_client: dict[str, deque[Place]] = {}

    @classmethod
    def of(cls, settings: Settings, trusted: Sequence[Network]) -> Holds:
        """The bounds ``settings`` name (``CARDROOM_HELD_*``)."""
        return cls(
            settings.held_per_token, settings.held_per_address, settings.held_per_process, trusted
        )

    def take(self, scope: Any, caller: Caller | None) -> Place:
        """A place for the request of ``scope``, counted at once (so that requests
        arriving together are all counted): the client's oldest gives its place up if
        the client holds its most, else 503 ``server-busy`` if the process does. Give it
        back with :meth:`Place.release`."""
        client, bound = self._client(scope, caller)
        places = self._by_client.get(client) if client is not None else None
        superseding = bool(bound and places is not None and len(places) >= bound)
        if not superseding and self.per_process and self.held >= self.per_process:
            # A request that takes its own client's oldest place adds nothing: a phone
            # back behind its dead polls gets in even while the process is full.
            metrics.HELD_REFUSED.inc()
            raise ApiProblem(
                "server-busy",
                f"this process holds {self.held} long-polls and streams, its most;"
                f" retry in {BUSY_RETRY_SECONDS} s",
                headers={"Retry-After": str(BUSY_RETRY_SECONDS)},
            )
        place = Place(self, client, hangup_of(scope) or Hangup())
        if client is not None:
            places = self._by_client.setdefault(client, deque())
            while bound and len(places) >= bound:
                places.popleft().hangup.supersede()
                metrics.HELD_SUPERSEDED.inc()
            places.append(place)
        self.held += 1
        metrics.HELD.inc()
        return place

    def give_back(self, place: Place) -> None:
        self.held -= 1
        metrics.HELD.dec()
        places = self._by_client.get(place.client) if place.client is not None else None
        if places is not None:
            if place in places:
                places.remove(place)
            if not places:
                del self._by_client[place.client]  # type: ignore[arg-type]

    @contextmanager
    def place(self, scope: Any, caller: Caller | None) -> Iterator[Hangup]:
        """A place held while the block runs (:meth:`take`); its Hangup ends the
        request's waits early: when its client goes, or when a newer request of the same
        client takes its place."""
        place = self.take(scope, caller)
        try:
            yield place.hangup
        finally:
            place.release()

    def _client(self, scope: Any, caller: Caller | None) -> tuple[str | None, int]:
        """Whose place it is, and how many that client may hold: none for the
        operator's token and a director's (who watches every table of an event), a
        seat's or an entry's token by itself, a request without one by its address."""
        kind = caller.kind if caller is not None else "anonymous"
        if kind in ("operator", "director"):
            return None, 0
        if caller is not None and kind != "anonymous":
            who = (caller.table, caller.seat, caller.epoch, caller.tournament, caller.entry)
            return f"{kind}:{who}:{caller.member}", self.per_token
        return f"address:{scope_address(scope, self.trusted)}", self.per_address


def holds_of(scope: Any) -> Holds:
    holds: Holds = scope["app"].state.holds
    return holds
