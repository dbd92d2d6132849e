"""Raw HTTP/1.1 request heads of an exact size, for the tests of the head limits."""

from __future__ import annotations


def head(size: int, *, many: bool = False) -> bytes:
    """A ``GET /healthz`` whose request line and headers take exactly ``size`` bytes: one
    long ``x-pad`` header, or (``many``) 32-byte headers, the last one longer."""
    start = b"GET /healthz HTTP/1.1\r\nhost: cardroom\r\n"
    room = size - len(start) - 2
    if not many:
        lines = [b"x-pad: " + b"a" * (room - 9) + b"\r\n"]
    else:
        count = room // 32
        lines = [b"x-%04d: %s\r\n" % (i, b"a" * 22) for i in range(count)]
        lines[-1] = lines[-1][:-2] + b"a" * (room - 32 * count) + b"\r\n"
    whole = start + b"".join(lines) + b"\r\n"
    assert len(whole) == size
    return whole
