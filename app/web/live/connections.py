"""One socket: what it is watching, and its outbox. A socket's own task sends; everything else
only offers messages, so a slow phone never holds up a push round."""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from dataclasses import dataclass, field
from typing import Any, Literal

from starlette.websockets import WebSocket

from app.service.commands import State, Viewer
from app.web.panels import Reads

Audience = Literal["station", "gm", "display", "events"]
Format = Literal["html", "json"]
# What a socket may have waiting to be sent. One that stops reading is closed (CLOSE_TRY_AGAIN)
# once this much waits, not buffered: a phone that far behind is better served by a fresh screen.
OUTBOX_BYTES = 256 * 1024
CLOSE_RESTART = 1012  # htmx-ext-ws reconnects after 1006/1011/1012/1013, not after 1000/1008
CLOSE_TRY_AGAIN = 1013
CLOSE_SERVER_ERROR = 1011
CLOSE_SECONDS = 2.0


@dataclass(eq=False)
class Connection:
    websocket: WebSocket
    audience: Audience
    viewer: Viewer  # for "events": "display", whose events are the public ones
    fmt: Format
    # The device's language (cookie, Accept-Language); the projector's comes from its game.
    locale: str = "en"
    welcome: list[str] = field(default_factory=list)  # sent first, however long
    outbox: asyncio.Queue[tuple[int | None, bool, str]] = field(default_factory=asyncio.Queue)
    waiting: int = 0  # characters in the outbox (a push is ASCII but for a few icons)
    last_view: dict[str, Any] | None = None  # what a JSON screen shows now
    shown: list[int] | None = None  # an HTML screen's panels' inputs_key, in PANELS order
    shown_locale: str | None = None  # the language of what it shows
    events_from: int = 0  # events up to this version were already sent
    closed: bool = False
    close_code: int | None = None  # why it was dropped, if it was
    sender: asyncio.Task[None] | None = None

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.audience, self.viewer, self.fmt, self.locale)

    def offer(self, version: int | None, text: str, *, event: bool = False) -> None:
        if self.closed:
            return
        if self.waiting + len(text) > OUTBOX_BYTES:
            self.drop(CLOSE_TRY_AGAIN)
            return
        self.waiting += len(text)
        self.outbox.put_nowait((version, event, text))

    def drop(self, code: int) -> None:
        """Close from outside the socket's own task: its sender stops, and `until_closed` ends."""
        if self.closed:
            return
        self.closed, self.close_code = True, code
        if self.sender is not None:
            self.sender.cancel()

    async def send_forever(self) -> None:
        # Each message is let go once sent: this frame waits here for the socket's whole life,
        # and a variable left holding its last message (a welcome is a whole screen) would keep
        # it alive as long. A send waits while the socket's transport is over its high-water
        # mark, so what a phone does not read stays counted in `waiting`.
        while self.welcome:
            await self.websocket.send_text(self.welcome.pop(0))
        while True:
            version, event, text = await self.outbox.get()
            # Events the welcome already covered are skipped.
            if not (event and version is not None and version <= self.events_from):
                await self.websocket.send_text(text)
            self.waiting -= len(text)
            del text

    async def until_closed(self) -> None:
        """Send until the socket closes. Clients say nothing over it: commands go by HTTP."""
        sender = self.sender = asyncio.create_task(self.send_forever())
        try:
            while True:
                receiving = asyncio.create_task(self.websocket.receive())
                done, _ = await asyncio.wait(
                    {receiving, sender}, return_when=asyncio.FIRST_COMPLETED
                )
                if sender in done:  # dropped, or the socket broke while sending
                    receiving.cancel()
                    break
                if receiving.result()["type"] == "websocket.disconnect":
                    return
        finally:
            sender.cancel()
        if self.close_code is not None:
            # A peer that reads nothing never takes the close frame either: then give up on it.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.websocket.close(self.close_code), CLOSE_SECONDS)


@dataclass(eq=False)
class Room:
    """The sockets of one game in this process, and how far they have been brought."""

    game_id: uuid.UUID
    connections: set[Connection] = field(default_factory=set)
    # Welcomes and push rounds take turns, so a socket joins exactly between two rounds.
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    pushed: int = -1  # the newest version every socket here has been brought to
    wanted: int = -1
    resync: bool = False  # push full views even to screens that seem up to date
    joining: int = 0  # sockets waiting for their welcome: the room must stay
    task: asyncio.Task[None] | None = None
    reads: Reads = field(default_factory=dict)  # what panels read of the last round's parts
    committed: tuple[int, State] | None = None  # the newest state this process committed
    # While sockets join: the state they are shown, and panels' HTML by (audience, panel,
    # inputs key, language), shared by the screens joining together; let go once none is waiting.
    joined: tuple[int, State] | None = None
    panels: dict[tuple[str, str, int, str], bytes] = field(default_factory=dict)


def event_message(event: dict[str, Any]) -> str:
    """One public event for the JSON event stream, with where it sits in the game's history."""
    body = {k: v for k, v in event.items() if k not in ("version", "seq")}
    return json.dumps(
        {"type": "event", "version": event["version"], "seq": event["seq"], "event": body}
    )


def heartbeat(fmt: Format) -> str:
    # An HTML comment: htmx-ext-ws swaps nothing for it.
    return '{"type": "heartbeat"}' if fmt == "json" else "<!-- heartbeat -->"
