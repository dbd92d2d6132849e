"""Settings from the environment (DESIGN 9). Nothing else in the service reads
``os.environ``; only two tools take defaults of their own from it: ``cardroom bench``
(``CARDROOM_BENCH_DATABASE_URL``, ``CARDROOM_BENCH_REPLICA_URL``) and ``cardroom bot``
(``CARDROOM_SEAT_TOKEN``)."""

from __future__ import annotations

import ipaddress
import math
import os
import re
import secrets
from collections.abc import Mapping
from typing import Literal, NamedTuple

import msgspec
import psycopg
from psycopg.conninfo import conninfo_to_dict
from redis.asyncio.connection import parse_url

from service.ratelimit import parse_policy

# The rate limits' defaults, each BURST/SECONDS (the README's Configuration table).
RATE_CREATE = "30/60"
RATE_SEAT = "40/2"
RATE_ADDRESS = "60/2"

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
    retention: bool = True
    # Retention (DESIGN 12): how long an idempotency record answers retries, and how
    # long a table may wait for players before it expires.
    idempotency_hours: float = 24.0
    waiting_hours: float = 24.0
    # A request whose answer has not started by then gets 503 database-unavailable
    # (service.http.deadline); long-polls add their wait.
    request_seconds: float = 1.5
    # Rate limits (service.ratelimit, service.http.throttle): each BURST/SECONDS, a burst
    # refilled evenly over the seconds. Off for benchmarks.
    rate_limits: bool = True
    rate_create: str = RATE_CREATE
    rate_seat: str = RATE_SEAT
    rate_address: str = RATE_ADDRESS
    # Proxies whose X-Forwarded-For names the client (addresses or networks).
    trusted_proxies: tuple[str, ...] = ()
    # At most this long between two messages of an event stream: a keep-alive comment
    # when nothing happens, and its interval in the stream's Cardroom-Keep-Alive header.
    keep_alive_seconds: float = 15.0
    # Long-polls and streams a process holds at once (service.http.holds): per token,
    # per address of callers without one, and in all; 0 for no bound.
    held_per_token: int = 8
    held_per_address: int = 256
    held_per_process: int = 10_000
    # Request bodies a process receives at once from one client address (service.http.
    # protocol): each holds up to 1 MiB until whole; 0 for no bound.
    bodies_per_address: int = 16
    # Whether `cardroom serve` may start embedded servers: "auto", "1" or "0" (see
    # embedded_servers below).
    embedded: str = "auto"
    # A stopping server lets requests in flight (commands, reads) run this long before it
    # closes them; long-polls and event streams answer and end at once. A deployment's
    # grace period must be longer.
    shutdown_seconds: float = 20.0
    # A connection whose request line and headers have not all arrived by then is closed
    # (service.http.protocol): from the connection's start, or from a request's first byte.
    header_timeout_seconds: float = 10.0
    # A connection whose client has read none of its answer for this long, while the
    # server waits for room to write more, is closed (service.http.protocol).
    send_timeout_seconds: float = 30.0
    # Postgres streaming replicas that serve reads (service.read.replicas, DESIGN 13).
    replica_urls: tuple[str, ...] = ()
    # A replica whose replay is this far behind the primary is skipped until it catches up.
    replica_max_lag_seconds: float = 5.0
    # Redis: "0" a single server, "1" a Redis Cluster (CARDROOM_REDIS_URL names any node),
    # "auto" asks the server at start-up.
    redis_cluster: str = "0"


MAX_HOURS = 876_000  # a hundred years

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
    "CARDROOM_RETENTION",
    "CARDROOM_IDEMPOTENCY_HOURS",
    "CARDROOM_WAITING_HOURS",
    "CARDROOM_RATE_LIMITS",
    "CARDROOM_RATE_CREATE",
    "CARDROOM_RATE_SEAT",
    "CARDROOM_RATE_ADDRESS",
    "CARDROOM_TRUSTED_PROXIES",
    "CARDROOM_HELD_PER_TOKEN",
    "CARDROOM_KEEPALIVE_SECONDS",
    "CARDROOM_HELD_PER_ADDRESS",
    "CARDROOM_HELD_PER_PROCESS",
    "CARDROOM_BODIES_PER_ADDRESS",
    "CARDROOM_EMBEDDED",
    "CARDROOM_SHUTDOWN_SECONDS",
    "CARDROOM_CORS_ORIGINS",
    "CARDROOM_HEADER_TIMEOUT_SECONDS",
    "CARDROOM_SEND_TIMEOUT_SECONDS",
    "CARDROOM_REPLICA_URLS",
    "CARDROOM_REPLICA_MAX_LAG_SECONDS",
    "CARDROOM_REDIS_CLUSTER",
)
EMBEDDED_CHOICES = ("auto", "1", "0")
# What says a process runs as a replica of a deployment: the variable Kubernetes sets in
# every pod. Docker's and Podman's marker files are not taken as evidence: developers'
# machines and CI sandboxes are often containers themselves, and the README's first
# command must work there. The image and the compose file say CARDROOM_EMBEDDED=0.
CONTAINER_VARIABLE = "KUBERNETES_SERVICE_HOST"


