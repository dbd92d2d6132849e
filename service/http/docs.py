"""OpenAPI helpers: documented problem responses, who may call a route, and schema plugins
for msgspec types."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict, cast, get_type_hints

import msgspec
from litestar import Response
from litestar._openapi.schema_generation.plugins.struct import StructSchemaPlugin
from litestar.datastructures import ResponseHeader
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Discriminator, OpenAPIType, Schema, SecurityRequirement
from litestar.plugins import OpenAPISchemaPlugin
from litestar.typing import FieldDefinition

from service.http.problems import PROBLEM_JSON, Problem

_DESCRIPTIONS = {
    304: "Not modified: the ETag sent in If-None-Match is still current.",
    400: "Malformed request, or table settings the game does not accept.",
    401: "Missing or unknown bearer token.",
    403: "The token may not do this (another table's seat, or operator only).",
    404: "No such table, seat, tournament or game.",
    409: "Not allowed now: a rule refuses the command, the seat is taken, or a race was lost.",
    412: "If-Match is stale: the table has moved on.",
    413: "The body is over 1 MiB.",
    415: "The body is not sent as `application/json`.",
    422: (
        "Well-formed, but not what this resource takes: an Idempotency-Key used before with"
        " a different body, or an entry of the other kind (one name, or two)."
    ),
    408: "The body did not arrive whole within 30 s of the service's starting to read it.",
    429: "Rate limited: wait `Retry-After` seconds (the `RateLimit-*` fields say how much is"
    " left).",
    414: "The request line alone is over 16 KiB; the connection is closed.",
    431: "The request line and headers are over 16 KiB; the connection is closed.",
    503: (
        "The database did not answer in time (`database-unavailable`): retry after"
        " `Retry-After` seconds (a command with the same `Idempotency-Key`, so that it is"
        " recorded at most once). A command past its deadline may also be told"
        " `clocks-recovering` (see the problem types), a request a stopping server"
        " could not finish `server-stopping`, a command an older process may not"
        " decide during an upgrade `upgrade-in-progress`, a long-poll or a stream"
        " that a process holding its most cannot hold `server-busy`, and a body from"
        " an address already sending as many as it may at once `too-many-bodies`."
    ),
}


def errors(*statuses: int) -> dict[int, ResponseSpec]:
    """Documented responses for these statuses: problem+json, or an empty 304.

    429 is added to each: every operation documented through here is rate limited (the
    operations endpoints, which are not, do not use it); its headers are added by
    ``service.http.document``. So are 414 and 431, which any request's head may get, and
    408 to an operation that takes a body (one that may be refused as too large, 413): a
    client generated from the document then reads them as problems rather than failing."""
    specs: dict[int, ResponseSpec] = {}
    for status in sorted({*statuses, 429, 414, 431, *((408,) if 413 in statuses else ())}):
        if status == 304:
            specs[status] = ResponseSpec(
                data_container=None, description=_DESCRIPTIONS[status], generate_examples=False
            )
            continue
        specs[status] = ResponseSpec(
            data_container=Problem,
            media_type=PROBLEM_JSON,
            description=_DESCRIPTIONS[status],
            generate_examples=False,
        )
    return specs


# Who may call an operation (its `security`), for a controller whose routes all share it
# or through the route helpers below.
TOKEN_ONLY: Sequence[SecurityRequirement] = ({"bearer": []},)
TOKEN_OPTIONAL: Sequence[SecurityRequirement] = ({}, {"bearer": []})
NO_TOKEN: Sequence[SecurityRequirement] = ({},)


class Access(TypedDict, total=False):
    """What a route answers and who may call it, spread (``**``) into Litestar's ``get`` or
    ``post``: mypy checks each key against their parameters."""

    media_type: str
    responses: dict[int, ResponseSpec]
    security: Sequence[SecurityRequirement]


def token_only(*statuses: int) -> Access:
    """A route that needs a bearer token (a seat's, an entry's, the director's or the
    operator's), its problems documented as ``errors(*statuses)``."""
    return {"responses": errors(*statuses), "security": TOKEN_ONLY}


def token_optional(*statuses: int) -> Access:
    """A route anyone may call, where a bearer token may let it show more (a seat's cards,
    the operator's view); its problems as ``token_only``."""
    return {"responses": errors(*statuses), "security": TOKEN_OPTIONAL}


def _tagged_union(field: FieldDefinition) -> tuple[str, dict[str, type], bool] | None:
    """``(tag_field, {tag: struct}, nullable)`` when ``field`` is a tagged Struct union."""
    if not field.is_union:
        return None
    members = [t.annotation for t in field.inner_types]
    nullable = type(None) in members
    members = [t for t in members if t is not type(None)]
    tag_fields: set[str] = set()
    by_tag: dict[str, type] = {}
    for member in members:
        if not (isinstance(member, type) and issubclass(member, msgspec.Struct)):
            return None
        info = msgspec.inspect.type_info(member)
        if not isinstance(info, msgspec.inspect.StructType) or info.tag_field is None:
            return None
        tag_fields.add(info.tag_field)
        by_tag[str(info.tag)] = member
    if len(tag_fields) != 1 or len(by_tag) < 2:
        return None
    return tag_fields.pop(), by_tag, nullable


class _LazyRefs(dict[str, Any]):
    """tag → Reference. Component names are settled only after generation (clashes get
    renamed in place), so the ``$ref`` strings are read when the schema is serialised."""

    def items(self) -> Any:
        return [(tag, ref.ref) for tag, ref in super().items()]


class TaggedUnionSchemaPlugin(OpenAPISchemaPlugin):
    """Tagged unions get a ``discriminator`` with a mapping, as client generators want."""

    def is_plugin_supported_field(self, field_definition: FieldDefinition) -> bool:
        return _tagged_union(field_definition) is not None

    def to_openapi_schema(self, field_definition: FieldDefinition, schema_creator: Any) -> Schema:
        found = _tagged_union(field_definition)
        assert found is not None
        tag_field, by_tag, nullable = found
        refs = {
            tag: schema_creator.for_field_definition(FieldDefinition.from_annotation(member))
            for tag, member in by_tag.items()
        }
        union = Schema(
            one_of=list(refs.values()),
            discriminator=Discriminator(property_name=tag_field, mapping=_LazyRefs(refs)),
        )
        return Schema(one_of=[union, Schema(type=OpenAPIType.NULL)]) if nullable else union


def _holds_struct(kind: msgspec.inspect.Type) -> bool:
    if isinstance(kind, msgspec.inspect.Metadata):
        return _holds_struct(kind.type)
    if isinstance(kind, msgspec.inspect.StructType):
        return True
    if isinstance(kind, msgspec.inspect.UnionType):
        return any(_holds_struct(t) for t in kind.types)
    if isinstance(kind, msgspec.inspect.ListType | msgspec.inspect.TupleType):
        items = getattr(kind, "item_type", None)
        return items is not None and _holds_struct(items)
    if isinstance(kind, msgspec.inspect.DictType):
        return _holds_struct(kind.value_type)
    return False


# --- instants -------------------------------------------------------------------------
# msgspec says ``format: date-time`` only of a datetime declared ``tz=True``, a constraint
# that would also refuse any stored instant without its offset; the service's instants are
# all UTC, written with ``Z``. The documents say so of every datetime field instead, from
# the types themselves, and the types decode as they always have.


def _mark_instants(kind: msgspec.inspect.Type, schema: dict[str, Any]) -> None:
    """Add ``format: date-time`` where ``kind`` (msgspec's view of a field's type) holds a
    datetime, in ``schema``, msgspec's JSON Schema of that type."""
    if isinstance(kind, msgspec.inspect.Metadata):
        _mark_instants(kind.type, schema)
    elif isinstance(kind, msgspec.inspect.DateTimeType) and schema.get("type") == "string":
        schema["format"] = "date-time"
    elif isinstance(kind, msgspec.inspect.ListType) and isinstance(schema.get("items"), dict):
        _mark_instants(kind.item_type, schema["items"])
    elif isinstance(kind, msgspec.inspect.UnionType) and "anyOf" in schema:
        instants = [t for t in kind.types if isinstance(t, msgspec.inspect.DateTimeType)]
        others = [t for t in kind.types if not isinstance(t, msgspec.inspect.NoneType)]
        if instants and len(others) == 1:  # a datetime or null: its one string choice
            for choice in schema["anyOf"]:
                _mark_instants(instants[0], choice)


def field_schema(kind: Any) -> dict[str, Any]:
    """msgspec's JSON Schema of a field's type, its instants said to be date-times."""
    schema: dict[str, Any] = msgspec.json.schema(kind)
    _mark_instants(msgspec.inspect.type_info(kind), schema)
    return schema


def _structs(kind: msgspec.inspect.Type, found: dict[str, msgspec.inspect.StructType]) -> None:
    if isinstance(kind, msgspec.inspect.StructType):
        if kind.cls.__name__ in found:
            return
        found[kind.cls.__name__] = kind
        for field in kind.fields:
            _structs(field.type, found)
    elif isinstance(kind, msgspec.inspect.Metadata):
        _structs(kind.type, found)
    elif isinstance(kind, msgspec.inspect.UnionType):
        for t in kind.types:
            _structs(t, found)
    elif isinstance(kind, msgspec.inspect.ListType | msgspec.inspect.TupleType):
        items = getattr(kind, "item_type", None)
        if items is not None:
            _structs(items, found)
    elif isinstance(kind, msgspec.inspect.DictType):
        _structs(kind.value_type, found)


def mark_instants(components: dict[str, Any], roots: Sequence[Any]) -> None:
    """The datetime fields of ``components`` (``msgspec.json.schema_components`` of
    ``roots``) said to be date-times."""
    found: dict[str, msgspec.inspect.StructType] = {}
    for info in msgspec.inspect.multi_type_info(roots):
        _structs(info, found)
    for name, struct in found.items():
        properties = components.get(name, {}).get("properties", {})
        for field in struct.fields:
            if field.encode_name in properties:
                _mark_instants(field.type, properties[field.encode_name])


class StrictStructSchemaPlugin(StructSchemaPlugin):
    """Struct schemas as precise as msgspec validates them.

    Litestar drops constraints nested inside lists (a card's pattern in a list of cards,
    ``uniqueItems``, enums) and never says ``additionalProperties: false``. Fields made
    only of plain values take msgspec's own JSON Schema instead; structs that refuse
    unknown fields say so.
    """

    def to_openapi_schema(self, field_definition: FieldDefinition, schema_creator: Any) -> Schema:
        schema = super().to_openapi_schema(field_definition, schema_creator)
        struct = field_definition.type_
        info = msgspec.inspect.type_info(struct)
        if not isinstance(info, msgspec.inspect.StructType):
            return schema
        if info.forbid_unknown_fields:
            schema.additional_properties = False
        hints = get_type_hints(struct, include_extras=True)
        properties = schema.properties or {}
        for field in info.fields:
            if field.encode_name in properties and not _holds_struct(field.type):
                # A plain JSON Schema dict serialises as it is.
                properties[field.encode_name] = cast(Schema, field_schema(hints[field.name]))
        return schema


def location(example: str) -> list[ResponseHeader]:
    """A 201's documented ``Location`` (``created`` sets it), with an example path."""
    return [
        ResponseHeader(
            name="Location",
            description="Where the new resource is read.",
            value=example,
            documentation_only=True,
        )
    ]


def created(body: Any, location: str) -> Response[Any]:
    """A 201 answer with ``body`` and the new resource's ``Location``."""
    return Response(body, status_code=201, headers={"Location": location})
