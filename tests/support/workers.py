"""The worker processes of a ``cardroom serve --workers N`` started by a test."""

from __future__ import annotations

import psutil


def workers(supervisor: int) -> list[psutil.Process]:
    """The supervisor's live worker processes (a killed one not yet reaped excluded)."""
    found = []
    for child in psutil.Process(supervisor).children(recursive=True):
        try:
            if "spawn_main" in " ".join(child.cmdline()):
                found.append(child)
        except psutil.Error:  # a zombie, or gone
            continue
    return found
