"""The app served by a real uvicorn on a loopback port, inside the test's event loop.

In-process ASGI transports buffer whole responses, so Server-Sent Events and
long-polls are tested over a real socket.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import uvicorn
from litestar import Litestar

from tests.support.redis_server import free_port


@asynccontextmanager
async def serving(app: Litestar) -> AsyncIterator[str]:
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task
