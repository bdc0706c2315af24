"""Token buckets: how fast one key (a token, an address, a game) may go on, with a burst after a
quiet spell. In memory, per process: a restart forgives everyone."""

from __future__ import annotations

import time
from collections.abc import Callable


class TokenBuckets:
    """One token bucket per key. Idle keys are forgotten, so memory stays bounded however many
    keys (bogus tokens, say) come by."""

    MAX_KEYS = 10_000

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic):
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, when)

    def take(self, key: str) -> float:
        """0 when the call may go ahead, else the seconds until it may."""
        now = self.clock()
        tokens = self._tokens(key, now)
        if tokens < 1:
            self._buckets[key] = (tokens, now)
            return (1 - tokens) / self.rate
        if key not in self._buckets and len(self._buckets) >= self.MAX_KEYS:
            self._forget_idle(now)
        self._buckets[key] = (tokens - 1, now)
        return 0.0

    def wait(self, key: str) -> float:
        """What `take` would answer, taking nothing."""
        tokens = self._tokens(key, self.clock())
        return 0.0 if tokens >= 1 else (1 - tokens) / self.rate

    def _tokens(self, key: str, now: float) -> float:
        tokens, when = self._buckets.get(key, (float(self.burst), now))
        return min(float(self.burst), tokens + (now - when) * self.rate)

    def _forget_idle(self, now: float) -> None:
        """Drop buckets that have refilled: forgetting them changes nobody's allowance."""
        full = [
            key
            for key, (tokens, when) in self._buckets.items()
            if tokens + (now - when) * self.rate >= self.burst
        ]
        for key in full:
            del self._buckets[key]
        if len(self._buckets) >= self.MAX_KEYS:  # a flood of fresh keys: start over
            self._buckets.clear()
