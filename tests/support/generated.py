"""The clients generated from api_spec/openapi.json by ``clients/generate``.

They are built, never committed. A local run without the generation step skips their
tests with the reason; CI generates them first and sets ``CARDROOM_REQUIRE_CLIENTS=1``,
which turns a missing client into a failure.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CLIENTS = Path(__file__).resolve().parents[2] / "clients"
REQUIRED = os.environ.get("CARDROOM_REQUIRE_CLIENTS") == "1"


def require(present: bool, what: str) -> None:
    """Skip the calling test module when ``what`` is absent (fail when it is required)."""
    if present:
        return
    reason = f"{what} is not built: run clients/generate first"
    if REQUIRED:
        pytest.fail(f"{reason} (CARDROOM_REQUIRE_CLIENTS=1)", pytrace=False)
    pytest.skip(reason, allow_module_level=True)
