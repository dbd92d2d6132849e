"""Tokens kept for a retry, sealed with the retry's own Idempotency-Key.

The store keeps only a digest of each seat and entry token, so that reading the database
seats nobody. A seat taken, or an entry made, with an ``Idempotency-Key`` must still hand
its tokens again to the retry of a client that lost the first answer. The idempotency
record therefore holds each token's 32 random bytes XORed with a pad that only the key
derives: HMAC-SHA-256, keyed by the Idempotency-Key, of where the token was granted (a
table's seat, or an entry's member). Every token has a place of its own, so no pad is
used twice. The key itself is stored only as a digest (:func:`stored_key`), the record
found by it: the database alone gives no token back, the client's key does.

A key is only as good as it is hard to guess: an unsalted digest of a short key is
searched in moments. A seat's taker need not prove anything else, so a seat's key must
have :data:`MIN_KEY` characters to count at all; the tournament gates take any key the
API allows (1 to 200 characters), and docs/design.md says what a short one exposes.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

TOKEN_BYTES = 32
MIN_KEY = 16  # characters of a key that may give a seat's token back to anyone holding it


def new_token() -> tuple[str, bytes]:
    """A fresh seat token, and the random bytes it spells (what :func:`seal` keeps)."""
    raw = secrets.token_bytes(TOKEN_BYTES)
    return spelled(raw), raw


def spelled(raw: bytes) -> str:
    """A token's bytes as the token is sent: URL-safe base64, unpadded."""
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def stored_key(key: str) -> str:
    """What the record keeps of ``key``, and is looked up by: its SHA-256, never the key
    that opens the seal."""
    return "sha256:" + hashlib.sha256(key.encode()).hexdigest()


def _pad(key: str, place: str) -> bytes:
    return hmac.new(key.encode(), b"cardroom token\0" + place.encode(), hashlib.sha256).digest()


def seal(raw: bytes, key: str, place: str) -> bytes:
    """``raw`` (:data:`TOKEN_BYTES` long) sealed with ``key`` for ``place``."""
    return bytes(a ^ b for a, b in zip(raw, _pad(key, place), strict=True))


def unseal(sealed: bytes, key: str, place: str) -> str:
    """The token :func:`seal` sealed with ``key`` for ``place``."""
    return spelled(seal(sealed, key, place))
