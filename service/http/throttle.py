"""Which rate limit a request counts against, whom it is counted for, and the answers:
``429 rate-limited`` with ``Retry-After``, and the ``RateLimit-*`` fields on every
response that was counted (DESIGN 12; the buckets are :mod:`service.ratelimit`'s).

| policy | counted for | requests |
|---|---|---|
| ``create`` | the client address | ``POST /tables`` by anyone but the operator |
| ``seat`` | the seat token | every other request with a seat's token |
| ``address`` | the client address | every other request without a valid token |

The operator's token, ``OPTIONS`` and the operations endpoints (probes and scrapes must
never be turned away) are not counted. A token this process has not seen before is looked
up on the address's budget, so sending made-up tokens is no way round it. The fields
follow draft-ietf-httpapi-ratelimit-headers-06: ``RateLimit-Limit`` (the burst),
``RateLimit-Remaining``, ``RateLimit-Reset`` (seconds until the bucket is full) and
``RateLimit-Policy`` (``BURST;w=SECONDS``).
"""

from __future__ import annotations

import ipaddress
import math
from collections.abc import Sequence
from typing import Any

import msgspec
from litestar import Request
from litestar.datastructures import MutableScopeHeaders
from litestar.types import Message, Scope

from service import metrics
from service.http.auth import CALLER, Authenticator, Caller, bearer_token
from service.http.problems import ApiProblem
from service.ratelimit import Decision, Policy, RateLimiter, parse_policy
from service.settings import Settings
from service.write.handler import token_digest

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

# Keys of the request's scope state: the caller found here (auth.CALLER: the handler's
# dependency reuses it) and the decision whose fields go on the response.
_DECISION = "cardroom.rate"
_ADMITTED = "cardroom.admitted"  # a request is counted once, whichever way reaches it

EXEMPT_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})


class Policies(msgspec.Struct, frozen=True):
    create: Policy
    seat: Policy
    address: Policy


def policies(settings: Settings) -> Policies:
    """The policies of ``settings`` (ValueError, at start-up, for a malformed one)."""
    return Policies(
        create=parse_policy("create", settings.rate_create),
        seat=parse_policy("seat", settings.rate_seat),
        address=parse_policy("address", settings.rate_address),
    )


def trusted_networks(entries: Sequence[str]) -> tuple[Network, ...]:
    """``CARDROOM_TRUSTED_PROXIES``: addresses or networks (``10.0.0.0/8``), which
    :func:`~service.settings.from_env` has checked."""
    return tuple(ipaddress.ip_network(entry.strip(), strict=False) for entry in entries)


def parsed_address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """An address, also as some proxies write it with the client's port (Azure's
    Application Gateway: ``203.0.113.1:51234``, ``[2001:db8::1]:51234``)."""
    text = text.strip()
    host, colon, port = text.rpartition(":")
    if colon and port.isdigit() and (host.count(":") == 0 or host.startswith("[")):
        text = host
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    try:
        found = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(found, ipaddress.IPv6Address) and found.ipv4_mapped is not None:
        return found.ipv4_mapped
    return found


def is_trusted(address: Any, trusted: Sequence[Network]) -> bool:
    return address is not None and any(address in network for network in trusted)


def client_address(peer: str, forwarded_for: Sequence[str], trusted: Sequence[Network] = ()) -> str:
    """Whom a request's address budget belongs to.

    The socket's peer, unless that peer is a trusted proxy: then ``X-Forwarded-For`` is
    read from the right (each proxy appends the address it saw), past the trusted proxies,
    to the first address none of them is (an unreadable entry ends the walk at the last
    good one). Without trusted proxies the header is ignored: anyone can write it. An IPv6
    client counts by its /64, the block one host is usually given.
    """
    found = parsed_address(peer)
    if is_trusted(found, trusted):
        hops = [hop for value in forwarded_for for hop in value.split(",")]
        for hop in reversed(hops):
            address = parsed_address(hop)
            if address is None:
                break
            found = address
            if not is_trusted(address, trusted):
                break
    if found is None:
        return peer or "unknown"
    if isinstance(found, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((found, 64), strict=False))
    return str(found)


