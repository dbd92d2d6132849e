"""Rate limits across two ``cardroom serve`` processes on one database and one Redis (the
module's own, which the last tests freeze and stop): one budget shared by both, 429 with
``Retry-After``, the ``RateLimit-*`` fields and a problem document, a request after the
wait passes, and each process limiting alone while Redis is out (DESIGN 12).

Short windows keep the real waits to a second: table creation 4 per 4 s, a seat token 5
per 5 s. Server A takes the socket's peer as the client; server B trusts 127.0.0.1 as a
proxy, so each test there picks its own client address with ``X-Forwarded-For``.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
import redis

from service.ratelimit import LocalBuckets, Policy, RateLimiter
from service.tools.bench.harness import running_server
from tests.support import services
from tests.support.api import bearer
from tests.support.redis_server import RedisServer

CREATE, SEAT = (4, 4.0), (5, 5.0)
PREFIX = f"rl-{secrets.token_hex(3)}"
TABLE = {"game": "pitch", "seats": 4}
SPEC = json.loads((Path(__file__).parents[2] / "api_spec" / "openapi.json").read_text())
# A request that must not wait on Redis: far less than a frozen Redis would hold it.
QUICK = 0.5


class Servers:
    def __init__(self, a: str, b: str, operator: str, redis_server: RedisServer) -> None:
        self.a = httpx.Client(base_url=a, timeout=5)
        self.b = httpx.Client(base_url=b, timeout=5)
        self.operator = bearer(operator)
        self.redis_server = redis_server

    def both(self) -> list[httpx.Client]:
        return [self.a, self.b]


@pytest.fixture(scope="module")
def servers(redis_server: RedisServer) -> Iterator[Servers]:
    database_url = services.fresh_database("rate_")
    shared = {
        "CARDROOM_OPERATOR_TOKEN": secrets.token_urlsafe(16),
        "CARDROOM_REDIS_PREFIX": PREFIX,
        "CARDROOM_RATE_CREATE": "{}/{:g}".format(*CREATE),
        "CARDROOM_RATE_SEAT": "{}/{:g}".format(*SEAT),
        "CARDROOM_RATE_ADDRESS": "30/3",
    }
    behind_proxy = {**shared, "CARDROOM_TRUSTED_PROXIES": "127.0.0.1"}
    url = redis_server.url
    with (
        running_server(database_url, url, extra_env=shared, rate_limits=True) as a,
        running_server(database_url, url, extra_env=behind_proxy, rate_limits=True) as b,
    ):
        found = Servers(a.base, b.base, shared["CARDROOM_OPERATOR_TOKEN"], redis_server)
        yield found
        found.a.close()
        found.b.close()


def _from(address: str) -> dict[str, str]:
    return {"X-Forwarded-For": address}


def _rate_fields(response: httpx.Response) -> dict[str, str]:
    return {k.lower(): v for k, v in response.headers.items() if k.lower().startswith("ratelimit")}


def _conforms_to_the_document(response: httpx.Response, path: str, method: str) -> None:
    """The 429 as the OpenAPI document states it: every header it names, and a Problem."""
    documented = SPEC["paths"][path][method]["responses"]["429"]
    for name, header in documented["headers"].items():
        if "$ref" in header:  # a field many answers share is defined once
            header = SPEC["components"]["headers"][header["$ref"].rsplit("/", 1)[-1]]
        assert header["required"] and name in response.headers, name
        if header["schema"]["type"] == "integer":
            assert int(response.headers[name]) >= 0
    assert response.headers["content-type"] == "application/problem+json"
    schema = {"$ref": "#/components/schemas/Problem", "components": SPEC["components"]}
    jsonschema.validate(response.json(), schema)


def test_table_creation_is_one_budget_across_both_processes(servers: Servers) -> None:
    answers = [servers.both()[i % 2].post("/tables", json=TABLE) for i in range(CREATE[0] + 1)]
    assert [a.status_code for a in answers] == [201] * CREATE[0] + [429]
    assert [int(a.headers["RateLimit-Remaining"]) for a in answers] == [3, 2, 1, 0, 0]
    refused = answers[-1]
    assert refused.json()["code"] == "rate-limited"
    assert refused.json()["context"] == {"policy": "create", "limit": 4, "window_seconds": 4.0}
    assert _rate_fields(refused) == {
        "ratelimit-limit": "4",
        "ratelimit-remaining": "0",
        "ratelimit-reset": "4",
        "ratelimit-policy": "4;w=4",
    }
    assert refused.headers["Retry-After"] == "1"
    _conforms_to_the_document(refused, "/tables", "post")
    # The other process refuses too: the budget is in Redis.
    assert servers.a.post("/tables", json=TABLE).status_code == 429
    time.sleep(float(refused.headers["Retry-After"]))
    again = servers.b.post("/tables", json=TABLE)
    assert again.status_code == 201, again.text
    assert again.headers["RateLimit-Remaining"] == "0"


def test_forwarded_for_names_the_client_only_behind_a_trusted_proxy(servers: Servers) -> None:
    for _ in range(CREATE[0] + 1):  # whatever is left of 127.0.0.1's budget, spent
        servers.a.post("/tables", json=TABLE)
    # A ignores the header: any client may write it.
    assert servers.a.post("/tables", json=TABLE, headers=_from("192.0.2.1")).status_code == 429
    # B was told 127.0.0.1 is a proxy: each client named there has its own budget.
    for client in ("192.0.2.1", "192.0.2.2"):
        answers = [
            servers.b.post("/tables", json=TABLE, headers=_from(client)).status_code
            for _ in range(CREATE[0] + 1)
        ]
        assert answers == [201] * CREATE[0] + [429], client


def test_a_seat_token_has_one_budget_across_both_processes(servers: Servers) -> None:
    table = servers.a.post("/tables", json=TABLE, headers=servers.operator)
    assert table.status_code == 201 and "RateLimit-Limit" not in table.headers
    path = f"/tables/{table.json()['id']}"
    seat = servers.b.post(f"{path}/seats/0", json={"name": "Ann"}, headers=_from("192.0.2.10"))
    token = bearer(seat.json()["token"])
    answers = [servers.both()[i % 2].get(path, headers=token) for i in range(SEAT[0] + 1)]
    assert [a.status_code for a in answers] == [200] * SEAT[0] + [429]
    assert answers[0].headers["RateLimit-Policy"] == "5;w=5"
    assert answers[-1].json()["context"]["policy"] == "seat"
    _conforms_to_the_document(answers[-1], "/tables/{table_id}", "get")
    # Apart from the seat: a spectator at the same address, and the operator, who is
    # never counted.
    assert servers.a.get(path).status_code == 200
    operator = servers.b.get(path, headers=servers.operator)
    assert operator.status_code == 200 and "RateLimit-Limit" not in operator.headers


def test_made_up_tokens_are_counted_on_their_address(servers: Servers) -> None:
    """Each lookup of a token the process has not seen costs the address's budget (30
    per 3 s here), so guessing tokens is throttled like any anonymous caller."""
    statuses = [
        servers.b.get(
            "/tables", headers={**bearer(secrets.token_urlsafe(16)), **_from("192.0.2.20")}
        ).status_code
        for _ in range(40)
    ]
    assert statuses[:30] == [401] * 30
    assert 429 in statuses


def test_probes_are_never_counted(servers: Servers) -> None:
    for _ in range(40):
        answer = servers.b.get("/healthz", headers=_from("192.0.2.30"))
        assert answer.status_code == 200 and "RateLimit-Limit" not in answer.headers


async def test_the_redis_script_is_one_bucket_per_key_with_a_hash_tag(
    servers: Servers,
) -> None:
    from redis.asyncio import Redis

    client = Redis.from_url(servers.redis_server.url)
    limiter = RateLimiter(client, "rl-script")
    policy = Policy("seat", 3, 0.3)
    decisions = [await limiter.check(policy, "who") for _ in range(4)]
    assert [d.allowed for d in decisions] == [True, True, True, False]
    assert [d.remaining for d in decisions] == [2, 1, 0, 0]
    assert 0 < decisions[-1].retry_after <= 0.1 and limiter.shared
    assert await client.keys("rl-script:*") == [b"rl-script:rate:{seat:who}"]
    assert 0 < await client.pttl("rl-script:rate:{seat:who}") <= 300
    await asyncio.sleep(decisions[-1].retry_after)
    assert (await limiter.check(policy, "who")).allowed
    await limiter.close()


async def test_redis_counts_the_requests_remaining_as_the_local_buckets_do(
    servers: Servers,
) -> None:
    """60 requests in 2 s is one every 33,333.33 µs: Redis returned the slack cut to
    whole microseconds, and the first request of a full budget was told 58 remained."""
    from redis.asyncio import Redis

    client = Redis.from_url(servers.redis_server.url)
    limiter = RateLimiter(client, "rl-count")
    policy = Policy("address", 60, 2.0)
    first = await limiter.check(policy, "who")  # a full bucket: its first request
    assert first.remaining == LocalBuckets().check(policy, "who").remaining == 59, first
    assert limiter.shared
    await limiter.close()


async def test_a_burst_of_checks_shares_pipelines_and_stays_shared(servers: Servers) -> None:
    """Four hundred requests at once on a client allowed two connections: each check is
    Redis's (a connection per check would have run the client out of them and sent the
    process to its local buckets), and each bucket counted its own requests."""
    from redis.asyncio import Redis

    client = Redis.from_url(servers.redis_server.url, max_connections=2)
    limiter = RateLimiter(client, "rl-burst")
    policy = Policy("seat", 2, 60.0)
    who = [f"phone-{n % 200}" for n in range(400)]
    decisions = await asyncio.gather(*(limiter.check(policy, w) for w in who))
    assert limiter.shared, "a check fell back to the local buckets"
    assert all(d.allowed for d in decisions)
    refused = await asyncio.gather(*(limiter.check(policy, f"phone-{n}") for n in range(200)))
    assert not any(d.allowed for d in refused), "every bucket holds its two requests"
    assert len(await client.keys("rl-burst:*")) == 200
    await limiter.close()


async def test_a_redis_that_lost_the_script_is_given_it_again(servers: Servers) -> None:
    from redis.asyncio import Redis

    client = Redis.from_url(servers.redis_server.url)
    limiter = RateLimiter(client, "rl-flush")
    policy = Policy("seat", 3, 60.0)
    assert (await limiter.check(policy, "who")).remaining == 2
    await client.script_flush()  # as a restarted Redis has no scripts
    again = await asyncio.gather(*(limiter.check(policy, "who") for _ in range(2)))
    assert sorted(d.remaining for d in again) == [0, 1], "each check ran exactly once"
    assert limiter.shared
    await limiter.close()


def _quick(client: httpx.Client, **kw: Any) -> httpx.Response:
    started = time.monotonic()
    answer = client.post("/tables", json=TABLE, **kw)
    assert time.monotonic() - started < QUICK, "the request waited on Redis"
    return answer


def test_a_frozen_redis_slows_nothing_and_each_process_limits_alone(servers: Servers) -> None:
    servers.redis_server.freeze()
    try:
        statuses = [
            _quick(servers.b, headers=_from("192.0.2.40")).status_code for _ in range(CREATE[0] + 1)
        ]
        assert statuses == [201] * CREATE[0] + [429]
    finally:
        servers.redis_server.thaw()


def test_with_redis_stopped_limits_go_on_locally_and_come_back_shared(
    servers: Servers,
) -> None:
    servers.redis_server.stop()
    statuses = [
        _quick(servers.b, headers=_from("192.0.2.50")).status_code for _ in range(CREATE[0] + 1)
    ]
    assert statuses == [201] * CREATE[0] + [429]
    servers.redis_server.start()  # empty, on the same port
    check = redis.Redis.from_url(servers.redis_server.url)
    deadline = time.monotonic() + 10
    while not check.keys(f"{PREFIX}:rate:*"):  # the probe (every 2 s) brings Redis back
        assert time.monotonic() < deadline, "the limits did not go back to Redis"
        _quick(servers.b, headers=_from("192.0.2.60"))
        time.sleep(0.2)
    assert check.keys(f"{PREFIX}:rate:*") == [b"%s:rate:{create:192.0.2.60}" % PREFIX.encode()]
    check.close()
