"""The fan-out hub against a Redis of its own: what it delivers, to whom, and what it
does when a subscription falls behind or Redis goes away and comes back."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from redis.asyncio import Redis
from redis.exceptions import RedisError

from service.workers.clients import named_client
from service.workers.fanout import Hub, Subscription
from service.workers.streams import global_stream
from tests.support.redis_server import RedisServer


@pytest.fixture
async def prefix() -> str:
    return f"fanout-{secrets.token_hex(3)}"


@pytest.fixture
async def hub(redis_server: RedisServer, prefix: str) -> AsyncIterator[Hub]:
    hub = Hub(named_client(redis_server.url, prefix, "fanout", timeout=2.5), prefix, limit=8)
    hub.start()
    yield hub
    await hub.stop()


@pytest.fixture
async def redis(redis_server: RedisServer) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_server.url)
    yield client
    await client.aclose()


async def publish(redis: Redis, prefix: str, table: str, version: int) -> None:
    fields: dict[Any, Any] = {"table": table, "version": version, "position": 0, "type": "t"}
    await redis.xadd(global_stream(prefix), {**fields, "data": b"{}"})


async def subscribed(hub: Hub, *tables: str) -> list[Subscription]:
    """New subscriptions, once the hub reads for them. The first subscription of an idle
    hub starts it, which marks them lost (a stream then catches up from Postgres): taken
    here, so that what a test takes next is only what was published after this."""
    subscriptions = [hub.subscribe(table) for table in tables]
    await asyncio.wait_for(hub.connected.wait(), timeout=5)
    for subscription in subscriptions:
        await subscription.take(0)
    return subscriptions


async def versions(subscription: Subscription, count: int) -> list[int]:
    found: list[int] = []
    while len(found) < count:
        items, lost = await subscription.take(5)
        assert not lost
        assert items, "nothing arrived"
        found.extend(item.version for item in items)
    return found


async def test_each_subscription_gets_its_tables_entries_from_after_it_subscribed(
    hub: Hub, redis: Redis, prefix: str
) -> None:
    await publish(redis, prefix, "a", 1)  # before anyone listens: not delivered
    await asyncio.sleep(0.1)
    first, second, other = await subscribed(hub, "a", "a", "b")
    for version in (2, 3):
        await publish(redis, prefix, "a", version)
    await publish(redis, prefix, "c", 1)  # no one listens to c
    await publish(redis, prefix, "b", 7)
    assert await versions(first, 2) == [2, 3]
    assert await versions(second, 2) == [2, 3]
    assert await versions(other, 1) == [7]
    # The same entry object for every subscription of a table: made once.
    await publish(redis, prefix, "a", 4)
    (mine,), _ = await first.take(5)
    (theirs,), _ = await second.take(5)
    assert mine is theirs
    for subscription in (first, second, other):
        hub.unsubscribe(subscription)
    assert hub.subscriptions == 0


async def test_a_subscription_that_falls_behind_is_marked_lost_and_others_go_on(
    hub: Hub, redis: Redis, prefix: str
) -> None:
    slow, fast = await subscribed(hub, "t", "t")
    received: list[int] = []

    async def keep_up() -> None:
        while len(received) < 20:
            items, lost = await fast.take(5)
            assert not lost
            received.extend(item.version for item in items)

    reader = asyncio.create_task(keep_up())
    for version in range(1, 21):  # one at a time: the hub never waits for the slow one
        await publish(redis, prefix, "t", version)
        await asyncio.sleep(0.005)
    await asyncio.wait_for(reader, timeout=10)
    assert received == list(range(1, 21))
    items, lost = await slow.take(0)
    assert lost and items == []  # past its bound of 8: catch up from Postgres instead
    await publish(redis, prefix, "t", 21)
    assert await versions(slow, 1) == [21]  # and it is delivered to again
    hub.unsubscribe(slow)
    hub.unsubscribe(fast)


async def test_losing_redis_and_getting_it_back_marks_every_subscription_lost(
    hub: Hub, redis: Redis, prefix: str, redis_server: RedisServer
) -> None:
    (subscription,) = await subscribed(hub, "r")
    redis_server.stop()
    try:
        _, lost = await subscription.take(5)
        assert lost and not hub.live  # the streams follow Postgres meanwhile
    finally:
        redis_server.start()  # empty: the global stream is gone
    await asyncio.wait_for(hub.connected.wait(), timeout=10)
    _, lost = await subscription.take(5)
    assert lost  # back: catch up once, then live again
    await publish(redis, prefix, "r", 5)
    assert await versions(subscription, 1) == [5]
    hub.unsubscribe(subscription)


async def test_stop_ends_a_reader_that_turns_its_cancellation_into_a_redis_error(
    redis_server: RedisServer, prefix: str
) -> None:
    """redis-py may turn a cancellation in the middle of a read into an error of its own,
    which the reader takes for a lost Redis. Stopping the hub must still end it (a
    process's shutdown once waited for ever on such a reader)."""

    class CancelledMidRead(Hub):
        async def _read(self) -> None:  # a read that never ends but by its cancellation
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                raise RedisError("connection closed by the cancellation") from None

    hub = CancelledMidRead(Redis.from_url(redis_server.url), prefix)
    hub.start()
    hub.subscribe("t")  # the hub reads, and so is cancelled mid-read
    await asyncio.sleep(0.2)
    await asyncio.wait_for(hub.stop(), timeout=5)
    assert hub._task is not None and hub._task.done()


async def test_a_hub_without_subscriptions_reads_nothing_until_the_first_comes(
    hub: Hub, redis: Redis, prefix: str
) -> None:
    for version in (1, 2, 3):
        await publish(redis, prefix, "q", version)
    await asyncio.sleep(0.2)
    assert hub.received == 0 and not hub.live  # nobody to give them to: not read
    subscription = hub.subscribe("q")
    await asyncio.wait_for(hub.connected.wait(), timeout=5)
    _, lost = await subscription.take(5)
    assert lost  # it began reading after this subscription: catch up from Postgres once
    await publish(redis, prefix, "q", 4)
    assert await versions(subscription, 1) == [4]
    hub.unsubscribe(subscription)


async def test_the_hub_reads_on_for_a_while_after_its_last_subscription_then_idles(
    redis_server: RedisServer, redis: Redis, prefix: str
) -> None:
    now = [0.0]
    client = named_client(redis_server.url, prefix, "fanout", timeout=2.5)
    hub = Hub(client, prefix, linger=30, clock=lambda: now[0])
    hub.start()
    try:
        (subscription,) = await subscribed(hub, "l")
        hub.unsubscribe(subscription)
        now[0] = 29.0  # a stream reconnecting within the linger finds the hub reading
        await publish(redis, prefix, "l", 1)
        await wait_until(lambda: hub.received == 1)
        assert hub.live
        now[0] = 31.0  # past it: the next entry is the last the hub reads
        await publish(redis, prefix, "l", 2)
        await wait_until(lambda: not hub.live)
        assert hub.received == 2
        await publish(redis, prefix, "l", 3)
        await asyncio.sleep(0.2)
        assert hub.received == 2
        (again,) = await subscribed(hub, "l")  # and a new stream starts it again
        await publish(redis, prefix, "l", 4)
        assert await versions(again, 1) == [4]
        hub.unsubscribe(again)
    finally:
        await hub.stop()


async def wait_until(condition: Callable[[], bool]) -> None:
    async with asyncio.timeout(5):
        while not condition():
            await asyncio.sleep(0.01)
