"""Rate limits without servers: the GCRA on a clock the test moves, the policies'
settings, whom an address budget belongs to, and the fallback from a Redis that fails or
hangs (DESIGN 12). The shared buckets in Redis, through two server processes, are
tests/integration/test_rate_limits.py."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError

from service.http.throttle import client_address, policies, trusted_networks
from service.ratelimit import MICRO, LocalBuckets, Policy, RateLimiter, gcra, parse_policy
from service.settings import Settings, from_env


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


CREATE = Policy("create", 30, 60.0)  # 30 at once, then one every 2 s


def test_a_full_bucket_lets_the_burst_through_and_then_one_request_per_interval() -> None:
    clock = Clock()
    buckets = LocalBuckets(clock)
    remaining = [buckets.check(CREATE, "a").remaining for _ in range(30)]
    assert remaining == list(range(29, -1, -1))
    refused = buckets.check(CREATE, "a")
    assert not refused.allowed
    assert refused.retry_after == pytest.approx(2.0)
    assert refused.reset == pytest.approx(60.0)
    clock.now += 1.999
    assert not buckets.check(CREATE, "a").allowed
    clock.now += 0.001
    passed = buckets.check(CREATE, "a")
    assert passed.allowed and passed.remaining == 0
    assert not buckets.check(CREATE, "a").allowed


def test_the_sustained_rate_never_runs_dry() -> None:
    clock = Clock()
    buckets = LocalBuckets(clock)
    for _ in range(200):
        decision = buckets.check(CREATE, "a")
        assert decision.allowed and decision.remaining == 29
        clock.now += CREATE.interval


def test_a_bucket_refills_evenly_and_never_beyond_its_burst() -> None:
    clock = Clock()
    buckets = LocalBuckets(clock)
    for _ in range(30):
        buckets.check(CREATE, "a")
    clock.now += 20.0  # ten intervals
    assert buckets.check(CREATE, "a").remaining == 9
    clock.now += 3600.0
    assert buckets.check(CREATE, "a").remaining == 29


def test_buckets_are_apart_by_policy_and_by_whom() -> None:
    clock = Clock()
    buckets = LocalBuckets(clock)
    seat = Policy("seat", 2, 1.0)
    for _ in range(2):
        buckets.check(seat, "a")
    assert not buckets.check(seat, "a").allowed
    assert buckets.check(seat, "b").allowed
    assert buckets.check(Policy("address", 2, 1.0), "a").allowed


def test_a_refused_request_does_not_spend_the_budget() -> None:
    tat = 1000.0 + 60.0  # the bucket is empty
    decision, kept = gcra(tat, 1000.0, CREATE)
    assert not decision.allowed and kept == tat


def test_memory_is_bounded_by_dropping_full_buckets_first() -> None:
    clock = Clock()
    buckets = LocalBuckets(clock, size=3)
    for who in "abc":
        buckets.check(CREATE, who)
    clock.now += 2.0  # a, b and c are whole again
    buckets.check(CREATE, "d")
    assert set(buckets.tats) == {("create", "d")}


@pytest.mark.parametrize(
    ("text", "burst", "seconds"), [("30/60", 30, 60.0), (" 40/2 ", 40, 2.0), ("3/0.5", 3, 0.5)]
)
def test_a_policy_is_a_burst_and_its_seconds(text: str, burst: int, seconds: float) -> None:
    assert parse_policy("x", text) == Policy("x", burst, seconds)


@pytest.mark.parametrize("text", ["30", "30/", "/60", "0/60", "30/0", "30/-1", "a/b", "1.5/2"])
def test_a_malformed_policy_is_refused_at_start_up(text: str) -> None:
    with pytest.raises(ValueError, match="BURST/SECONDS"):
        parse_policy("create", text)


def test_the_settings_name_every_policy_and_can_turn_them_off() -> None:
    settings = from_env(
        {
            "CARDROOM_RATE_LIMITS": "0",
            "CARDROOM_RATE_CREATE": "5/10",
            "CARDROOM_TRUSTED_PROXIES": "10.0.0.0/8, 192.0.2.1",
        }
    )
    assert not settings.rate_limits
    assert policies(settings).create == Policy("create", 5, 10.0)
    assert policies(settings).seat == Policy("seat", 40, 2.0)
    assert settings.trusted_proxies == ("10.0.0.0/8", "192.0.2.1")
    assert from_env({}).rate_limits
    defaults = policies(Settings(database_url=None, redis_url=None, operator_token="-"))
    assert defaults.create.burst == 30 and defaults.create.seconds == 60


def test_a_malformed_trusted_proxy_is_refused() -> None:
    with pytest.raises(ValueError, match="CARDROOM_TRUSTED_PROXIES"):
        from_env({"CARDROOM_TRUSTED_PROXIES": "10.0.0.0/8, 10.0.0.0/33"})


PROXIES = trusted_networks(["10.0.0.0/8", "127.0.0.1"])


def test_the_client_is_the_peer_unless_the_peer_is_a_trusted_proxy() -> None:
    assert client_address("198.51.100.7", ["203.0.113.1"]) == "198.51.100.7"
    assert client_address("198.51.100.7", ["203.0.113.1"], PROXIES) == "198.51.100.7"
    assert client_address("10.1.2.3", ["203.0.113.1"], PROXIES) == "203.0.113.1"
    assert client_address("10.1.2.3", [], PROXIES) == "10.1.2.3"


def test_forwarded_for_is_read_from_the_right_past_trusted_proxies_only() -> None:
    # The client wrote the first entry itself; only what the proxies appended counts.
    chain = ["6.6.6.6, 203.0.113.1", "10.0.0.5"]
    assert client_address("127.0.0.1", chain, PROXIES) == "203.0.113.1"
    assert client_address("127.0.0.1", ["203.0.113.1, 10.9.9.9"], PROXIES) == "203.0.113.1"
    assert client_address("127.0.0.1", ["203.0.113.1, junk"], PROXIES) == "127.0.0.1"


def test_a_forwarded_address_with_its_port_counts_as_the_address() -> None:
    """Some proxies append the client's port; the budget is the address's all the same."""
    assert client_address("127.0.0.1", ["203.0.113.1:51234"], PROXIES) == "203.0.113.1"
    assert client_address("127.0.0.1", ["[2001:db8:1:2::7]:443"], PROXIES) == "2001:db8:1:2::/64"
    assert client_address("127.0.0.1", ["[2001:db8:1:2::7]"], PROXIES) == "2001:db8:1:2::/64"
    assert client_address("127.0.0.1", ["2001:db8:1:2::7"], PROXIES) == "2001:db8:1:2::/64"
    assert client_address("127.0.0.1", ["203.0.113.1:x"], PROXIES) == "127.0.0.1"


def test_an_ipv6_client_counts_by_its_64_and_a_mapped_ipv4_as_ipv4() -> None:
    assert client_address("2001:db8:1:2:aaaa::1", []) == "2001:db8:1:2::/64"
    assert client_address("2001:db8:1:2:bbbb::9", []) == "2001:db8:1:2::/64"
    assert client_address("::ffff:198.51.100.7", []) == "198.51.100.7"
    assert client_address("testclient", []) == "testclient"


# --- the fallback ---------------------------------------------------------------------------


class BrokenRedis:
    """A Redis that refuses every connection, or (``hang``) never answers."""

    def __init__(self, hang: bool = False) -> None:
        self.hang = hang
        self.calls = 0
        self.healthy = False

    def pipeline(self, transaction: bool = True) -> Any:
        broken = self

        class Pipeline:
            def evalsha(self, *args: Any) -> None:
                return None

            async def execute(self, raise_on_error: bool = True) -> list[Any]:
                broken.calls += 1
                if broken.hang:
                    await asyncio.sleep(3600)
                raise RedisConnectionError("refused")

        return Pipeline()

    async def ping(self) -> bool:
        if self.healthy:
            return True
        raise RedisConnectionError("refused")

    async def aclose(self) -> None:
        return None


async def test_a_hanging_redis_costs_one_request_its_timeout_and_no_more() -> None:
    clock = Clock()
    redis = BrokenRedis(hang=True)
    limiter = RateLimiter(redis, "p", timeout=0.05, retry_seconds=2.0, clock=clock)  # type: ignore[arg-type]
    policy = Policy("seat", 3, 1.0)
    started = time.monotonic()
    first = await limiter.check(policy, "a")
    assert first.allowed and time.monotonic() - started < 1.0
    started = time.monotonic()
    for _ in range(2):
        assert (await limiter.check(policy, "a")).allowed
    assert not (await limiter.check(policy, "a")).allowed  # limited here, alone
    assert time.monotonic() - started < 0.05
    assert redis.calls == 1 and not limiter.shared
    await limiter.close()


async def test_after_the_breaker_a_background_probe_brings_redis_back() -> None:
    clock = Clock()
    redis = BrokenRedis()
    limiter = RateLimiter(redis, "p", timeout=0.05, retry_seconds=2.0, clock=clock)  # type: ignore[arg-type]
    policy = Policy("seat", 3, 1.0)
    await limiter.check(policy, "a")
    assert redis.calls == 1 and not limiter.shared
    clock.now += 1.0
    await limiter.check(policy, "a")
    assert limiter.probe is None  # too early to try again
    clock.now += 1.0
    await limiter.check(policy, "a")  # starts a probe; this request is decided locally
    assert limiter.probe is not None
    await limiter.probe
    assert not limiter.shared and redis.calls == 1  # the probe failed: still local
    clock.now += 2.0
    redis.healthy = True
    await limiter.check(policy, "a")
    assert limiter.probe is not None
    await limiter.probe
    assert limiter.shared
    await limiter.check(policy, "a")
    assert redis.calls == 2  # Redis is asked again
    await limiter.close()


class RedisThatStalls(BrokenRedis):
    """A Redis that lets ``answers`` checks through, then stops answering (or seems to,
    to a process too busy to read its answers in time)."""

    def __init__(self, answers: int) -> None:
        super().__init__(hang=True)
        self.answers = answers

    def pipeline(self, transaction: bool = True) -> Any:
        stalls = self
        checks: list[int] = []

        class Pipeline:
            def evalsha(self, *args: Any) -> None:
                checks.append(1)

            async def execute(self, raise_on_error: bool = True) -> list[Any]:
                stalls.calls += 1
                if stalls.answers < len(checks):
                    await asyncio.sleep(3600)
                stalls.answers -= len(checks)
                return [[1, 0, MICRO, 0] for _ in checks]

        return Pipeline()


async def test_after_a_trip_the_local_buckets_go_on_from_what_redis_let_through() -> None:
    """A flood of refused requests can saturate a process so that a healthy Redis seems
    slow and the breaker trips: the local buckets then started full, a burst more for the
    address at every trip (2-3 times its budget in a 20 s flood)."""
    clock = Clock()
    limiter = RateLimiter(RedisThatStalls(3), "p", timeout=0.05, clock=clock)  # type: ignore[arg-type]
    policy = Policy("create", 3, 60.0)
    for _ in range(3):
        assert (await limiter.check(policy, "10.0.0.1")).allowed
    assert limiter.shared
    tripped = await limiter.check(policy, "10.0.0.1")  # Redis stalls: decided here
    assert not limiter.shared
    assert not tripped.allowed, "the burst Redis counted was granted again"
    assert (await limiter.check(policy, "10.0.0.2")).allowed  # another address is not
    await limiter.close()


async def test_without_redis_every_check_is_local() -> None:
    limiter = RateLimiter(None, "p", clock=Clock())
    policy = Policy("seat", 1, 1.0)
    assert (await limiter.check(policy, "a")).allowed
    assert not (await limiter.check(policy, "a")).allowed


# --- the pipelines ------------------------------------------------------------------------

SEAT = Policy("seat", 10, 10.0)
# Redis's answer allowing a request with 7 more to spare (a fresh local bucket leaves 9).
FROM_REDIS = [1, 7, 3_000_000, 0]


class ScriptedRedis:
    """A Redis whose pipelines answer as scripted: each ``execute`` takes the next entry
    of ``answers`` (a function of the pipeline's keys, or an exception to raise), after
    ``gate`` is set when there is one. ``sent`` holds each pipeline's keys."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.sent: list[list[str]] = []
        self.loads = 0
        self.load_error: Exception | None = None
        self.gate: asyncio.Event | None = None

    def pipeline(self, transaction: bool = True) -> Any:
        redis, keys = self, []

        class Pipeline:
            def evalsha(self, sha: str, numkeys: int, key: str, *args: Any) -> None:
                keys.append(key)

            async def execute(self, raise_on_error: bool = True) -> list[Any]:
                redis.sent.append(list(keys))
                if redis.gate is not None:
                    await redis.gate.wait()
                answer = redis.answers.pop(0)
                if isinstance(answer, Exception):
                    raise answer
                return list(answer(keys))

        return Pipeline()

    async def script_load(self, script: str) -> str:
        self.loads += 1
        if self.load_error is not None:
            raise self.load_error
        return "sha"

    async def ping(self) -> bool:
        return True

    async def aclose(self) -> None:
        return None


def _limiter(redis: ScriptedRedis, **kw: Any) -> RateLimiter:
    return RateLimiter(redis, "p", clock=Clock(), **kw)  # type: ignore[arg-type]


async def test_only_the_checks_redis_lacked_the_script_for_are_sent_again() -> None:
    def half(keys: list[str]) -> list[Any]:
        return [FROM_REDIS if k.endswith(":a}") else NoScriptError("NOSCRIPT") for k in keys]

    redis = ScriptedRedis(half, lambda keys: [FROM_REDIS] * len(keys))
    limiter = _limiter(redis, in_flight=1)
    decisions = await asyncio.gather(limiter.check(SEAT, "a"), limiter.check(SEAT, "b"))
    a, b = limiter.key(SEAT, "a"), limiter.key(SEAT, "b")
    assert redis.sent == [[a, b], [b]] and redis.loads == 1
    assert [d.remaining for d in decisions] == [7, 7] and limiter.shared
    await limiter.close()


async def test_a_failed_reload_keeps_the_answers_redis_gave() -> None:
    redis = ScriptedRedis(lambda keys: [FROM_REDIS, NoScriptError("NOSCRIPT")])
    redis.load_error = RedisConnectionError("refused")
    limiter = _limiter(redis, in_flight=1)
    counted, local = await asyncio.gather(limiter.check(SEAT, "a"), limiter.check(SEAT, "b"))
    assert counted.remaining == 7, "Redis's decision stands"
    assert local.remaining == 9 and not limiter.shared, "the other is decided here"
    await limiter.close()


async def test_a_failed_pipeline_sends_its_checks_to_the_local_buckets_at_once() -> None:
    redis = ScriptedRedis(RedisConnectionError("refused"))
    limiter = _limiter(redis, in_flight=1, timeout=5.0)
    started = time.monotonic()
    decisions = await asyncio.gather(*(limiter.check(SEAT, f"w{n}") for n in range(3)))
    assert time.monotonic() - started < 1.0, "they waited for their timeout"
    assert all(d.allowed for d in decisions) and not limiter.shared
    await limiter.close()


async def test_checks_that_gave_up_while_queued_are_never_sent() -> None:
    redis = ScriptedRedis(lambda keys: [FROM_REDIS] * len(keys))
    redis.gate = asyncio.Event()
    limiter = _limiter(redis, in_flight=1, batch_limit=2, timeout=0.05)
    # The first pipeline hangs: every check times out and is decided locally.
    decisions = await asyncio.gather(*(limiter.check(SEAT, f"w{n}") for n in range(6)))
    assert all(d.remaining == 9 for d in decisions)
    redis.gate.set()
    for _ in range(10):  # the sender takes its answer and looks at what is queued
        await asyncio.sleep(0)
    assert redis.sent == [[limiter.key(SEAT, "w0"), limiter.key(SEAT, "w1")]]
    await limiter.close()


async def test_the_script_is_loaded_ahead_and_a_redis_that_refuses_it_is_no_error() -> None:
    redis = ScriptedRedis()
    limiter = _limiter(redis)
    await limiter.load_script()
    assert redis.loads == 1
    redis.load_error = RedisConnectionError("refused")
    await limiter.load_script()
    assert redis.loads == 2 and limiter.shared, "the checks find out for themselves"
    await limiter.close()
