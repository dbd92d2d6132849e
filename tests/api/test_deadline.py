"""The request deadline (service.http.deadline) around bare ASGI handlers: a handler that
has not started its answer when the deadline passes is answered 503 at once and
cancelled behind it; one whose answer is under way finishes; a cancellation that is not
the deadline's goes on. Deadlines here are 20 ms, so nothing waits long."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import pytest

from service.http.deadline import deadline_middleware, deadline_of

DEADLINE = 0.02
SCOPE = {"type": "http", "method": "GET", "path": "/tables/x", "query_string": b"", "headers": []}


class Recorder:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    async def send(self, message: Any) -> None:
        self.messages.append(message)

    @property
    def status(self) -> int:
        return int(self.messages[0]["status"])


async def receive() -> Any:
    return {"type": "http.request", "body": b"", "more_body": False}


async def run(app: Any, recorder: Recorder) -> None:
    """The guarded app in a task of its own, as uvicorn runs each request; the task must
    end without a cancellation pending."""
    guarded = deadline_middleware(DEADLINE)(app)

    async def request() -> None:
        await guarded(SCOPE, receive, recorder.send)
        task = asyncio.current_task()
        assert task is not None and task.cancelling() == 0

    await asyncio.wait_for(asyncio.ensure_future(request()), timeout=5)


async def test_a_handler_silent_past_the_deadline_is_answered_503_and_cancelled() -> None:
    cancelled = asyncio.Event()

    async def stuck(scope: Any, receive: Any, send: Any) -> None:
        try:
            await asyncio.Event().wait()  # a database that never answers
        except asyncio.CancelledError:
            cancelled.set()
            raise

    recorder = Recorder()
    await run(stuck, recorder)
    assert recorder.status == 503
    headers = dict(recorder.messages[0]["headers"])
    assert headers[b"retry-after"] == b"1"
    assert json.loads(recorder.messages[1]["body"])["code"] == "database-unavailable"
    assert cancelled.is_set()


async def test_a_handler_that_swallows_the_cancellation_cannot_answer_twice() -> None:
    async def stubborn(scope: Any, receive: Any, send: Any) -> None:
        with contextlib.suppress(asyncio.CancelledError):  # as some client libraries do
            await asyncio.Event().wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"late"})

    recorder = Recorder()
    await run(stubborn, recorder)
    assert [m.get("status") for m in recorder.messages if "status" in m] == [503]
    assert b"late" not in b"".join(m.get("body", b"") for m in recorder.messages)


async def test_an_answer_under_way_at_the_deadline_finishes() -> None:
    async def slow_body(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await asyncio.sleep(DEADLINE * 3)
        await send({"type": "http.response.body", "body": b"whole"})

    recorder = Recorder()
    await run(slow_body, recorder)
    assert recorder.status == 200
    assert recorder.messages[-1]["body"] == b"whole"


async def test_a_long_poll_has_the_wait_its_handler_read_on_top_of_the_deadline() -> None:
    """The middleware reads no query: the handler, having validated ``wait``, extends
    the deadline by it."""

    async def long_poll(scope: Any, receive: Any, send: Any) -> None:
        deadline = deadline_of(scope)
        assert deadline is not None
        deadline.extend(DEADLINE * 4)
        await asyncio.sleep(DEADLINE * 3)  # the table did not move: 304
        await send({"type": "http.response.start", "status": 304, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    recorder = Recorder()
    await run(long_poll, recorder)
    assert recorder.status == 304


POST = {**SCOPE, "method": "POST", "headers": [(b"content-length", b"20")]}


def trickle(pieces: int, pause: float) -> Any:
    """A body arriving in ``pieces`` two-byte pieces, ``pause`` seconds apart."""
    sent = 0

    async def receive() -> Any:
        nonlocal sent
        await asyncio.sleep(pause)
        sent += 1
        return {"type": "http.request", "body": b"{}", "more_body": sent < pieces}

    return receive


async def read_then_answer(scope: Any, receive: Any, send: Any) -> None:
    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"done"})


async def test_a_slow_body_has_time_of_its_own_before_the_deadline_starts() -> None:
    """Ten pieces over five deadlines' time: the body's own budget covers them."""
    recorder = Recorder()
    guarded = deadline_middleware(DEADLINE, body_seconds=DEADLINE * 50)(read_then_answer)
    await asyncio.wait_for(guarded(POST, trickle(10, DEADLINE / 2), recorder.send), 5)
    assert recorder.status == 200


async def test_a_body_that_never_finishes_arriving_is_a_408_that_closes() -> None:
    recorder = Recorder()
    guarded = deadline_middleware(DEADLINE, body_seconds=DEADLINE * 2)(read_then_answer)
    await asyncio.wait_for(guarded(POST, trickle(1000, DEADLINE), recorder.send), 5)
    assert recorder.status == 408
    headers = dict(recorder.messages[0]["headers"])
    assert headers[b"connection"] == b"close"
    assert json.loads(recorder.messages[1]["body"])["code"] == "request-timeout"


async def test_a_cancellation_that_is_not_the_deadlines_goes_on() -> None:
    started = asyncio.Event()

    async def waiting(scope: Any, receive: Any, send: Any) -> None:
        started.set()
        await asyncio.Event().wait()

    guarded = deadline_middleware(60)(waiting)
    task = asyncio.ensure_future(guarded(SCOPE, receive, Recorder().send))
    await started.wait()
    task.cancel()  # a shutdown, say
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_work_before_the_body_is_read_has_the_requests_own_deadline() -> None:
    """A database that stalls before the app reads the body (a token's lookup) is a 503,
    not a wait as long as a body's."""

    async def stuck_before_reading(scope: Any, receive: Any, send: Any) -> None:
        await asyncio.Event().wait()

    recorder = Recorder()
    guarded = deadline_middleware(DEADLINE, body_seconds=60)(stuck_before_reading)
    await asyncio.wait_for(guarded(POST, trickle(1, 0), recorder.send), 5)
    assert recorder.status == 503
