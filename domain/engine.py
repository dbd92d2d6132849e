"""Rules engine versions: which way a table is decided (``domain.RULES_ENGINE_VERSION``).

A table keeps the engine it was created under (``table_created.rules_version``), so a
rule that changes is looked up against it, never against the running code's version.
"""

from __future__ import annotations

import re
from functools import cache

_ENGINE = re.compile(r"[0-9]+(?:\.[0-9]+){0,2}")

HELD_PAUSE = "1.1.0"  # the engine from which a pause holds the clocks (domain/__init__.py)


@cache  # a handful of versions, parsed again on every command and snapshot otherwise
def engine_of(version: str) -> tuple[int, int, int] | None:
    """``"1.1.0"`` as ``(1, 1, 0)`` (and ``"1.1"`` too), to compare; None for what is no
    rules engine version (an export may hold anything)."""
    if not _ENGINE.fullmatch(version):
        return None
    major, minor, patch = [*map(int, version.split(".")), 0, 0][:3]
    return major, minor, patch


def engine_since(engine: str, version: str) -> bool:
    """Whether ``engine`` is rules engine ``version`` or a later one; an unreadable one
    takes the old way."""
    mine, since = engine_of(engine), engine_of(version)
    assert since is not None
    return mine is not None and mine >= since
