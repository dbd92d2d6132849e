"""Bounds on held requests: long-polls (``?wait=``) and event streams, which keep a
connection, a parked task and their buffers for up to a minute or an hour (DESIGN 12).

Rate limits count requests, not how long they stay: one address within its budget once
held 2,657 streams open at a process, and nothing stopped it holding more. Each process
now bounds what it holds:

- **per client**: a seat's, entry's or director's token holds ``per_token`` at most, a
  caller without one ``per_address`` at most (by the address the rate limits use). A new
  request over the bound takes the place of the client's oldest: that long-poll answers
  at once with what it has (a 304 if nothing changed), that stream ends (its client
  resumes with ``Last-Event-ID``). Refusing the new one instead would lock out the very
  client most likely to be real — a phone back on the network, whose old connections
  died without a word and hold their places until their timeouts — while an attacker
  would keep his places for good. The operator's token has no bound of its own.
- **per process**: ``per_process`` at most, whoever holds them; one more is answered 503
  ``server-busy`` with ``Retry-After``, before it holds anything (a load balancer may
  send the retry to another process).

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
from service.http.throttle import Network, client_address
from service.read.watch import Hangup

BUSY_RETRY_SECONDS = 5


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
        self._by_client: dict[str, deque[Hangup]] = {}

    def admit(self) -> None:
        """503 ``server-busy`` if the process holds all it may; nothing is taken."""
        if self.per_process and self.held >= self.per_process:
            metrics.HELD_REFUSED.inc()
            raise ApiProblem(
                "server-busy",
                f"this process holds {self.held} long-polls and streams, its most;"
                f" retry in {BUSY_RETRY_SECONDS} s",
                headers={"Retry-After": str(BUSY_RETRY_SECONDS)},
            )

    @contextmanager
    def place(
        self, scope: Any, caller: Caller | None, *, admitted: bool = False
    ) -> Iterator[Hangup]:
        """Hold a place for the request of ``scope`` while the block runs (503 if the
        process is full, unless the request was ``admitted`` already: a stream is, before
        its answer starts). The Hangup it gives ends the request's waits early: when its
        client goes, or when a newer request of the same client takes its place."""
        if not admitted:
            self.admit()
        hangup = hangup_of(scope) or Hangup()
        client, bound = self._client(scope, caller)
        places = None
        if client is not None:
            places = self._by_client.setdefault(client, deque())
            while bound and len(places) >= bound:
                places.popleft().supersede()
                metrics.HELD_SUPERSEDED.inc()
            places.append(hangup)
        self.held += 1
        metrics.HELD.inc()
        try:
            yield hangup
        finally:
            self.held -= 1
            metrics.HELD.dec()
            if places is not None and client is not None:
                if hangup in places:
                    places.remove(hangup)
                if not places and self._by_client.get(client) is places:
                    del self._by_client[client]

    def _client(self, scope: Any, caller: Caller | None) -> tuple[str | None, int]:
        """Whose place it is, and how many that client may hold."""
        kind = caller.kind if caller is not None else "anonymous"
        if kind == "operator":
            return None, 0
        if caller is not None and kind != "anonymous":
            who = (caller.table, caller.seat, caller.epoch, caller.tournament, caller.entry)
            return f"{kind}:{who}:{caller.member}", self.per_token
        peer = scope.get("client") or ("", 0)
        forwarded: list[str] = []
        if self.trusted:
            forwarded = [
                value.decode("latin-1")
                for name, value in scope.get("headers", ())
                if name == b"x-forwarded-for"
            ]
        return f"address:{client_address(peer[0], forwarded, self.trusted)}", self.per_address


def holds_of(scope: Any) -> Holds:
    holds: Holds = scope["app"].state.holds
    return holds
