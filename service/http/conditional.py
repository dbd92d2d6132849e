"""Conditional requests: the ``If-None-Match`` parameter and the tags a header names."""

from __future__ import annotations

from typing import Annotated

from litestar.params import HeaderParameter

IfNoneMatch = Annotated[
    str | None,
    HeaderParameter(
        name="If-None-Match",
        description="An ETag from an earlier GET: answered with 304 while it is current.",
    ),
]


def entity_tags(header: str | None) -> list[str] | None:
    """The entity tags of an If-None-Match header, compared weakly (RFC 9110 §13.1.2):
    a weak tag keeps no ``W/``. Only a quoted tag is weak: ``W/*`` is no ``*``."""
    if header is None:
        return None
    return [t[2:] if t.startswith('W/"') else t for t in _tags(header)]


def strong_tags(header: str | None) -> list[str] | None:
    """The entity tags of an If-Match header, compared strongly (RFC 9110 §13.1.1): a
    weak tag matches nothing, so a header of weak tags only fails the precondition."""
    return None if header is None else [t for t in _tags(header) if not t.startswith("W/")]


def _tags(header: str) -> list[str]:
    return [t for t in (part.strip() for part in header.split(",")) if t]


def matches(header: str | None, tag: str) -> bool:
    """An If-None-Match ``header`` names ``tag`` (or ``*``): the answer is a 304."""
    wanted = entity_tags(header)
    return wanted is not None and ("*" in wanted or tag in wanted)
