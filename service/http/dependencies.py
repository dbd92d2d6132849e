"""The dependencies a controller or a route declares for its handlers.

Litestar reads a controller's ``dependencies`` from the class and never changes them, so
they are declared read-only here, once, rather than as a mutable class attribute in each
controller. The providers are called on the event loop: each is either a coroutine or a
sync function that only assembles what the request already holds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from inspect import iscoroutinefunction
from types import MappingProxyType
from typing import Any

from litestar.di import Provide


def provided(**providers: Callable[..., Any]) -> Mapping[str, Provide]:
    """``{name: Provide(provider)}``, read-only, with no sync provider sent to a thread."""
    return MappingProxyType({name: _provide(provider) for name, provider in providers.items()})


def _provide(provider: Callable[..., Any]) -> Provide:
    if iscoroutinefunction(provider):
        return Provide(provider)
    return Provide(provider, sync_to_thread=False)
