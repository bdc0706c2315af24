"""The game's random generator: splitmix64 with its whole state kept in the game state.

The state is one 64-bit integer stored as hex text, so it round-trips through JSON and JSONB
unchanged and the same seed always gives the same dice.
"""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import Any

_MASK = (1 << 64) - 1


def new_rng(seed: int) -> dict[str, str]:
    return {"state": format(seed & _MASK, "016x")}


class Dice:
    """Draws numbers from, and writes back to, the generator state inside a game state dict."""

    def __init__(self, rng_state: dict[str, Any]) -> None:
        self._holder = rng_state
        self._state = int(rng_state["state"], 16)

    def _next(self) -> int:
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK
        self._holder["state"] = format(self._state, "016x")
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in [0, n), by rejection so no face is favoured."""
        limit = ((1 << 64) // n) * n
        while True:
            z = self._next()
            if z < limit:
                return z % n

    def roll(self, sides: int) -> int:
        return self.below(sides) + 1

    def shuffle(self, items: MutableSequence[Any]) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
