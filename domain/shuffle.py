"""The deterministic, verifiable shuffle (DESIGN 5).

The domain never draws randomness: the service draws a 32-byte seed and this module turns
it into a deck order. The algorithm is fixed and documented so that anyone holding an
export can recompute every deck:

1. Random bytes are the SHA-256 counter stream ``SHA256(seed || i)`` for i = 0, 1, 2, …
   with ``i`` as an 8-byte big-endian integer; blocks are consumed in order, 4 bytes at a
   time, each read as a big-endian unsigned 32-bit number ``x``.
2. A uniform index below ``n`` rejects every ``x >= 2**32 - (2**32 % n)`` (so no residue
   is favoured) and otherwise is ``x % n``.
3. Fisher–Yates: for ``i`` from ``len - 1`` down to 1, draw ``j`` below ``i + 1`` and swap
   positions ``i`` and ``j``. The input is the game's pack in its reference order
   (``domain.cards``); the output is the deck, top card first.

The commitment published in a deal event is ``sha256(seed)`` in lower-case hex; for an
operator-supplied deck it is the SHA-256 of ``canonical_deck(deck)``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence

from domain.cards import canonical_deck

SEED_BYTES = 32
_SPAN = 1 << 32


def _words(seed: bytes) -> Iterator[int]:
    counter = 0
    while True:
        block = hashlib.sha256(seed + counter.to_bytes(8, "big")).digest()
        for offset in range(0, len(block), 4):
            yield int.from_bytes(block[offset : offset + 4], "big")
        counter += 1


def _below(words: Iterator[int], n: int) -> int:
    limit = _SPAN - (_SPAN % n)
    while True:
        x = next(words)
        if x < limit:
            return x % n


def shuffle(pack: Sequence[str], seed: bytes) -> tuple[str, ...]:
    """The deck order that ``seed`` gives ``pack``, top card first."""
    if len(seed) != SEED_BYTES:
        raise ValueError(f"a shuffle seed is {SEED_BYTES} bytes, got {len(seed)}")
    deck = list(pack)
    words = _words(seed)
    for i in range(len(deck) - 1, 0, -1):
        j = _below(words, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def seed_commitment(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


def deck_commitment(deck: Sequence[str]) -> str:
    return hashlib.sha256(canonical_deck(deck).encode()).hexdigest()