def scope_address(scope: Any, trusted: Sequence[Network] = ()) -> str:
    """:func:`client_address` of an ASGI request's scope: its peer, and its
    ``X-Forwarded-For`` when a trusted proxy may have written it."""
    peer = scope.get("client") or ("", 0)
    forwarded = (
        [value.decode("latin-1") for name, value in scope["headers"] if name == b"x-forwarded-for"]
        if trusted
        else []
    )
    return client_address(peer[0], forwarded, trusted)


def fields(decision: Decision) -> dict[str, str]:
    policy = decision.policy
    return {
        "RateLimit-Limit": str(policy.burst),
        "RateLimit-Remaining": str(decision.remaining),
        "RateLimit-Reset": str(math.ceil(decision.reset)),
        "RateLimit-Policy": f"{policy.burst};w={policy.seconds:g}",
    }


class Throttle:
    """Counts each request against its policy (see the module's table)."""

    def __init__(
        self,
        limiter: RateLimiter,
        auth: Authenticator,
        policies: Policies,
        trusted: Sequence[Network] = (),
    ) -> None:
        self.limiter = limiter
        self.auth = auth
        self.policies = policies
        self.trusted = tuple(trusted)

    def _address(self, request: Request[Any, Any, Any]) -> str:
        return scope_address(request.scope, self.trusted)

    async def admit(self, request: Request[Any, Any, Any]) -> None:
        """Counts ``request``; raises 429 ``rate-limited`` when its bucket is empty."""
        if request.scope["path"] in EXEMPT_PATHS:
            return
        state = request.scope["state"]
        if state.get(_ADMITTED):
            return  # counted already: the command's short way passed it on to its route
        state[_ADMITTED] = True
        authorization = request.headers.get("authorization")
        caller: Caller | None = None
        address: str | None = None
        if authorization is not None:
            caller = self.auth.known(authorization)
            if caller is None:
                # New to this process, or made up: the lookup is paid from the address's
                # budget. A token that fails counts as none (the handler answers 401).
                address = self._address(request)
                await self._count(request, self.policies.address, address)
                try:
                    caller = await self.auth.identify(authorization)
                except ApiProblem:
                    return
            state[CALLER] = caller
            if caller.is_operator:
                return
        if request.method == "POST" and request.scope.get("path_template") == "/tables":
            await self._count(request, self.policies.create, address or self._address(request))
        elif caller is not None and caller.kind == "seat" and authorization is not None:
            token = bearer_token(authorization) or ""
            await self._count(request, self.policies.seat, token_digest(token).hex()[:32])
        elif address is None:
            await self._count(request, self.policies.address, self._address(request))

    async def _count(self, request: Request[Any, Any, Any], policy: Policy, who: str) -> None:
        decision = await self.limiter.check(policy, who)
        if decision.allowed:
            request.scope["state"][_DECISION] = decision
            return
        request.scope["state"].pop(_DECISION, None)  # the refusal's own fields go out
        metrics.RATE_LIMITED.labels(policy=policy.name).inc()
        wait = max(1, math.ceil(decision.retry_after))
        raise ApiProblem(
            "rate-limited",
            f"over the {policy.name} limit of {policy.describe()}; retry in {wait} s",
            headers={"Retry-After": str(wait), **fields(decision)},
            policy=policy.name,
            limit=policy.burst,
            window_seconds=policy.seconds,
        )


async def rate_limit_fields(message: Message, scope: Scope) -> None:
    """``before_send``: the counted request's ``RateLimit-*`` fields on its response."""
    if message["type"] != "http.response.start":
        return
    decision: Decision | None = scope.get("state", {}).get(_DECISION)
    if decision is not None:
        headers = MutableScopeHeaders.from_message(message)
        for name, value in fields(decision).items():
            headers[name] = value
