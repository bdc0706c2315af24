"""What is built once and kept while its key holds: the library's catalogue until the library
changes, a game's report until the game moves on, a game's words until it takes new content.

The key is read from the database each time (a small query: the library's item versions, a
game's version), never trusted from this process's memory, so every process keeps its own copy
and none goes stale when another process changes the data. Callers asking for a key that is
being built wait for that one build instead of starting their own: four readers of a cold
report cost one report.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Kept(Generic[K, V]):
    """The values of the last `most` keys asked for, each built by the first asker."""

    def __init__(self, most: int) -> None:
        self._most = most
        self._values: OrderedDict[K, V] = OrderedDict()
        self._building: dict[K, asyncio.Task[V]] = {}

    def holds(self, key: K) -> bool:
        """Whether a value is kept for `key` now."""
        return key in self._values

    async def get(self, key: K, build: Callable[[], Awaitable[V]]) -> V:
        """The value kept for `key`, built with `build` if there is none. A build that fails
        keeps nothing: the next asker tries again."""
        if key in self._values:
            self._values.move_to_end(key)
            return self._values[key]
        building = self._building.get(key)
        if building is None or building.get_loop() is not asyncio.get_running_loop():
            building = asyncio.ensure_future(build())
            self._building[key] = building
            building.add_done_callback(lambda done: self._built(key, done))
        # Shielded: an asker that gives up (a phone that left) does not cancel the others' build.
        return await asyncio.shield(building)

    def _built(self, key: K, done: asyncio.Task[V]) -> None:
        if self._building.get(key) is done:
            del self._building[key]
        if done.cancelled() or done.exception() is not None:
            return
        self._values[key] = done.result()
        self._values.move_to_end(key)
        while len(self._values) > self._most:
            self._values.popitem(last=False)
