"""Settings from the environment (DESIGN 9). Nothing else reads ``os.environ``."""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Mapping
from typing import NamedTuple

import msgspec


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    database_url: str | None
    redis_url: str | None
    operator_token: str
    redis_prefix: str = "cardroom"
    data_dir: str = ".cardroom"
    pool_min: int = 2
    pool_max: int = 10
    log_level: str = "info"
    relay: bool = True
    projector: bool = True
    timekeeper: bool = True
    # A request whose answer has not started by then gets 503 database-unavailable
    # (service.http.deadline); long-polls add their wait.
    request_seconds: float = 1.5
    # Whether `cardroom serve` may start embedded servers: "auto", "1" or "0" (see
    # embedded_servers below).
    embedded: str = "auto"
    # A stopping server lets open requests (long-polls, event streams) run this long
    # before it closes them; a deployment's grace period must be longer.
    shutdown_seconds: float = 20.0


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
    "CARDROOM_RELAY",
    "CARDROOM_PROJECTOR",
    "CARDROOM_TIMEKEEPER",
    "CARDROOM_REQUEST_SECONDS",
    "CARDROOM_EMBEDDED",
    "CARDROOM_SHUTDOWN_SECONDS",
)
EMBEDDED_CHOICES = ("auto", "1", "0")
# What says a process runs in a container: Docker's and Podman's marker files, and the
# variable Kubernetes sets in every pod.
CONTAINER_FILES = ("/.dockerenv", "/run/.containerenv")
CONTAINER_VARIABLE = "KUBERNETES_SERVICE_HOST"


class SettingsError(ValueError):
    """A setting, or a combination of them, the service cannot run with; the message
    names the variable to set."""


def _flag(value: str) -> bool:
    return value.strip().lower() not in ("0", "false", "no", "off")


def _embedded(value: str) -> str:
    word = value.strip().lower()
    if word == "auto":
        return "auto"
    if word in ("1", "true", "yes", "on"):
        return "1"
    if word in ("0", "false", "no", "off"):
        return "0"
    raise SettingsError(f"CARDROOM_EMBEDDED must be auto, 1 or 0, not {value!r}")


def from_env(environ: Mapping[str, str] | None = None) -> Settings:
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
        relay=_flag(env.get("CARDROOM_RELAY", "1")),
        projector=_flag(env.get("CARDROOM_PROJECTOR", "1")),
        timekeeper=_flag(env.get("CARDROOM_TIMEKEEPER", "1")),
        request_seconds=float(env.get("CARDROOM_REQUEST_SECONDS", "1.5")),
        embedded=_embedded(env.get("CARDROOM_EMBEDDED", "auto")),
        shutdown_seconds=float(env.get("CARDROOM_SHUTDOWN_SECONDS", "20")),
    )


def container_evidence(
    environ: Mapping[str, str] | None = None, exists: Callable[[str], bool] = os.path.exists
) -> str | None:
    """What shows that this process runs in a container, or ``None``."""
    env = os.environ if environ is None else environ
    if env.get(CONTAINER_VARIABLE):
        return CONTAINER_VARIABLE
    return next((path for path in CONTAINER_FILES if exists(path)), None)


class Embedding(NamedTuple):
    """Which servers `cardroom serve` starts itself."""

    postgres: bool
    redis: bool


def embedded_servers(settings: Settings, container: str | None) -> Embedding:
    """Which embedded servers ``serve`` may start, or :class:`SettingsError` saying why
    it must not start at all.

    ``CARDROOM_EMBEDDED=1`` embeds whatever is not configured; ``0`` never embeds;
    ``auto`` embeds both only on a bare machine with nothing configured (the README's
    first command). Anywhere else an embedded server would be private to one process,
    which in a container means a database per replica, lost with it; and with one URL
    set the other was most likely forgotten, not meant to be private. ``container``:
    what shows this is a container (:func:`container_evidence`)."""
    missing = [
        name
        for name, url in (
            ("CARDROOM_DATABASE_URL", settings.database_url),
            ("CARDROOM_REDIS_URL", settings.redis_url),
        )
        if not url
    ]
    if not missing:
        return Embedding(postgres=False, redis=False)
    if settings.embedded == "1" or (
        settings.embedded == "auto" and len(missing) == 2 and container is None
    ):
        return Embedding(postgres=not settings.database_url, redis=not settings.redis_url)
    unset = " and ".join(missing) + (" are" if len(missing) > 1 else " is")
    if settings.embedded == "0":
        why = "CARDROOM_EMBEDDED=0 forbids embedded servers"
    elif container is not None:
        why = (
            f"this is a container ({container}), where an embedded server would be"
            " private to this replica and lost with it"
        )
    else:
        why = "the other server is configured, so an embedded one here is most likely a mistake"
    raise SettingsError(
        f"{unset} not set, and {why}. Set {' and '.join(missing)} to the"
        f" {'servers' if len(missing) > 1 else 'server'} to use"
        " (or CARDROOM_EMBEDDED=1 for throw-away embedded ones)."
    )
