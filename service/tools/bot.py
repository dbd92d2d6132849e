"""``cardroom bot``: a player that chooses from its seat's ``legal_actions`` over HTTP.

The reference client for integrators, and a load generator for demos. A bot takes a seat
with an ``Idempotency-Key`` (or is given its token), then loops: long-poll the seat's
view (``If-None-Match`` with ``?wait=``), and when the seat is to act send one of its
legal actions with ``If-Match`` and an ``Idempotency-Key``, until the table is finished.
``--play-all`` creates tables and runs a bot in every seat.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
import uuid
from typing import Any, TypedDict

import httpx

from service.choices import choose, pick_index

WAIT = 30  # seconds a long-poll may be held by the server
RETRIES = 8


class Refused(Exception):
    """The server answered with a problem the bot cannot recover from."""

    def __init__(self, response: httpx.Response) -> None:
        super().__init__(f"{response.request.method} {response.request.url}: {response.text}")


class Bot:
    """One seat of one table, playing until the table is finished."""

    def __init__(
        self, http: httpx.AsyncClient, table: str, seat: int, token: str, **kw: Any
    ) -> None:
        self.http, self.table, self.seat = http, table, seat
        self.auth = {"Authorization": f"Bearer {token}"}
        self.rng: random.Random = kw.get("rng") or random.Random()
        self.delay: float = kw.get("delay", 0.0)
        self.sent = 0

    async def play(self) -> dict[str, Any]:
        """Play to the end; the seat's final view."""
        view, tag = await self.look(None)
        stuck = 0  # refusals in a row while the table stays at one version
        while view["status"] in ("waiting", "playing"):  # until finished, aborted or expired
            if self.seat not in view["to_act"] or not view["legal_actions"]:
                view, tag = await self.look(tag)  # wait for the table to move
                continue
            await asyncio.sleep(self.delay)
            actions = view["legal_actions"]
            command = choose(actions[pick_index(actions, self.rng)], self.rng)
            answer = await self.send(command, tag)
            if answer.status_code in (409, 412):  # someone moved first: read and choose again
                view, fresh = await self.look(None)
                stuck, tag = (stuck + 1 if fresh == tag else 0), fresh
                if stuck > RETRIES:  # refused with nothing moving: not a race
                    raise Refused(answer)
                continue
            if answer.status_code != 200:
                raise Refused(answer)
            self.sent += 1
            view, tag = answer.json()["table"], answer.headers["ETag"]
        return view

    async def look(self, tag: str | None) -> tuple[dict[str, Any], str]:
        """The seat's view; with ``tag``, held by the server until it differs."""
        headers = self.auth if tag is None else {**self.auth, "If-None-Match": tag}
        params = {} if tag is None else {"wait": WAIT}
        while True:
            response = await self.request("GET", f"/tables/{self.table}", headers, params=params)
            if response.status_code == 200:
                return response.json(), response.headers["ETag"]
            if response.status_code != 304:
                raise Refused(response)

    async def send(self, command: dict[str, Any], tag: str) -> httpx.Response:
        # One key per command: a retry after a lost answer is recorded once.
        headers = {**self.auth, "If-Match": tag, "Idempotency-Key": uuid.uuid4().hex}
        return await self.request("POST", f"/tables/{self.table}/actions", headers, json=command)

    async def request(
        self, method: str, url: str, headers: dict[str, str], **kw: Any
    ) -> httpx.Response:
        return await request(self.http, method, url, headers, **kw)


async def request(
    http: httpx.AsyncClient,
    method: str,
    url: str,
    headers: dict[str, str] | None,
    **kw: Any,
) -> httpx.Response:
    """The request, sent again after ``Retry-After`` while it is rate limited, and with
    backoff while the server is unreachable or unavailable (the same headers, so a
    command's retry carries its first Idempotency-Key): every request the bot sends is
    one it may send again."""
    attempt = 0
    while True:
        last = attempt == RETRIES - 1
        try:
            response = await http.request(method, url, headers=headers, **kw)
            if response.status_code == 429:
                await asyncio.sleep(_retry_after(response))
                continue
            if response.status_code < 500 or last:
                return response
        except httpx.TransportError:
            if last:
                raise
        await asyncio.sleep(min(0.1 * 2**attempt, 5.0))
        attempt += 1


