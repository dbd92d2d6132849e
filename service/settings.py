"""Settings from the environment (DESIGN 9). Nothing else reads ``os.environ``."""

from __future__ import annotations

import os
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
)


def _flag(value: str) -> bool:
    return value.strip().lower() not in ("0", "false", "no", "off")


def _log_format(value: str) -> LogFormat:
    value = value.strip().lower()
    if value == "json":
        return "json"
    if value == "text":
        return "text"
    raise ValueError(f"CARDROOM_LOG_FORMAT must be json or text, not {value!r}")


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
        relay=_flag(env.get("CARDROOM_RELAY", "1")),
        projector=_flag(env.get("CARDROOM_PROJECTOR", "1")),
        timekeeper=_flag(env.get("CARDROOM_TIMEKEEPER", "1")),
        request_seconds=float(env.get("CARDROOM_REQUEST_SECONDS", "1.5")),
    )