class SettingsError(ValueError):
    """A setting, or a combination of them, the service cannot run with; the message
    names the variable to set."""


# scheme://host[:port], as a browser sends it in Origin: no path, no trailing slash.
_ORIGIN = re.compile(r"[a-z][a-z0-9+.-]*://[^/?#@\s]+")


def _flag(env: Mapping[str, str], name: str) -> bool:
    """On unless set off; a word that is neither (``disabled``, ``2``) is refused rather
    than read as on."""
    return _switch(name, env.get(name) or "1", auto=False) == "1"


def _number(name: str, value: str) -> float:
    """``value`` as a number, or a :class:`SettingsError` that names the variable."""
    try:
        return float(value)
    except ValueError:
        raise SettingsError(f"{name} must be a number, not {value!r}") from None


def _hours(env: Mapping[str, str], name: str) -> float:
    hours = _number(name, env.get(name, "24"))
    # Zero or less would expire brand-new records and tables; a century is "keep them".
    if not (math.isfinite(hours) and 0 < hours <= MAX_HOURS):
        raise ValueError(f"{name} must be more than 0 and at most {MAX_HOURS} hours, not {hours}")
    return hours


def _database_url(value: str | None) -> str | None:
    if value:
        try:
            conninfo_to_dict(value)
        except psycopg.ProgrammingError:
            raise SettingsError(
                "CARDROOM_DATABASE_URL must be a Postgres URL such as"
                f" postgresql://cardroom@db:5432/cardroom, not {value!r}"
            ) from None
    return value or None


def _redis_url(value: str | None) -> str | None:
    if value:
        try:
            parse_url(value)
        except ValueError as exc:
            raise SettingsError(
                f"CARDROOM_REDIS_URL must be a Redis URL such as redis://redis:6379/0 ({exc})"
            ) from None
    return value or None


def _rate(env: Mapping[str, str], name: str, default: str) -> str:
    value = env.get(name, default)
    try:
        parse_policy(name, value)
    except ValueError:
        raise SettingsError(
            f"{name} must be BURST/SECONDS (30/60: 30 at once, then one more every 2 s),"
            f" not {value!r}"
        ) from None
    return value


def _trusted_proxies(value: str) -> tuple[str, ...]:
    """Comma-separated addresses or networks (``10.0.0.0/8``)."""
    entries = tuple(entry.strip() for entry in value.split(",") if entry.strip())
    for entry in entries:
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise SettingsError(
                "CARDROOM_TRUSTED_PROXIES: each entry (comma-separated) is an address or a"
                f" network such as 10.0.0.0/8, not {entry!r}"
            ) from None
    return entries


def _replica_urls(value: str) -> tuple[str, ...]:
    """Comma-separated Postgres URLs (or key=value connection strings)."""
    urls = tuple(dict.fromkeys(u.strip() for u in value.split(",") if u.strip()))
    for url in urls:
        try:
            conninfo_to_dict(url)
        except psycopg.ProgrammingError:
            raise ValueError(
                "CARDROOM_REPLICA_URLS: each entry (comma-separated) is a Postgres URL such as"
                " postgresql://cardroom@replica-1:5432/cardroom"
            ) from None
    return urls


def _positive(name: str, value: str, most: float = math.inf) -> float:
    """Seconds, more than 0 (zero or less would refuse everything) and at most ``most``
    where the contract promises clients a bound: a dead connection closed within 10 s,
    a 503 within 2 s when the database does not answer."""
    seconds = _number(name, value)
    if not (math.isfinite(seconds) and 0 < seconds <= most):
        bound = "" if math.isinf(most) else f" and at most {most:g}"
        raise ValueError(f"{name} must be more than 0{bound}, not {value!r}")
    return seconds


