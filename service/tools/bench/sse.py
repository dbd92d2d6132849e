"""Commit-to-SSE latency under load: seats play on many tables while spectators stream.

Latency is measured from each event's ``at`` (stamped just before its commit, on the
server's clock — the same machine) to the moment its SSE message is read by a client.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from datetime import datetime
from typing import Any

import httpx

from service.tools.bench.harness import percentiles


async def _seat_all(http: httpx.AsyncClient, table_id: str) -> list[str]:
    tokens = []
    for seat in range(4):
        answer = await http.post(f"/tables/{table_id}/seats/{seat}", json={"name": f"b{seat}"})
        tokens.append(answer.json()["token"])
    return tokens


def _pick(actions: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    passes = [a for a in actions if a["type"] == "pass"]
    action = passes[0] if passes and rng.random() < 0.5 else rng.choice(actions)
    command = {}
    for key, value in action.items():
        if isinstance(value, dict) and "from" in value:
            value = rng.sample(value["from"], rng.randint(value["min"], value["max"]))
        command[key] = value
    return command


async def _player(
    http: httpx.AsyncClient, table_id: str, tokens: list[str], until: float, seed: int
) -> int:
    rng = random.Random(seed)
    sent = 0
    view = (await http.get(f"/tables/{table_id}")).json()
    while time.monotonic() < until and view["status"] == "playing":
        seat = view["to_act"][0]
        headers = {"Authorization": f"Bearer {tokens[seat]}"}
        mine = (await http.get(f"/tables/{table_id}", headers=headers)).json()
        answer = await http.post(
            f"/tables/{table_id}/actions", json=_pick(mine["legal_actions"], rng), headers=headers
        )
        view = answer.json()["table"]
        sent += 1
    return sent


async def _spectator(
    base: str, table_id: str, after: int, until: float, latencies: list[float], ready: asyncio.Event
) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=None) as http:
        # From the version at the start: no catch-up of old events counts as latency.
        url = f"/tables/{table_id}/stream?timeout=3600&after={after}"
        async with http.stream("GET", url) as response:
            ready.set()
            async for line in response.aiter_lines():
                if line.startswith("data: "):
                    record = json.loads(line[6:])
                    at = datetime.fromisoformat(record["at"]).timestamp()
                    latencies.append(time.time() - at)
                if time.monotonic() > until:
                    return


async def measure(base: str, tables: int, seconds: float) -> dict[str, Any]:
    latencies: list[float] = []
    limits = httpx.Limits(max_connections=tables * 2 + 10)
    async with httpx.AsyncClient(base_url=base, timeout=30, limits=limits) as http:
        seated = []
        for _ in range(tables):
            table = (await http.post("/tables", json={"game": "forty-five", "seats": 4})).json()
            seated.append((table["id"], await _seat_all(http, table["id"])))
        versions = [(await http.get(f"/tables/{t}")).json()["version"] for t, _ in seated]
        ready = [asyncio.Event() for _ in seated]
        until = time.monotonic() + seconds + 30
        watchers = [
            asyncio.create_task(_spectator(base, table_id, version, until, latencies, opened))
            for (table_id, _), version, opened in zip(seated, versions, ready, strict=True)
        ]
        await asyncio.wait_for(asyncio.gather(*(opened.wait() for opened in ready)), timeout=30)
        await asyncio.sleep(0.2)  # every stream open before the load starts
        until = time.monotonic() + seconds
        latencies.clear()
        started = time.monotonic()
        sent = await asyncio.gather(
            *(_player(http, t, tok, until, i) for i, (t, tok) in enumerate(seated))
        )
        elapsed = time.monotonic() - started
        await asyncio.sleep(1.0)
        for watcher in watchers:
            watcher.cancel()
        await asyncio.gather(*watchers, return_exceptions=True)
    return {
        "benchmark": "commit_to_sse_latency",
        "tables": tables,
        "seconds": round(elapsed, 2),
        "commands_per_second": round(sum(sent) / elapsed, 1),
        "latency": percentiles(latencies),
    }
