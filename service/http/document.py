"""The OpenAPI document: its description, and the corrections Litestar's output needs."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import msgspec
from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import (
    Components,
    Example,
    License,
    OpenAPI,
    OpenAPIFormat,
    OpenAPIHeader,
    OpenAPIMediaType,
    OpenAPIResponse,
    OpenAPIType,
    Reference,
    Schema,
    SecurityScheme,
    Server,
)

from domain import RULES_ENGINE_VERSION
from service.http.docs import mark_instants
from service.http.examples import JSONExample
from service.http.examples import attach as attach_examples
from service.http.problems import PROBLEM_JSON
from service.http.reference import PLAYING, docs_router, problem_table, render_plugins
from service.http.schemas import StandingsPage
from service.http.tournaments import standings_csv
from service.read.records import TournamentEventRecord
from service.release import API_VERSION

DESCRIPTION = f"""\
Cardroom hosts auction card games over a REST API, event-sourced: every bid, exchange
and play is an append-only event. Rules engine {RULES_ENGINE_VERSION}.

The rules of every game, with every table option and its default, are the rulebook in
the repository: `docs/rules/` (start at `docs/rules/index.md`). How the service is built
is `docs/design.md`.

{PLAYING}
## HEAD

Every `GET` operation also answers `HEAD` with the same status and headers (`ETag`,
`Content-Length`, a 304 for a current `If-None-Match`) and no body; a stream answers with
its headers at once.

## Instants

Every instant (`at`, `deadline`, `since`, `created_at`, ...) is an RFC 3339 `date-time`
in UTC, written with `Z`. Its fraction of a second has six digits, or none when it is
zero (`2026-03-01T19:30:28.154000Z`, `2026-03-01T19:30:28Z`): parse it as RFC 3339, not
with a fixed pattern.

## Request ids

Every answer carries `X-Request-ID`: the one the request sent, when it is 1 to 128
characters of `A-Z`, `a-z`, `0-9`, `.`, `_` and `-`, else one the service made up. The
service's log lines about the request carry it too: quote it when reporting a problem.

## Problem types

Errors are RFC 9457 `application/problem+json` documents whose `code` names the cause;
a problem's `type` is `https://cardroom.dev/problems/` followed by its `code`.

{problem_table()}

## Rate limits

