"""Deterministic shuffles and the deal.

The shuffle is our own, defined here in full, rather than ``random.shuffle``:
a replay must deal the same cards from the same seed on every Python version
for as long as the game is kept, and only a generator we specify guarantees
that.  The stream is SHA-256 in counter mode over ``(seed, round)``; each
draw is rejection-sampled so every permutation is equally likely.

The deal (docs/rules.md 12), from an ordered deck whose first card is the top:
seat 0 takes the first 7 cards as its hand, seat 1 the next 7, and so on;
then each seat in order takes one palette card; the rest is the draw deck,
still top card first.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from engine.cards import Card
from engine.state import HAND_SIZE


class _Stream:
    """Uniform integers from SHA-256 in counter mode."""

    def __init__(self, seed: int, round_number: int) -> None:
        self._prefix = f"red7-shuffle/v1/{seed}/{round_number}/".encode()
        self._counter = 0
        self._pool = 0
        self._bits = 0

    def _refill(self) -> None:
        digest = hashlib.sha256(self._prefix + str(self._counter).encode()).digest()
        self._counter += 1
        self._pool = self._pool << 256 | int.from_bytes(digest, "big")
        self._bits += 256

    def below(self, n: int) -> int:
        """A uniform integer in ``range(n)``."""
        k = n.bit_length()
        while True:
            if self._bits < k:
                self._refill()
            self._bits -= k
            value = (self._pool >> self._bits) & ((1 << k) - 1)
            self._pool &= (1 << self._bits) - 1
            if value < n:
                return value


def shuffled(cards: Sequence[Card], seed: int, round_number: int) -> list[Card]:
    """``cards`` in an order fixed by ``seed`` and ``round_number`` (Fisher-Yates)."""
    out = sorted(cards)
    stream = _Stream(seed, round_number)
    for i in range(len(out) - 1, 0, -1):
        j = stream.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def deal(order: Sequence[Card], players: int) -> tuple[tuple[tuple[Card, ...], ...], tuple[Card, ...], tuple[Card, ...]]:
    """Hands, palette cards and draw deck (top first) from ``order`` (top first)."""
    hands = tuple(tuple(order[s * HAND_SIZE : (s + 1) * HAND_SIZE]) for s in range(players))
    start = players * HAND_SIZE
    palettes = tuple(order[start : start + players])
    deck = tuple(order[start + players :])
    return hands, palettes, deck


def first_seat(palettes: Sequence[Card]) -> int:
    """docs/rules.md 13: the seat after the one with the highest palette card."""
    best = max(range(len(palettes)), key=lambda s: palettes[s])
    return (best + 1) % len(palettes)