def _keep_alive(value: str) -> float:
    """1 to 60 seconds: less would have streams spin on reads, and clients watching for
    silence give up connections that are only slow."""
    seconds = _positive("CARDROOM_KEEPALIVE_SECONDS", value, most=60)
    if seconds < 1:
        raise ValueError(f"CARDROOM_KEEPALIVE_SECONDS must be 1 or more, not {value!r}")
    return seconds


def _bound(env: Mapping[str, str], name: str, default: int) -> int:
    """A count of 0 (no bound) or more."""
    value = env.get(name, str(default))
    if not (value.strip().isdigit()):
        raise ValueError(f"{name} must be a whole number, 0 or more (0: no bound), not {value!r}")
    return int(value)


def _switch(name: str, value: str, auto: bool = True) -> str:
    """``auto`` (where it is a choice), ``1`` or ``0``, from any of the usual spellings."""
    word = value.strip().lower()
    if word == "auto" and auto:
        return "auto"
    if word in ("1", "true", "yes", "on"):
        return "1"
    if word in ("0", "false", "no", "off"):
        return "0"
    raise SettingsError(f"{name} must be {'auto, 1' if auto else '1'} or 0, not {value!r}")


def _pool_sizes(env: Mapping[str, str]) -> tuple[int, int]:
    """The request pool's least and most connections: whole numbers, 1 or more at most
    and no fewer at most than at least."""
    sizes = []
    for name, default in (("CARDROOM_POOL_MIN", "2"), ("CARDROOM_POOL_MAX", "10")):
        value = env.get(name, default)
        if not value.strip().isdigit():
            raise SettingsError(f"{name} must be a whole number, not {value!r}")
        sizes.append(int(value))
    least, most = sizes
    if most < 1 or least > most:
        raise SettingsError(
            f"CARDROOM_POOL_MAX must be 1 or more and at least CARDROOM_POOL_MIN"
            f" (they are {most} and {least})"
        )
    return least, most


def _grace(value: str) -> float:
    """Seconds, 0 (no grace: requests in flight are closed at once) or more."""
    seconds = _number("CARDROOM_SHUTDOWN_SECONDS", value)
    if not (math.isfinite(seconds) and seconds >= 0):
        raise SettingsError(f"CARDROOM_SHUTDOWN_SECONDS must be 0 or more, not {value!r}")
    return seconds


def _embedded(value: str) -> str:
    return _switch("CARDROOM_EMBEDDED", value)


LOG_LEVEL_NAMES = ("critical", "error", "warning", "info", "debug", "trace")  # uvicorn's


def _log_level(value: str) -> str:
    level = value.strip().lower()
    if level not in LOG_LEVEL_NAMES:
        raise SettingsError(
            f"CARDROOM_LOG_LEVEL must be one of {', '.join(LOG_LEVEL_NAMES)}, not {value!r}"
        )
    return level


