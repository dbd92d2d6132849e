"""Settings from the environment (DESIGN 9). Nothing else reads ``os.environ``."""

from __future__ import annotations

import os
import re
import secrets
from typing import Literal

import msgspec

LogFormat = Literal["json", "text"]


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    database_url: str | None
    redis_url: str | None
    operator_token: str
    redis_prefix: str = "cardroom"
    data_dir: str = ".cardroom"
    pool_min: int = 2
    pool_max: int = 10
    log_level: str = "info"
    log_format: LogFormat = "json"
    # Origins whose pages may call the API from a browser: ("*",) for any; () for none.
    cors_origins: tuple[str, ...] = ()
    relay: bool = True
    projector: bool = True
    timekeeper: bool = True
    # A request whose answer has not started by then gets 503 database-unavailable
    # (service.http.deadline); long-polls add their wait.
    request_seconds: float = 1.5


# Every variable the service reads; deploy/ and the README are checked against it.
VARIABLES = (
    "CARDROOM_DATABASE_URL",
    "CARDROOM_REDIS_URL",
    "CARDROOM_OPERATOR_TOKEN",
    "CARDROOM_REDIS_PREFIX",
    "CARDROOM_DATA_DIR",
    "CARDROOM_POOL_MIN",
    "CARDROOM_POOL_MAX",
    "CARDROOM_LOG_LEVEL",
    "CARDROOM_LOG_FORMAT",
    "CARDROOM_RELAY",
    "CARDROOM_PROJECTOR",
    "CARDROOM_TIMEKEEPER",
    "CARDROOM_REQUEST_SECONDS",
    "CARDROOM_CORS_ORIGINS",
)

# scheme://host[:port], as a browser sends it in Origin: no path, no trailing slash.
_ORIGIN = re.compile(r"[a-z][a-z0-9+.-]*://[^/?#@\s]+")


def _flag(value: str) -> bool:
    return value.strip().lower() not in ("0", "false", "no", "off")


def _log_format(value: str) -> LogFormat:
    value = value.strip().lower()
    if value == "json":
        return "json"
    if value == "text":
        return "text"
    raise ValueError(f"CARDROOM_LOG_FORMAT must be json or text, not {value!r}")


def _origins(value: str) -> tuple[str, ...]:
    """Comma-separated origins, or ``*`` alone; nothing (the default) turns CORS off."""
    origins = tuple(dict.fromkeys(o.strip().lower() for o in value.split(",") if o.strip()))
    if "*" in origins:
        if len(origins) > 1:
            raise ValueError("CARDROOM_CORS_ORIGINS: '*' stands alone, with no other origin")
        return origins
    for origin in origins:
        if not _ORIGIN.fullmatch(origin):
            raise ValueError(
                f"CARDROOM_CORS_ORIGINS: {origin!r} is not an origin such as"
                " https://app.example.com (a scheme and a host, an optional port, no path)"
            )
    return origins


def from_env(environ: dict[str, str] | None = None) -> Settings:
    env = os.environ if environ is None else environ
    return Settings(
        database_url=env.get("CARDROOM_DATABASE_URL") or None,
        redis_url=env.get("CARDROOM_REDIS_URL") or None,
        # Without a configured token the operator's powers go to a random one that
        # `cardroom serve` prints once: never a guessable default.
        operator_token=env.get("CARDROOM_OPERATOR_TOKEN") or secrets.token_urlsafe(24),
        redis_prefix=env.get("CARDROOM_REDIS_PREFIX", "cardroom"),
        data_dir=env.get("CARDROOM_DATA_DIR", ".cardroom"),
        pool_min=int(env.get("CARDROOM_POOL_MIN", "2")),
        pool_max=int(env.get("CARDROOM_POOL_MAX", "10")),
        log_level=env.get("CARDROOM_LOG_LEVEL", "info"),
        log_format=_log_format(env.get("CARDROOM_LOG_FORMAT") or "json"),
        cors_origins=_origins(env.get("CARDROOM_CORS_ORIGINS", "")),
        relay=_flag(env.get("CARDROOM_RELAY", "1")),
        projector=_flag(env.get("CARDROOM_PROJECTOR", "1")),
        timekeeper=_flag(env.get("CARDROOM_TIMEKEEPER", "1")),
        request_seconds=float(env.get("CARDROOM_REQUEST_SECONDS", "1.5")),
    )