Requests are counted per seat token, and per client address for requests without one;
tables created by anyone but the operator are counted per address on a tighter budget
(by default 30 a minute). Each budget is a burst refilled evenly over a window. Past it
the answer is `429 rate-limited` with `Retry-After` (seconds). Every counted response
carries the fields of draft-ietf-httpapi-ratelimit-headers-06: `RateLimit-Limit` (the
burst), `RateLimit-Remaining`, `RateLimit-Reset` (seconds until the budget is whole
again) and `RateLimit-Policy` (`BURST;w=SECONDS`). The operator's token is not counted,
nor are `/healthz`, `/readyz` and `/metrics`.
"""

_INTEGER = Schema(type=OpenAPIType.INTEGER, minimum=0)
_STRING = Schema(type=OpenAPIType.STRING)
RATE_LIMIT_HEADERS = {
    "Retry-After": ("Seconds to wait before the next request can pass.", _INTEGER),
    "RateLimit-Limit": ("The budget: requests that may pass at once.", _INTEGER),
    "RateLimit-Remaining": ("Requests that would still pass now.", _INTEGER),
    "RateLimit-Reset": ("Seconds until the budget is whole again.", _INTEGER),
    "RateLimit-Policy": (
        "The budget and its window, `BURST;w=SECONDS` (e.g. `30;w=60`).",
        _STRING,
    ),
}


def _required(fields: dict[str, tuple[str, Schema]]) -> dict[str, OpenAPIHeader | Reference]:
    """Header objects for fields every such answer carries: name -> (meaning, schema)."""
    return {
        name: OpenAPIHeader(schema=schema, description=text, required=True)
        for name, (text, schema) in fields.items()
    }


def _operations(openapi: Any) -> Iterator[Any]:
    for item in openapi.paths.values():
        for method in ("get", "put", "post", "delete", "patch"):
            operation = getattr(item, method, None)
            if operation is not None:
                yield operation


def _problemize(openapi: Any) -> None:
    """Litestar documents its own 400s as plain JSON; ours are problem documents."""
    ref = Reference("#/components/schemas/Problem")
    for operation in _operations(openapi):
        for status, response in (operation.responses or {}).items():
            if not isinstance(response, OpenAPIResponse) or not status.startswith("4"):
                continue
            if response.content and "application/json" in response.content:
                response.content = {PROBLEM_JSON: OpenAPIMediaType(schema=ref)}


def _response_headers(openapi: Any) -> None:
    """The headers some statuses always carry (Litestar's ResponseSpec has none): a 429's
    ``Retry-After`` and ``RateLimit-*`` fields, a 503 problem's ``Retry-After``, a 401's
    ``WWW-Authenticate``, a 415's ``Accept-Post`` (and the ``Accept-Encoding`` of some)."""
    retry_after = {"Retry-After": ("Seconds to wait before trying again.", _INTEGER)}
    challenge = {
        "WWW-Authenticate": (
            'The scheme to authenticate with: `Bearer realm="cardroom"`, with'
            ' `error="invalid_token"` when the token sent was refused.',
            _STRING,
        )
    }
    accept_post = {
        "Accept-Post": ("The media type a body is taken in: `application/json`.", _STRING)
    }
    # Accept-Encoding is sent only when the refusal is for a coding (service.http.limits).
    uncoded = OpenAPIHeader(
        schema=_STRING,
        description="`identity`, when the body was refused for a `Content-Encoding` or a"
        " transfer coding other than `chunked`: bodies are taken uncompressed.",
    )
    by_status = {
        "429": _required(RATE_LIMIT_HEADERS),
        "503": _required(retry_after),
        "401": _required(challenge),
        "415": {**_required(accept_post), "Accept-Encoding": uncoded},
    }
    for operation in _operations(openapi):
        for status, headers in by_status.items():
            response = (operation.responses or {}).get(status)
            if not isinstance(response, OpenAPIResponse):
                continue
            if status != "429" and PROBLEM_JSON not in (response.content or {}):
                continue
            response.headers = dict(headers)  # its own: later passes add to some


def _counted_fields(openapi: Any) -> None:
    """Every answer of a rate-limited operation (one that documents its 429) may carry
    the ``RateLimit-*`` fields, not only the 429 itself; they are not required, since
    the operator's token is not counted."""
    fields = {name: field for name, field in RATE_LIMIT_HEADERS.items() if name != "Retry-After"}
    openapi.components.headers = {
        **(openapi.components.headers or {}),
        **{
            name: OpenAPIHeader(schema=schema, description=text)
            for name, (text, schema) in fields.items()
        },
    }
    refs = {name: Reference(f"#/components/headers/{name}") for name in fields}
    for operation in _operations(openapi):
        responses = operation.responses or {}
        if "429" not in responses:
            continue
        for status, response in responses.items():
            # A 414 or 431 is answered before the rate limit, from the head alone.
            if status not in ("429", "414", "431") and isinstance(response, OpenAPIResponse):
                response.headers = {**(response.headers or {}), **refs}


_SAVED = {
    "Content-Disposition": (
        "A file to save, named after what it holds and its last version:"
        ' `attachment; filename="table-{id}-v{version}.ndjson"` (`tournament-…` for a'
        " tournament).",
        _STRING,
    ),
    "Cache-Control": (
        "`private, no-store`: no cache keeps it, since it holds every hand.",
        _STRING,
    ),
}
_STREAMED = {
    "Cache-Control": (
        "`no-cache` (`private, no-cache` for a seat's or the operator's stream of a table):"
        " no cache keeps a stream.",
        _STRING,
    ),
    "X-Accel-Buffering": (
        "`no`: a proxy that honours it (nginx) passes each message on at once.",
        _STRING,
    ),
    "Cardroom-Keep-Alive": (
        "Seconds, at most, between two things the stream sends (a message, or a"
        " `: keep-alive` comment while nothing happens), e.g. `15`. A client that hears"
        " nothing for a few times as long is on a dead connection, however open it looks"
        " (a NAT or proxy that dropped it, a network change): it should reconnect with"
        " `Last-Event-ID`.",
        _STRING,
    ),
}
# The fields of answers whose 200 Litestar documents from a ResponseSpec of their own (it
# then leaves out the route's response_headers): the exports and the streams.
_ROUTE_FIELDS = {
    "exportTable": _SAVED,
    "exportTournament": _SAVED,
    "streamTable": {
        **_STREAMED,
        "Vary": ("`Authorization`: a seat's stream holds its cards.", _STRING),
    },
    "streamTournament": _STREAMED,
}


def _route_fields(openapi: Any) -> None:
    for operation in _operations(openapi):
        fields = _ROUTE_FIELDS.get(operation.operation_id, {})
        response = (operation.responses or {}).get("200")
        if fields and isinstance(response, OpenAPIResponse):
            response.headers = {**(response.headers or {}), **_required(fields)}


_REVALIDATED = {
    "Cache-Control": (
        "`no-cache`: a cache asks again before each reuse (what this answers changes)."
        " Answers that say otherwise declare their own.",
        _STRING,
    ),
    "Vary": ("`Authorization`: some answers differ by the token sent.", _STRING),
}


def _cache_fields(openapi: Any) -> None:
    """The fields :func:`service.http.headers.revalidated` gives every GET answer that
    sets none of its own (one definition each, referred to)."""
    names = {"Cache-Control": "Revalidated", "Vary": "VaryAuthorization"}
    openapi.components.headers = {
        **(openapi.components.headers or {}),
        **{names[k]: v for k, v in _required(_REVALIDATED).items()},
    }
    refs = {k: Reference(f"#/components/headers/{names[k]}") for k in _REVALIDATED}
    for item in openapi.paths.values():
        operation = item.get
        if operation is None:
            continue
        for status, response in (operation.responses or {}).items():
            # A 304 carries its 200's (_revalidation_fields); a 414 or 431 is answered
            # from the head alone, before the app.
            if status in ("304", "414", "431") or not isinstance(response, OpenAPIResponse):
                continue
            declared = response.headers or {}
            if "Cache-Control" not in declared:
                fields = {k: v for k, v in refs.items() if k not in declared}
                response.headers = {**declared, **fields}


def _revalidation_fields(openapi: Any) -> None:
    """A 304 carries the ``ETag`` and caching fields of the 200 it stands for (RFC 9110
    15.4.5); a command's 412 carries the table's current ``ETag``, to read or retry from."""
    for operation in _operations(openapi):
        responses = operation.responses or {}
        full, unchanged = responses.get("200"), responses.get("304")
        if isinstance(full, OpenAPIResponse) and isinstance(unchanged, OpenAPIResponse):
            kept = ("ETag", "Cache-Control", "Vary")
            unchanged.headers = {k: v for k, v in (full.headers or {}).items() if k in kept}
        stale = responses.get("412")
        if isinstance(stale, OpenAPIResponse):
            current = (
                "The table's current ETag for this caller: the version the command must be"
                " chosen from.",
                _STRING,
            )
            stale.headers = {**(stale.headers or {}), **_required({"ETag": current})}


def _standings_csv(openapi: Any) -> None:
    """``getStandings`` answers CSV too, as ``Accept`` asks (Litestar documents one media
    type per response)."""
    for item in openapi.paths.values():
        operation = item.get
        if operation is None or operation.operation_id != "getStandings":
            continue
        response = operation.responses["200"]
        assert isinstance(response, OpenAPIResponse) and response.content is not None
        pages = response.content["application/json"].examples or {}
        response.content["text/csv"] = OpenAPIMediaType(
            schema=Schema(
                type=OpenAPIType.STRING,
                description="The ranking as CSV (RFC 4180), a header row first; a field"
                " that begins like a spreadsheet formula is written after an apostrophe.",
            ),
            examples={
                name: replace(
                    example, value=standings_csv(msgspec.convert(example.value, StandingsPage))
                )
                for name, example in pages.items()
                if isinstance(example, Example)
            },
        )


def _tidy_parameters(openapi: Any) -> None:
    """An optional query or header parameter is absent, never JSON ``null``: drop the
    ``null`` branch Litestar gives ``X | None`` parameters, or clients send "null"."""
    for operation in _operations(openapi):
        for parameter in operation.parameters or []:
            schema = getattr(parameter, "schema", None)
            if not isinstance(schema, Schema):
                continue
            if isinstance(schema.type, list) and OpenAPIType.NULL in schema.type:
                # An optional enum (the listings' filters): ``["null", "string"]`` and a
                # ``null`` among its values made generators write three enums for one.
                kinds = [kind for kind in schema.type if kind != OpenAPIType.NULL]
                schema.type = kinds[0] if len(kinds) == 1 else kinds
                if schema.enum is not None:
                    schema.enum = [value for value in schema.enum if value is not None]
            if not schema.one_of:
                continue
            kept = [
                s
                for s in schema.one_of
                if not (isinstance(s, Schema) and s.type == OpenAPIType.NULL)
            ]
            if len(kept) == 1 and isinstance(kept[0], Schema) and kept[0].type is not None:
                schema.type = kept[0].type
                schema.one_of = None


def _free_form_objects(openapi: Any) -> None:
    """An object that declares no properties (a table's options, a problem's context, an
    export's command) takes any: say so. ``{"type": "object"}`` alone made
    openapi-typescript write ``Record<string, never>``, an object always empty, and no
    real answer type-checked."""
    for schema in (openapi.components.schemas or {}).values():
        open_objects(schema)


def open_objects(schema: Any) -> None:
    """Marks each property-less object in ``schema`` (a Litestar ``Schema``, or a JSON
    schema as msgspec writes it, which Litestar embeds as it is) as taking any."""
    if isinstance(schema, list):
        for item in schema:
            open_objects(item)
    elif isinstance(schema, dict):
        if schema.get("type") == "object" and not _SHAPED & set(schema):
            schema["additionalProperties"] = True
        for value in schema.values():
            open_objects(value)
    elif isinstance(schema, Schema):
        shaped = (schema.properties, schema.pattern_properties, schema.additional_properties)
        if schema.type == OpenAPIType.OBJECT and shaped == (None, None, None):
            schema.additional_properties = True
        for child in (
            schema.properties,
            schema.any_of,
            schema.one_of,
            schema.all_of,
            schema.prefix_items,
            schema.items,
        ):
            open_objects(list(child.values()) if isinstance(child, dict) else child)


_SHAPED = {"properties", "additionalProperties", "patternProperties"}


def _stream_records(openapi: Any) -> None:
    """A stream message's ``data`` is JSON text whose schema is named only by its
    ``contentSchema``, so Litestar never meets the record's type: add it as a component
    (its event types are components already)."""
    _, found = msgspec.json.schema_components(
        [TournamentEventRecord], ref_template="#/components/schemas/{name}"
    )
    mark_instants(found, [TournamentEventRecord])
    schemas = openapi.components.schemas
    missing = found.keys() - schemas.keys() - {"TournamentEventRecord"}
    assert not missing, f"not components of the document: {sorted(missing)}"
    schemas["TournamentEventRecord"] = found["TournamentEventRecord"]


@dataclass
class LinesMedia(OpenAPIMediaType):
    """A body of newline-delimited JSON (an export).

    OpenAPI 3.1 describes a body as a whole, and such a body is no JSON value: its schema
    is a binary string, so that a generated client hands the bytes over as a file, and
    the schema of one line is ``x-itemSchema``, which OpenAPI 3.2 names ``itemSchema``.
    (A stream's ``schema`` stays the schema of one message: for ``text/event-stream``
    that is how tools read a 3.1 document, schemathesis among them.)"""

    item_schema: Schema | Reference | None = field(default=None, metadata={"alias": "x-itemSchema"})


_LINES = Schema(
    type=OpenAPIType.STRING,
    format=OpenAPIFormat.BINARY,
    description="Newline-delimited JSON: one object per line, each matching `x-itemSchema`.",
)
_EXPORTS = {"exportTable", "exportTournament"}


def _exports(openapi: Any) -> None:
    """The exports' 200s as :class:`LinesMedia`, each example a body as written (after
    the examples are attached: theirs are lines)."""
    for operation in _operations(openapi):
        if operation.operation_id not in _EXPORTS:
            continue
        response = operation.responses["200"]
        assert isinstance(response, OpenAPIResponse) and response.content is not None
        for media_type, media in response.content.items():
            examples: dict[str, Example | Reference] = {
                name: JSONExample(
                    summary=example.summary,
                    value=msgspec.json.encode(example.value).decode() + "\n",
                )
                for name, example in (media.examples or {}).items()
                if isinstance(example, Example)
            }
            response.content[media_type] = LinesMedia(
                schema=_LINES, examples=examples, item_schema=media.schema
            )


def openapi_config() -> OpenAPIConfig:
    return OpenAPIConfig(
        title="Cardroom",
        version=API_VERSION,
        description=DESCRIPTION,
        license=License(name="MIT", identifier="MIT"),
        path="/docs",
        openapi_router=docs_router(),
        render_plugins=render_plugins(),
        servers=[Server(url="/", description="this server")],
        components=Components(
            security_schemes={
                "bearer": SecurityScheme(
                    type="http",
                    scheme="bearer",
                    description="A seat token from takeSeat, or the operator token.",
                )
            }
        ),
    )


def finish(openapi: OpenAPI) -> None:
    """Problem documents for every 4xx, the headers of 429s, 503s, 401s, 304s and 412s (and
    the rate-limit fields of every counted answer), parameters
    without ``null``, free-form objects said to be so, and the examples."""
    _problemize(openapi)
    _response_headers(openapi)
    _route_fields(openapi)
    _cache_fields(openapi)
    _revalidation_fields(openapi)
    _counted_fields(openapi)  # last: onto every answer, the 304s made just before included
    _tidy_parameters(openapi)
    _free_form_objects(openapi)
    _stream_records(openapi)
    attach_examples(openapi)
    _exports(openapi)  # after the examples: its own are theirs as written
    _standings_csv(openapi)  # after the examples: its own are the JSON ones as CSV