def _retry_after(response: httpx.Response) -> float:
    """The seconds a 429 asks for (1 when it does not say), at most a minute."""
    text = response.headers.get("Retry-After", "")
    return min(float(text), 60.0) if text.isdigit() else 1.0


async def take_seat(http: httpx.AsyncClient, table: str, seat: int, name: str) -> str:
    """Take the seat; a retry after a lost answer carries the same Idempotency-Key, so it
    gets the same token instead of finding its own seat taken."""
    path = f"/tables/{table}/seats/{seat}"
    headers = {"Idempotency-Key": str(uuid.uuid4())}
    response = await request(http, "POST", path, headers, json={"name": name})
    if response.status_code != 201:
        raise Refused(response)
    token: str = response.json()["token"]
    return token


async def play_seat(
    url: str, table: str, seat: int, *, name: str, token: str | None, seed: int | None, delay: float
) -> dict[str, Any]:
    """Take ``seat`` (unless ``token`` is given) and play it to the end."""
    async with httpx.AsyncClient(base_url=url, timeout=WAIT + 30) as http:
        token = token or await take_seat(http, table, seat, name)
        bot = Bot(http, table, seat, token, rng=random.Random(seed), delay=delay)
        return await bot.play()


async def play_table(
    http: httpx.AsyncClient, game: str, seats: int, options: dict[str, Any], seed: int, delay: float
) -> tuple[dict[str, Any], int]:
    """Create a table, seat a bot in every seat and play it out: (final view, commands).
    A retry of the creation carries the same Idempotency-Key: it opens no second table."""
    body = {"game": game, "seats": seats, "options": options}
    headers = {"Idempotency-Key": str(uuid.uuid4())}
    response = await request(http, "POST", "/tables", headers, json=body)
    if response.status_code != 201:
        raise Refused(response)
    table = response.json()["id"]
    tokens = [await take_seat(http, table, s, f"bot {s}") for s in range(seats)]
    rng = random.Random(seed)
    bots = [
        Bot(http, table, seat, token, rng=random.Random(rng.random()), delay=delay)
        for seat, token in enumerate(tokens)
    ]
    views = await asyncio.gather(*(bot.play() for bot in bots))
    return views[0], sum(bot.sent for bot in bots)


async def play_all(
    url: str,
    game: str,
    seats: int,
    *,
    options: dict[str, Any],
    tables: int = 1,
    seed: int | None = None,
    delay: float = 0.0,
) -> list[dict[str, Any]]:
    """``tables`` tables at once, every seat a bot; one summary per table."""
    started = time.monotonic()
    limits = httpx.Limits(max_connections=tables * seats + 4)
    async with httpx.AsyncClient(base_url=url, timeout=WAIT + 30, limits=limits) as http:
        seeds = random.Random(seed)
        played = await asyncio.gather(
            *(
                play_table(http, game, seats, options, seeds.randrange(2**32), delay)
                for _ in range(tables)
            )
        )
    seconds = time.monotonic() - started
    return [
        {**summary(view), "commands": sent, "seconds": round(seconds, 2)} for view, sent in played
    ]


class Pace(TypedDict):
    """How every bot of one command plays, whichever the mode: the seed of its random
    choices and the seconds it waits before each command."""

    seed: int | None
    delay: float


def summary(view: dict[str, Any]) -> dict[str, Any]:
    return {key: view.get(key) for key in ("id", "game", "version", "scores", "winners")}


def main(args: Any) -> int:
    """The ``cardroom bot`` command (arguments parsed in :mod:`service.tools.cli`)."""
    url = args.url.rstrip("/")
    if not args.play_all and (args.table is None or args.seat is None):
        raise SystemExit("cardroom bot: give --table and --seat, or --play-all")
    pace = Pace(seed=args.seed, delay=args.delay)
    try:
        if args.play_all:
            options = json.loads(args.options)
            played = play_all(
                url, args.game, args.seats, options=options, tables=args.tables, **pace
            )
            lines = asyncio.run(played)
        else:
            name = args.name or f"bot {args.seat}"
            seat = play_seat(url, args.table, args.seat, name=name, token=args.token, **pace)
            lines = [{**summary(asyncio.run(seat)), "seat": args.seat}]
    except (Refused, httpx.HTTPError) as exc:
        print(f"cardroom bot: {exc}", file=sys.stderr)
        return 1
    for line in lines:
        print(json.dumps(line), flush=True)
    return 0
