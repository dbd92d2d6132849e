"""What runs before every handler: the OPTIONS answer, the headers read once, the rate
limit, and the strict reading of the path, the query and the body."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl

import msgspec
from litestar import Litestar, Request, Response
from litestar.enums import MediaType, ParamType
from litestar.exceptions import NotFoundException, ValidationException
from litestar.openapi.spec import OpenAPI, OpenAPIType, Parameter
from litestar.routes import HTTPRoute

from service.http.access import allow
from service.http.limits import decode_json, read_body
from service.http.problems import ApiProblem, on_api_problem, on_http_exception
from service.http.schemas import UUID_PATTERN
from service.http.throttle import Throttle
from service.write.codec import convert


def _number(text: str) -> int | float:
    """JSON Schema counts 3.0 as an integer; msgspec's strict mode does not. (Decoding
    integral floats as ints, rather than walking the document afterwards in Python, keeps
    a megabyte of empty arrays from costing half a second.)"""
    number = float(text)
    return int(number) if number.is_integer() else number


_DECODER = msgspec.json.Decoder(float_hook=_number)


_AT_PATH = re.compile(r" - at `\$\.?(?P<path>[^`]*)`$")


def strictly(body: bytes, annotation: Any) -> Any:
    """``body`` decoded as ``annotation`` strictly, within the limits on its shape: raises
    :class:`msgspec.ValidationError`, :class:`msgspec.DecodeError` or a 400 problem."""
    return convert(decode_json(body, _DECODER), annotation, strict=True)


async def strict_body(request: Request[Any, Any, Any]) -> None:
    """Validate JSON bodies as strictly as the document states them.

    Litestar converts bodies leniently (``"24"`` or ``24.0`` for an integer, ``0`` for
    ``false``); a client generated from the spec must not come to depend on that, so the
    body is first decoded strictly against the handler's declared type, after the limits
    on its size and media type (:mod:`service.http.limits`). A missing body, or one sent
    to an operation that takes none, is a 400 that says so.
    """
    field = request.route_handler.parsed_data_field
    if field is None:
        # An operation that takes no body says so rather than drop what was sent (a
        # pause's reason, say); an empty object is what many clients send for none, and
        # as any body it is JSON, uncompressed.
        sent = (await request.body()).strip() if request.method == "POST" else b""
        if sent:
            await read_body(request)
        if sent not in (b"", b"{}"):
            raise ApiProblem("malformed-request", "this operation takes no body: send none")
        return
    body = await read_body(request)
    if not body.strip():
        raise ApiProblem("malformed-request", "this operation takes a JSON body: none was sent")
    try:
        strictly(body, field.annotation)
    except msgspec.ValidationError as exc:
        message = str(exc)
        found = _AT_PATH.search(message)
        key = found["path"] if found else "data"
        raise ValidationException(
            detail="the body does not match the schema",
            extra=[{"message": _AT_PATH.sub("", message), "key": key, "source": "body"}],
        ) from exc
    except msgspec.DecodeError:
        return  # Litestar reports malformed JSON itself


def allowed_methods(app: Litestar) -> dict[str, str]:
    """The ``Allow`` answer of each route path, from the route's final methods.

    Litestar builds the automatic OPTIONS answer with the first handler of a path and
    keeps it when more handlers join that path (``/tables`` has GET and POST), so its
    ``Allow`` lists too few methods: :func:`before_request` answers OPTIONS instead."""
    routes = [route for route in app.routes if isinstance(route, HTTPRoute)]
    return {route.path_format: allow(route.methods) for route in routes}


# A parameter's rule: its type in the document, ``uuid``, or the values of an enum.
Rule = str | frozenset[str] | None
ParameterRules = dict[tuple[str, str], dict[tuple[str, str], Rule]]
# An integer as the document writes one: ASCII digits, no leading zero (``01`` in a path
# would be a second URL for round 1; the framework refused it in a query, as a string).
_INTEGER = re.compile(r"0|-?[1-9][0-9]*")
_DIGITS = re.compile(r"-?[0-9]+")  # an integer all the same, but not as the document writes one
_UUID = re.compile(UUID_PATTERN)


def parameter_rules(openapi: OpenAPI) -> ParameterRules:
    """Each operation's query and path parameters, by path template and method, keyed by
    where and name: the type the document gives each (``integer``, ``string``, …),
    ``uuid`` for a string of that format, or the values of an enum."""
    rules: ParameterRules = {}
    for path, item in (openapi.paths or {}).items():
        for method in ("get", "post", "put", "patch", "delete"):
            operation = getattr(item, method, None)
            if operation is None:
                continue
            rules[(path, method.upper())] = {
                (p.param_in, p.name): _rule(p.schema)
                for p in operation.parameters or ()
                if isinstance(p, Parameter) and p.param_in in (ParamType.QUERY, ParamType.PATH)
            }
    return rules


def _rule(schema: Any) -> Rule:
    if getattr(schema, "format", None) == "uuid":
        return "uuid"
    if getattr(schema, "enum", None):
        return frozenset(str(value) for value in schema.enum)
    kind: str | None = getattr(schema, "type", None)
    return kind


def _rules_of(request: Request[Any, Any, Any]) -> dict[tuple[str, str], Rule] | None:
    """The request's operation's parameters; None for a route not in the document (the
    docs pages, the metrics)."""
    rules: ParameterRules = request.app.state.parameter_rules
    return rules.get((request.scope["path_template"], request.method))


def strict_query(request: Request[Any, Any, Any], known: dict[tuple[str, str], Rule]) -> None:
    """Read the query as strictly as the document states it: each parameter once (the
    framework would take the last of several), an integer written as one (``1e1`` and
    ``5.0`` would convert), an enum's value one of its values (the framework reads
    ``null`` as no value at all for an optional one), and text as UTF-8 once
    percent-decoded (the framework would read ``%FF`` as U+FFFD, a name nobody sent)."""
    query: bytes = request.scope.get("query_string", b"")
    if not query:
        return
    seen: set[str] = set()
    try:
        pairs = parse_qsl(query.decode("latin-1"), keep_blank_values=True, errors="strict")
    except UnicodeDecodeError as exc:
        raise ApiProblem(
            "malformed-request", "the query is not UTF-8 once percent-decoded"
        ) from exc
    for name, value in pairs:
        if name in seen:
            raise ApiProblem("malformed-request", f"the query parameter {name} is given twice")
        seen.add(name)
        kind = known.get((ParamType.QUERY, name))
        if kind == OpenAPIType.INTEGER:
            _require_integer(name, value)
        elif isinstance(kind, frozenset) and value not in kind:
            raise ApiProblem(
                "malformed-request", f"{name}: {value[:40]!r} is none of {', '.join(sorted(kind))}"
            )


def _misread(name: str, kind: Rule, value: str) -> str | None:
    """Why ``value`` is not parameter ``name`` of ``kind`` as the document writes it."""
    if kind == OpenAPIType.INTEGER and not _INTEGER.fullmatch(value):
        why = "is written with a leading zero" if _DIGITS.fullmatch(value) else "is not an integer"
        return f"{name}: {value[:40]!r} {why}"
    if kind == "uuid" and not _UUID.fullmatch(value):
        return f"{name}: {value[:40]!r} is not a UUID"
    return None


def _require_integer(name: str, value: str) -> None:
    if (why := _misread(name, OpenAPIType.INTEGER, value)) is not None:
        raise ApiProblem("malformed-request", why)


def strict_path(request: Request[Any, Any, Any], known: dict[tuple[str, str], Rule]) -> None:
    """Read the path's parameters as the document writes them: an integer in ASCII digits
    (the router would take ``+2``, ``0_2`` or another script's digits as 2; the range is
    the route's to check), an id as a UUID's 36 characters (not braced, URN or undashed
    forms of it): one resource, one URL. A path with a NUL byte names none, as it names
    no route: a parameter taking any text (an entry's id) would pass it to a lookup."""
    if "\x00" in request.scope["path"]:
        raise ApiProblem("not-found", "no path holds a NUL byte")
    template: str = request.scope["path_template"]
    for part, value in zip(template.split("/"), request.scope["path"].split("/"), strict=False):
        if part.startswith("{"):
            name = part[1:-1]
            if (why := _misread(name, known.get((ParamType.PATH, name)), value)) is not None:
                raise ApiProblem("malformed-request", why)


def misread_path(request: Request[Any, Any, Any]) -> str | None:
    """Why a path no route takes would be one of the document's but for a parameter the
    router cannot read (``/tables/undefined/actions``, ``/seats/x``): it takes a UUID or an
    integer parameter only as it reads one, and such a path was a 404 ``no such route``,
    as if the client had the wrong base URL, where the document promises a 400."""
    path: str = request.scope["path"]
    raw: bytes = request.scope.get("raw_path") or b""
    if "\x00" in path or b"%2f" in raw.lower():
        return None  # no route's at all, whatever its pieces look like (before_request)
    parts = path.split("/")
    rules: ParameterRules = request.app.state.parameter_rules
    for (template, _), known in rules.items():
        segments = template.split("/")
        if len(segments) != len(parts):
            continue
        why = None
        for segment, part in zip(segments, parts, strict=True):
            if not segment.startswith("{"):
                if segment != part:
                    break
            elif why is None:
                why = _misread(segment[1:-1], known.get((ParamType.PATH, segment[1:-1])), part)
        else:
            if why is not None:
                return why
    return None


def on_no_route(request: Request[Any, Any, Any], exc: NotFoundException) -> Response[Any]:
    """The router's 404, unless the path misreads a parameter (:func:`misread_path`)."""
    why = misread_path(request)
    if why is not None:
        return on_api_problem(request, ApiProblem("malformed-request", why))
    return on_http_exception(request, exc)


# The request headers the service reads, each taken once: the framework reads the first
# line of a repeated one, and the rest would be passed over in silence (a second If-Match
# naming the current version, a second Idempotency-Key).
SINGLE_HEADERS = frozenset(
    {b"authorization", b"content-type", b"idempotency-key", b"if-match", b"if-none-match",
     b"last-event-id"}
)  # fmt: skip


def single_headers(request: Request[Any, Any, Any]) -> None:
    seen: set[bytes] = set()
    for name, _ in request.scope["headers"]:
        if name in SINGLE_HEADERS:
            if name in seen:
                raise ApiProblem(
                    "malformed-request", f"the header {name.decode()} is given more than once"
                )
            seen.add(name)


async def before_request(request: Request[Any, Any, Any]) -> Response[None] | None:
    if request.method == "OPTIONS" and request.route_handler.handler_name == "options_handler":
        allow: dict[str, str] = request.app.state.allowed_methods
        headers = {"Allow": allow[request.scope["path_template"]]}
        return Response(None, status_code=204, headers=headers, media_type=MediaType.TEXT)
    raw: bytes = request.scope.get("raw_path") or b""
    if b"%" in raw and b"%2f" in raw.lower():
        # The server decodes %2F to "/" before routing: /tables/<id>%2Fevents would be
        # served as /tables/<id>/events, a path no proxy or cache in front would see.
        raise NotFoundException(detail="no such route")
    single_headers(request)
    # The rate limit first: a refused request costs no body read and no decoding.
    throttle: Throttle | None = request.app.state.get("throttle")
    if throttle is not None:
        await throttle.admit(request)
    known = _rules_of(request)
    if known is not None:
        strict_path(request, known)
        strict_query(request, known)
    await strict_body(request)
    return None
