"""DESIGN 5: the documented deterministic shuffle and its commitments."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest

from domain.cards import pinochle_pack, standard_pack
from domain.shuffle import deck_commitment, seed_commitment, shuffle


def reference_shuffle(pack: list[str], seed: bytes) -> list[str]:
    """The algorithm exactly as DESIGN 5 and domain/shuffle.py document it, written anew."""
    stream = b"".join(hashlib.sha256(seed + i.to_bytes(8, "big")).digest() for i in range(64))
    words = [int.from_bytes(stream[i : i + 4], "big") for i in range(0, len(stream), 4)]
    deck, w = list(pack), 0
    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        while words[w] >= 2**32 - 2**32 % n:
            w += 1
        j, w = words[w] % n, w + 1
        deck[i], deck[j] = deck[j], deck[i]
    return deck


@pytest.mark.parametrize("seed_byte", [0, 1, 7, 255])
def test_shuffle_follows_the_documented_algorithm(seed_byte: int) -> None:
    seed = bytes([seed_byte]) * 32
    assert list(shuffle(standard_pack(), seed)) == reference_shuffle(list(standard_pack()), seed)


def test_shuffle_is_a_permutation_and_keeps_pinochle_duplicates() -> None:
    deck = shuffle(pinochle_pack(), bytes(range(32)))
    assert Counter(deck) == Counter(pinochle_pack())
    assert deck != pinochle_pack()


def test_same_seed_same_deck_other_seed_other_deck() -> None:
    seed = bytes(range(32))
    assert shuffle(standard_pack(), seed) == shuffle(standard_pack(), seed)
    assert shuffle(standard_pack(), seed) != shuffle(standard_pack(), bytes(32))


def test_known_answer_for_the_zero_seed() -> None:
    """Pins the algorithm: exports verified today must verify tomorrow."""
    top = ("TS", "TD", "QD", "KD", "3D", "3H", "7D", "AH")
    assert shuffle(standard_pack(), bytes(32))[:8] == top
    assert seed_commitment(bytes(32)) == hashlib.sha256(bytes(32)).hexdigest()


def test_seeds_must_be_32_bytes() -> None:
    with pytest.raises(ValueError):
        shuffle(standard_pack(), b"short")


def test_deck_commitment_is_over_the_canonical_deck_text() -> None:
    deck = ["5S", "JD", "AH"]
    assert deck_commitment(deck) == hashlib.sha256(b"5S JD AH").hexdigest()
