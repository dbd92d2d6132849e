"""What a server under test logged: its JSON log lines, read from its captured output."""

from __future__ import annotations

import json
from typing import IO, Any


def logged_errors(output: IO[str]) -> list[dict[str, Any]]:
    """The error and critical lines of the server's JSON log (which must have lines)."""
    output.seek(0)
    lines = [json.loads(line) for line in output if line.startswith("{")]
    assert lines, "the server's JSON log"
    return [line for line in lines if line["level"] in ("error", "critical")]
