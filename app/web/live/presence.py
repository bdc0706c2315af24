"""Which phones are connected to a game: the hub's own knowledge of its station sockets, not game
state (nothing of it is stored). The GM's screens read it as the view's `phones`, the seats
with a station socket open, so the dashboard can say which stations the turn waits for while
their phone is away.

A phone that goes and comes back within `GRACE_SECONDS` (a page reload, a socket htmx-ext-ws
opens again at once) never counts as gone: a seat that left stays counted for that long, and the
GM's screens are brought up to date once it has passed.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

GRACE_SECONDS = 5.0


@dataclass
class Presence:
    """The seats of one game with a station socket open here, and those that left lately."""

    sockets: dict[str, int] = field(default_factory=dict)  # seat id: its sockets here
    left: dict[str, float] = field(default_factory=dict)  # seat id: when its last socket closed

    def came(self, seat: str) -> bool:
        """A socket of `seat` opened; whether the seats counted as connected changed."""
        back = self.left.pop(seat, None) is not None
        new = seat not in self.sockets
        self.sockets[seat] = self.sockets.get(seat, 0) + 1
        return new and not back

    def went(self, seat: str, now: float | None = None) -> None:
        """A socket of `seat` closed: when it was its last, the seat counts for a grace."""
        count = self.sockets.get(seat, 0) - 1
        if count > 0:
            self.sockets[seat] = count
            return
        self.sockets.pop(seat, None)
        self.left[seat] = time.monotonic() if now is None else now

    def phones(self, now: float | None = None) -> list[str]:
        """The seats counted as connected: those with a socket, and those within their grace."""
        now = time.monotonic() if now is None else now
        for seat, at in list(self.left.items()):
            if now - at >= GRACE_SECONDS:
                del self.left[seat]
        return sorted({*self.sockets, *self.left})


def with_phones(view: dict[str, Any], phones: Iterable[str]) -> dict[str, Any]:
    """The GM's view as its screens show it: with the seats whose phone is connected."""
    return {**view, "phones": sorted(phones)}
