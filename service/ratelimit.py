"""Rate limits shared by every process (DESIGN 12): GCRA buckets in Redis, with a local
fallback while Redis is down or frozen.

The algorithm is the Generic Cell Rate Algorithm (the virtual-scheduling form of the
leaky bucket, as in ATM networks and redis-cell). A policy lets ``burst`` requests through
at once and refills evenly over ``seconds``: one request every ``seconds / burst``. Each
bucket is a single number, its *theoretical arrival time* (TAT): when the bucket will be
full again. A request at ``now`` is allowed when ``max(TAT, now) + interval - now`` stays
within ``seconds``; then the TAT moves on by one interval. Nothing is counted per window,
so there is no burst of twice the limit at a window's edge, and one key per bucket is all
Redis keeps (it expires when the bucket is full again).

In Redis the check is one Lua script, atomic across every worker, process and host; its
clock is Redis's own (``TIME``), so hosts with skewed clocks still share one schedule. The
concurrent checks of one process go out together, one pipeline of scripts on one
connection (at most two pipelines in flight): a burst of requests costs a few round trips
and connections, where a connection per check opened hundreds at once and ran redis-py's
pool out of them, which tripped the breaker below on a Redis that was fine. Keys are
``<prefix>:rate:{<policy>:<who>}``: the braces are a hash tag, so each bucket lives in one
Redis Cluster slot.

Redis is optional. Every call is bounded by a short timeout; a failure or a timeout sends
this process to its own in-memory buckets (the same algorithm on its own clock) and opens
a breaker: for the next seconds no request tries Redis, and a background probe decides
when to go back. While it is down each process limits alone, so a client spread over N
processes gets up to N times its budget.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import math
import time
from collections.abc import Callable
from typing import Any, NamedTuple

import msgspec
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import NoScriptError, RedisError

from service import metrics
from service.read.senders import Senders, settle

log = logging.getLogger("cardroom")


class Policy(msgspec.Struct, frozen=True):
    """``burst`` requests at once, refilled evenly over ``seconds``."""

    name: str
    burst: int
    seconds: float

    @property
    def interval(self) -> float:
        """Seconds between two requests at the sustained rate."""
        return self.seconds / self.burst

    def describe(self) -> str:
        return f"{self.burst} per {self.seconds:g} s"


def parse_policy(name: str, text: str) -> Policy:
    """A policy from its setting, ``BURST/SECONDS`` (``30/60``: 30 at once, one more every
    2 s). Raises ValueError, naming the setting, on anything else."""
    burst, slash, seconds = text.strip().partition("/")
    try:
        policy = Policy(name, int(burst), float(seconds))
    except ValueError:
        policy = None
    if not slash or policy is None or policy.burst < 1 or not 0 < policy.seconds < 86_400 * 7:
        raise ValueError(f"rate limit {name!r}: {text!r} is not BURST/SECONDS (e.g. 30/60)")
    return policy


class Decision(NamedTuple):
    """One request's answer from its bucket (times in seconds)."""

    allowed: bool
    policy: Policy
    remaining: int  # requests that would still pass at once
    reset: float  # until the bucket is full again
    retry_after: float  # until the next request passes (0 when this one passed)


_EPSILON = 1e-9


def gcra(tat: float, now: float, policy: Policy) -> tuple[Decision, float]:
    """The decision for a request at ``now`` on a bucket whose TAT is ``tat``, and the
    bucket's new TAT (unchanged when refused). The Lua script below is the same function."""
    interval = policy.interval
    base = max(tat, now)
    new_tat = base + interval
    allow_at = new_tat - policy.seconds
    if allow_at - now > _EPSILON:  # a rounding error in seconds is no reason to refuse
        return Decision(False, policy, 0, base - now, allow_at - now), tat
    remaining = math.floor((policy.seconds - (new_tat - now)) / interval + _EPSILON)
    return Decision(True, policy, remaining, new_tat - now, 0.0), new_tat


# KEYS[1] the bucket; ARGV[1] the interval and ARGV[2] the period, in microseconds.
# Returns {allowed, requests remaining, reset, retry-after}, the last two in microseconds.
# The remaining requests are counted here, as :func:`gcra` counts them: Redis cuts a Lua
# number to an integer on the way out, and a slack cut to whole microseconds, divided by
# an interval that is not whole (60 in 2 s: 33,333.33 µs), counted one too few. The TAT is
# written with %.0f (Lua's own tostring keeps 14 digits, too few for a time in µs), so
# a microsecond of rounding is no reason to refuse.
GCRA_SCRIPT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
local base = math.max(tat, now)
local new_tat = base + interval
local allow_at = new_tat - period
if allow_at - now > 1 then
  return {0, 0, base - now, allow_at - now}
