"""The game's random generator, with its whole state kept in the game state (G-TURN-3).

A game's generator is keyed: draw n is HMAC-SHA256 under the game's secret key of the counter n,
and the state is `{"kind": "hmac-sha256", "key": <hex>, "counter": n}`. Without the key, no
number of seen rolls or cards says anything about the next one. The state is plain JSON, so it
round-trips through JSONB unchanged and the same key always gives the same dice.

Games made before the generator was keyed hold splitmix64's state, `{"state": <16 hex digits>}`
with no `kind`. They go on with it, so they continue and replay exactly as they were played; new
games never get one, because a single splitmix64 output gives its whole state away.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, MutableSequence
from typing import Any

KEYED = "hmac-sha256"
KEY_BYTES = 32  # a new game's secret; G-TURN-3 asks for at least 16
MIN_KEY_BYTES = 16
_CHOSEN = b"bridgecrew chosen seed\x00"
_MASK = (1 << 64) - 1

Seed = Mapping[str, Any]  # a generator state as a game starts: what replay starts from again


def keyed(key: bytes) -> dict[str, Any]:
    """A keyed generator's starting state, for a secret of at least 128 bits."""
    return {"kind": KEYED, "key": _long_enough(key).hex(), "counter": 0}


def _long_enough(key: bytes) -> bytes:
    if len(key) < MIN_KEY_BYTES:
        raise ValueError(f"a generator key has at least {MIN_KEY_BYTES} bytes")
    return key


def chosen(seed: int) -> dict[str, Any]:
    """The generator for a number the GM chose (a demo, a test): its key is the number's hash, so
    the same number gives the same game. Anyone who knows the number can work out every card."""
    return keyed(hashlib.sha256(_CHOSEN + str(seed).encode()).digest())


def legacy(seed: int) -> dict[str, str]:
    """The splitmix64 state a game made before keyed generators started from, given its seed."""
    return {"state": format(seed & _MASK, "016x")}


def start(seed: int | Seed) -> dict[str, Any]:
    """A new game's generator state: from a chosen number, or a copy of a stored start."""
    if isinstance(seed, int):
        return chosen(seed)
    state = dict(seed)
    Dice(dict(state))  # refuses a state it cannot draw from, before any game is built on it
    return state


class _Keyed:
    bits = 256

    def __init__(self, holder: dict[str, Any]) -> None:
        key = _long_enough(bytes.fromhex(holder["key"]))
        self._holder = holder
        self._mac = hmac.new(key, digestmod=hashlib.sha256)
        self._counter = int(holder["counter"])

    def next(self) -> int:
        mac = self._mac.copy()
        mac.update(self._counter.to_bytes(8, "big"))
        self._counter += 1
        self._holder["counter"] = self._counter
        return int.from_bytes(mac.digest(), "big")


class _Splitmix:
    bits = 64

    def __init__(self, holder: dict[str, Any]) -> None:
        self._holder = holder
        self._state = int(holder["state"], 16)

    def next(self) -> int:
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK
        self._holder["state"] = format(self._state, "016x")
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)


class Dice:
    """Draws numbers from, and writes back to, the generator state inside a game state dict."""

    def __init__(self, rng_state: dict[str, Any]) -> None:
        kind = rng_state.get("kind")
        if kind == KEYED:
            self._source: _Keyed | _Splitmix = _Keyed(rng_state)
        elif kind is None:
            self._source = _Splitmix(rng_state)
        else:
            raise ValueError(f"unknown generator kind {kind!r}")

    def below(self, n: int) -> int:
        """A uniform integer in [0, n), by rejection so no face is favoured."""
        limit = ((1 << self._source.bits) // n) * n
        while True:
            z = self._source.next()
            if z < limit:
                return z % n

    def roll(self, sides: int) -> int:
        return self.below(sides) + 1

    def shuffle(self, items: MutableSequence[Any]) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