def operator_token_generated(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the operator's token is a random one of this start (nothing configured, or
    an empty value), which ``cardroom serve`` must then print."""
    env = os.environ if environ is None else environ
    return not env.get("CARDROOM_OPERATOR_TOKEN", "").strip()


# The placeholder deploy/ ships where each operator puts a token of his own: a server
# left with it would give the operator's powers to anyone who has read those files.
PLACEHOLDER_TOKEN = "change-me"


def _operator_token(value: str) -> str:
    # A Secret made from a file (or from `echo token | base64`) ends in a newline that
    # no Authorization header carries: kept, the operator could never be recognised.
    value = value.strip()
    if value == PLACEHOLDER_TOKEN:
        raise SettingsError(
            "CARDROOM_OPERATOR_TOKEN is still the placeholder from deploy/: set a token of"
            " your own, such as one printed by"
            " python3 -c 'import secrets; print(secrets.token_urlsafe(32))'"
        )
    return value


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


def from_env(environ: Mapping[str, str] | None = None) -> Settings:
    env = os.environ if environ is None else environ
    pool_min, pool_max = _pool_sizes(env)
    return Settings(
        database_url=_database_url(env.get("CARDROOM_DATABASE_URL")),
        redis_url=_redis_url(env.get("CARDROOM_REDIS_URL")),
        # Without a configured token the operator's powers go to a random one that
        # `cardroom serve` prints once: never a guessable default.
        operator_token=(
            secrets.token_urlsafe(24)
            if operator_token_generated(env)
            else _operator_token(env["CARDROOM_OPERATOR_TOKEN"])
        ),
        redis_prefix=env.get("CARDROOM_REDIS_PREFIX", "cardroom"),
        data_dir=env.get("CARDROOM_DATA_DIR", ".cardroom"),
        pool_min=pool_min,
        pool_max=pool_max,
        log_level=_log_level(env.get("CARDROOM_LOG_LEVEL") or "info"),
        log_format=_log_format(env.get("CARDROOM_LOG_FORMAT") or "json"),
        cors_origins=_origins(env.get("CARDROOM_CORS_ORIGINS", "")),
        relay=_flag(env, "CARDROOM_RELAY"),
        projector=_flag(env, "CARDROOM_PROJECTOR"),
        timekeeper=_flag(env, "CARDROOM_TIMEKEEPER"),
        retention=_flag(env, "CARDROOM_RETENTION"),
        idempotency_hours=_hours(env, "CARDROOM_IDEMPOTENCY_HOURS"),
        waiting_hours=_hours(env, "CARDROOM_WAITING_HOURS"),
        request_seconds=_positive(
            "CARDROOM_REQUEST_SECONDS", env.get("CARDROOM_REQUEST_SECONDS", "1.5"), most=2
        ),
        rate_limits=_flag(env, "CARDROOM_RATE_LIMITS"),
        rate_create=_rate(env, "CARDROOM_RATE_CREATE", RATE_CREATE),
        rate_seat=_rate(env, "CARDROOM_RATE_SEAT", RATE_SEAT),
        rate_address=_rate(env, "CARDROOM_RATE_ADDRESS", RATE_ADDRESS),
        trusted_proxies=_trusted_proxies(env.get("CARDROOM_TRUSTED_PROXIES", "")),
        keep_alive_seconds=_keep_alive(env.get("CARDROOM_KEEPALIVE_SECONDS", "15")),
        held_per_token=_bound(env, "CARDROOM_HELD_PER_TOKEN", 8),
        held_per_address=_bound(env, "CARDROOM_HELD_PER_ADDRESS", 256),
        held_per_process=_bound(env, "CARDROOM_HELD_PER_PROCESS", 10_000),
        bodies_per_address=_bound(env, "CARDROOM_BODIES_PER_ADDRESS", 16),
        embedded=_embedded(env.get("CARDROOM_EMBEDDED", "auto")),
        shutdown_seconds=_grace(env.get("CARDROOM_SHUTDOWN_SECONDS", "20")),
        header_timeout_seconds=_positive(
            "CARDROOM_HEADER_TIMEOUT_SECONDS",
            env.get("CARDROOM_HEADER_TIMEOUT_SECONDS", "10"),
            most=10,
        ),
        send_timeout_seconds=_positive(
            "CARDROOM_SEND_TIMEOUT_SECONDS",
            env.get("CARDROOM_SEND_TIMEOUT_SECONDS", "30"),
            most=300,
        ),
        replica_urls=_replica_urls(env.get("CARDROOM_REPLICA_URLS", "")),
        replica_max_lag_seconds=_positive(
            "CARDROOM_REPLICA_MAX_LAG_SECONDS", env.get("CARDROOM_REPLICA_MAX_LAG_SECONDS", "5")
        ),
        redis_cluster=_switch("CARDROOM_REDIS_CLUSTER", env.get("CARDROOM_REDIS_CLUSTER") or "0"),
    )


def container_evidence(environ: Mapping[str, str] | None = None) -> str | None:
    """What shows that this process runs in a pod, or ``None``."""
    env = os.environ if environ is None else environ
    return CONTAINER_VARIABLE if env.get(CONTAINER_VARIABLE) else None


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


def check_operator_token(
    generated: bool, container: str | None, embedding: Embedding, settings: Settings
) -> None:
    """:class:`SettingsError` when ``serve`` would make up the operator's token as one
    replica of a deployment that shares a database: each replica (each pod of a
    Deployment, each container of the image) would make up its own, and the operator's
    calls would work on one of them only. What shows a deployment: a pod, or
    ``CARDROOM_EMBEDDED=0``, which the image and the compose file set (Docker, ECS or
    Nomad leave no variable of their own). A process with an embedded database is a
    demonstration of one process: it may."""
    evidence = container or ("CARDROOM_EMBEDDED=0" if settings.embedded == "0" else None)
    if generated and evidence is not None and not embedding.postgres:
        raise SettingsError(
            f"CARDROOM_OPERATOR_TOKEN is not set, and this is a deployment ({evidence})"
            " using a shared database, where every replica would make up a token of its"
            " own. Set CARDROOM_OPERATOR_TOKEN (the same for every replica), such as one"
            " printed by python3 -c 'import secrets; print(secrets.token_urlsafe(32))'."
        )