end
local ttl = math.max(1, math.ceil((new_tat - now) / 1000))
redis.call('SET', KEYS[1], string.format('%.0f', new_tat), 'PX', ttl)
return {1, math.floor((period - (new_tat - now)) / interval + 1e-9), new_tat - now, 0}
"""
GCRA_SHA = hashlib.sha1(GCRA_SCRIPT.encode()).hexdigest()  # EVALSHA's name for the script
MICRO = 1_000_000


class BreakerOpen(Exception):
    """A queued check's answer once the breaker has opened: decide it locally."""


class LocalBuckets:
    """The same buckets in this process's memory, on an injectable clock."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, size: int = 100_000) -> None:
        self.clock = clock
        self.size = size
        self.tats: dict[tuple[str, str], float] = {}

    def check(self, policy: Policy, who: str) -> Decision:
        now = self.clock()
        key = (policy.name, who)
        decision, tat = gcra(self.tats.get(key, now), now, policy)
        if decision.allowed:
            self._keep(key, tat, now)
        return decision

    def spend(self, policy: Policy, who: str) -> None:
        """Count a request Redis let through, as if this bucket had: were Redis to
        become unusable, the local bucket goes on from what this process spent rather
        than from a full burst."""
        now = self.clock()
        key = (policy.name, who)
        self._keep(key, max(self.tats.get(key, now), now) + policy.interval, now)

    def _keep(self, key: tuple[str, str], tat: float, now: float) -> None:
        if len(self.tats) >= self.size and key not in self.tats:
            self._forget_full(now)
        self.tats[key] = tat

    def _forget_full(self, now: float) -> None:
        """Drop the buckets that are full again (their TAT is past); if none is, all."""
        full = [key for key, tat in self.tats.items() if tat <= now]
        for key in full:
            del self.tats[key]
        if not full:
            self.tats.clear()


class RateLimiter:
    """Checks requests against policies in Redis, or locally while Redis is unusable."""

    def __init__(
        self,
        redis: Redis | RedisCluster | None,
        prefix: str,
        *,
        timeout: float = 0.1,
        retry_seconds: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        in_flight: int = 2,
        batch_limit: int = 500,
    ) -> None:
        self.redis = redis
        self.batch_limit = batch_limit
        self.prefix = prefix
        self.timeout = timeout
        self.retry_seconds = retry_seconds
        self.clock = clock
        self.local = LocalBuckets(clock)
        self.down_until: float | None = None  # the breaker: Redis is not tried before then
        self.probe: asyncio.Task[None] | None = None
        self._waiting: list[tuple[Policy, str, asyncio.Future[Decision]]] = []
        self._senders = Senders(self._send, in_flight, "cardroom-rate-limits")

    def key(self, policy: Policy, who: str) -> str:
        return f"{self.prefix}:rate:{{{policy.name}:{who}}}"

    @property
    def shared(self) -> bool:
        """Whether the last word was Redis's (False while the local buckets decide)."""
        return self.redis is not None and self.down_until is None

    async def check(self, policy: Policy, who: str) -> Decision:
        if self.redis is not None and self._redis_usable():
            try:
                async with asyncio.timeout(self.timeout):  # no task of its own, as wait_for
                    decision = await self._remote(policy, who)
                if decision.allowed:
                    # A flood that saturates the process can make a healthy Redis seem
                    # slow and trip the breaker: the local buckets must not then start
                    # full, which gave an address a burst more at every trip.
                    self.local.spend(policy, who)
                return decision
            except BreakerOpen:
                pass  # another check found Redis unusable while this one was queued
            except (TimeoutError, RedisError, OSError) as exc:
                self._trip(exc)
        metrics.RATE_LIMIT_LOCAL.inc()
        return self.local.check(policy, who)

    async def _remote(self, policy: Policy, who: str) -> Decision:
        """Redis's decision, from the next pipeline to go out. A check that times out
        while queued is not sent; one whose pipeline is on the wire may still be counted
        by its bucket (as a request whose answer was lost would be)."""
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        self._waiting.append((policy, who, future))
        self._senders.wake()
        return await future

    async def _send(self) -> None:
        while self._waiting:
            if self.down_until is not None:  # the breaker opened: what waits is decided here
                settle((future for _, _, future in self._waiting), BreakerOpen())
                self._waiting.clear()
                return
            # A check that gave up waiting was decided locally: Redis must not count it.
            batch = [w for w in self._waiting[: self.batch_limit] if not w[2].done()]
            del self._waiting[: self.batch_limit]
            if not batch:
                continue
            try:
                answers = await self._evaluate([(policy, who) for policy, who, _ in batch])
            except Exception as exc:  # every check of this pipeline gets the failure
                settle((future for _, _, future in batch), exc)
                continue
            except BaseException:
                settle((future for _, _, future in batch), None)
                raise
            for (policy, _, future), answer in zip(batch, answers, strict=True):
                if future.done():  # its request gave up waiting
                    continue
                if isinstance(answer, Exception):
                    future.set_exception(answer)
                else:
                    future.set_result(_decision(policy, answer))

    async def _evaluate(self, checks: list[tuple[Policy, str]]) -> list[Any]:
        """Each check's answer (or its error) from one pipeline; the script is loaded
        and the checks Redis did not know it for sent again (a restarted Redis, a new
        node of a cluster), never one that ran."""
        answers = await self._pipeline(checks)
        missing = [n for n, answer in enumerate(answers) if isinstance(answer, NoScriptError)]
        if missing:
            assert self.redis is not None
            again: list[Any]
            try:
                await self.redis.script_load(GCRA_SCRIPT)
                again = await self._pipeline([checks[n] for n in missing])
            except Exception as exc:  # the answers Redis gave still stand
                again = [exc] * len(missing)
            for n, answer in zip(missing, again, strict=True):
                answers[n] = answer
        return answers

    async def _pipeline(self, checks: list[tuple[Policy, str]]) -> list[Any]:
        assert self.redis is not None
        pipe = self.redis.pipeline(transaction=False)
        for policy, who in checks:
            pipe.evalsha(
                GCRA_SHA, 1, self.key(policy, who), policy.interval * MICRO, policy.seconds * MICRO
            )
        return list(await pipe.execute(raise_on_error=False))

    def _redis_usable(self) -> bool:
        if self.down_until is None:
            return True
        if self.clock() >= self.down_until and self.probe is None:
            self.probe = asyncio.get_running_loop().create_task(self._probe())
        return False

    def _trip(self, exc: BaseException) -> None:
        if self.down_until is None:
            log.warning("rate limits: Redis unusable (%s); limiting in this process", _why(exc))
        self.down_until = self.clock() + self.retry_seconds

    async def _probe(self) -> None:
        """In the background, so that no request waits on a Redis that may be frozen."""
        assert self.redis is not None
        try:
            await asyncio.wait_for(self.redis.ping(), self.timeout)
        except (TimeoutError, RedisError, OSError) as exc:
            self._trip(exc)
        else:
            log.warning("rate limits: Redis answers again; limits are shared")
            self.down_until = None
        finally:
            self.probe = None

    async def load_script(self, seconds: float = 1.0) -> None:
        """Give Redis the script before the first check needs it: otherwise a new
        process's first checks pay NOSCRIPT, the load and a resend within their 100 ms.
        A Redis that does not answer is the checks' to find (and the breaker's)."""
        if self.redis is None:
            return
        with contextlib.suppress(TimeoutError, RedisError, OSError):
            async with asyncio.timeout(seconds):
                await self.redis.script_load(GCRA_SCRIPT)

    async def close(self) -> None:
        """Stops the probe and the pipelines and closes the Redis client (the limiter's
        own)."""
        await self._senders.stop()
        if self.probe is not None:
            self.probe.cancel()
            with contextlib.suppress(BaseException):
                await self.probe
        if self.redis is not None:
            with contextlib.suppress(RedisError, OSError):
                await self.redis.aclose()


def _decision(policy: Policy, answer: Any) -> Decision:
    allowed, remaining, reset, retry = (int(n) for n in answer)
    return Decision(bool(allowed), policy, max(0, remaining), reset / MICRO, retry / MICRO)


def _why(exc: BaseException) -> str:
    return "no answer in time" if isinstance(exc, TimeoutError) else type(exc).__name__
