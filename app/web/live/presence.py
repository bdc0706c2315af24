"""Which phones and projectors are connected to a game: the hub's own knowledge of its station and
display sockets, not game state (nothing of it is stored). The GM's screens read it as the view's
`phones`, the seats with a station socket open, so the dashboard can say which stations the turn
waits for while their phone is away, and `projector`, whether a projector screen is open, so it
can say when the room sees nothing.

A socket that goes and comes back within `GRACE_SECONDS` (a page reload, a socket htmx-ext-ws
opens again at once) never counts as gone: one that left stays counted for that long, and the
GM's screens are brought up to date once it has passed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

GRACE_SECONDS = 5.0
# The projector's key among the seats' ids, which are UUIDs: any display socket counts as it.
PROJECTOR = "projector"
# What `with_presence` adds to the GM's view: a panel that reads one is pushed as it changes.
KEYS = ("phones", "projector")


@dataclass
class Presence:
    """The seats of one game with a station socket open here, the projector (`PROJECTOR`) with a
    display socket open, and those that left lately."""

    sockets: dict[str, int] = field(default_factory=dict)  # key: its sockets here
    left: dict[str, float] = field(default_factory=dict)  # key: when its last socket closed

    def came(self, key: str) -> bool:
        """A socket of `key` opened; whether what counts as connected changed."""
        back = self.left.pop(key, None) is not None
        new = key not in self.sockets
        self.sockets[key] = self.sockets.get(key, 0) + 1
        return new and not back

    def went(self, key: str, now: float | None = None) -> None:
        """A socket of `key` closed: when it was its last, `key` counts for a grace."""
        count = self.sockets.get(key, 0) - 1
        if count > 0:
            self.sockets[key] = count
            return
        self.sockets.pop(key, None)
        self.left[key] = time.monotonic() if now is None else now

    def connected(self, now: float | None = None) -> set[str]:
        """The keys counted as connected: those with a socket, and those within their grace."""
        now = time.monotonic() if now is None else now
        for key, at in list(self.left.items()):
            if now - at >= GRACE_SECONDS:
                del self.left[key]
        return {*self.sockets, *self.left}

    def phones(self, now: float | None = None) -> list[str]:
        """The seats counted as connected."""
        return sorted(self.connected(now) - {PROJECTOR})

    def projector(self, now: float | None = None) -> bool:
        """Whether a projector counts as connected."""
        return PROJECTOR in self.connected(now)


def with_presence(view: dict[str, Any], presence: Presence) -> dict[str, Any]:
    """The GM's view as its screens show it: with the seats whose phone is connected, and whether
    a projector is."""
    now = time.monotonic()
    return {**view, "phones": presence.phones(now), "projector": presence.projector(now)}
