"""This process's websocket hub, and the LISTEN connection that tells it when any process changed a
game. Each socket gets its own view: loaded once per game and version, rendered once per viewer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import asyncpg  # type: ignore[import-untyped]
from sqlalchemy import make_url
from starlette.websockets import WebSocket, WebSocketState

from app.service import (
    add_commit_listener,
    events_after,
    game_info,
    load_state,
    remove_commit_listener,
    view_for,
)
from app.service.commands import NOTIFY_CHANNEL, SessionFactory, Viewer

_render_html: Callable[[str, dict[str, Any]], str] | None
try:  # The UI's renderer; until it exists (and for ?format=json) sockets get JSON views.
    from app.web.render import render_push as _render_html
except ModuleNotFoundError as missing:
    if missing.name not in ("app.web", "app.web.render"):
        raise
    _render_html = None

log = logging.getLogger(__name__)

Audience = Literal["station", "gm", "display", "events"]
Format = Literal["html", "json"]
HEARTBEAT_SECONDS = 15.0
OUTBOX_SIZE = 64  # a phone this far behind is better served by reconnecting (and a full view)
CLOSE_RESTART = 1012  # htmx-ext-ws reconnects after 1006/1011/1012/1013, not after 1000/1008
CLOSE_TRY_AGAIN = 1013
CLOSE_SERVER_ERROR = 1011
HTML_AVAILABLE = _render_html is not None
LISTENER_NAME = "bridgecrew-listener"  # in pg_stat_activity, so operators can tell it apart


def render(audience: Audience, view: dict[str, Any], version: int, fmt: Format) -> str:
    if fmt == "html" and _render_html is not None:
        return str(_render_html(audience, view))
    return json.dumps({"type": "view", "audience": audience, "version": version, "view": view})


@dataclass(eq=False)
class Connection:
    websocket: WebSocket
    audience: Audience
    viewer: Viewer  # for "events": "display", whose events are the public ones
    fmt: Format
    welcome: list[str] = field(default_factory=list)  # sent first, however long
    outbox: asyncio.Queue[tuple[int | None, bool, str]] = field(
        default_factory=lambda: asyncio.Queue(OUTBOX_SIZE)
    )
    last_view: dict[str, Any] | None = None  # what this screen shows now
    events_from: int = 0  # events up to this version were already sent
    closed: bool = False

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.audience, self.viewer, self.fmt)

    def offer(self, version: int | None, text: str, *, event: bool = False) -> None:
        if self.closed:
            return
        try:
            self.outbox.put_nowait((version, event, text))
        except asyncio.QueueFull:
            self.drop(CLOSE_TRY_AGAIN)

    def drop(self, code: int) -> None:
        """Close from outside the socket's own task; its receive loop then ends and cleans up."""
        if self.closed:
            return
        self.closed = True

        async def close() -> None:
            with contextlib.suppress(Exception):
                await self.websocket.close(code)

        asyncio.get_running_loop().create_task(close())

    async def send_forever(self) -> None:
        for text in self.welcome:
            await self.websocket.send_text(text)
        self.welcome = []
        while True:
            version, event, text = await self.outbox.get()
            if event and version is not None and version <= self.events_from:
                continue  # the welcome already covered it
            await self.websocket.send_text(text)


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


class Hub:
    def __init__(
        self,
        session_factory: SessionFactory,
        database_url: str,
        heartbeat_seconds: float = HEARTBEAT_SECONDS,
    ) -> None:
        self._session_factory = session_factory
        self._dsn = (
            make_url(database_url)
            .set(drivername="postgresql")
            .render_as_string(hide_password=False)
        )
        self._heartbeat_seconds = heartbeat_seconds
        self._rooms: dict[uuid.UUID, Room] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self.listening = False

    # --- Lifecycle -------------------------------------------------------------------------------

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        add_commit_listener(self.notice)
        self._tasks = [
            asyncio.create_task(self._listen_forever(), name="live-listener"),
            asyncio.create_task(self._heartbeat_forever(), name="live-heartbeat"),
        ]

    async def stop(self) -> None:
        remove_commit_listener(self.notice)
        for task in [*self._tasks, *(r.task for r in self._rooms.values() if r.task)]:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for room in self._rooms.values():
            for connection in list(room.connections):
                connection.drop(CLOSE_RESTART)
        await asyncio.sleep(0.05)  # let the close frames go out
        self._loop = None

    # --- Sockets ---------------------------------------------------------------------------------

    async def serve(
        self,
        websocket: WebSocket,
        game_id: uuid.UUID,
        audience: Audience,
        viewer: Viewer,
        fmt: Format = "json",
        *,
        events_after_version: int | None = None,
    ) -> None:
        """Own an accepted socket until it closes: its full view first, then every change."""
        connection = Connection(websocket, audience, viewer, fmt)
        room = self._rooms.setdefault(game_id, Room(game_id))
        sender: asyncio.Task[None] | None = None
        room.joining += 1
        try:
            try:
                async with room.lock:
                    await self._welcome(room, connection, events_after_version)
                    room.connections.add(connection)
            finally:
                room.joining -= 1
            sender = asyncio.create_task(connection.send_forever())
            while True:
                receiving = asyncio.create_task(websocket.receive())
                done, _ = await asyncio.wait(
                    {receiving, sender}, return_when=asyncio.FIRST_COMPLETED
                )
                if sender in done:  # the socket broke while sending
                    receiving.cancel()
                    break
                if receiving.result()["type"] == "websocket.disconnect":
                    break
                # Clients say nothing over the socket; commands go through HTTP with an id.
        except Exception as error:
            if websocket.client_state == WebSocketState.DISCONNECTED:
                log.debug("socket for %s went away: %r", game_id, error)  # a phone left: normal
            else:
                log.warning("socket for %s failed", game_id, exc_info=True)
                connection.closed = True
                with contextlib.suppress(Exception):  # 1011: htmx-ext-ws will reconnect
                    await websocket.close(CLOSE_SERVER_ERROR)
        finally:
            connection.closed = True
            room.connections.discard(connection)
            if sender is not None:
                sender.cancel()
            self._forget_if_idle(room)

    def _forget_if_idle(self, room: Room) -> None:
        idle = not room.connections and not room.joining and room.task is None
        if idle and self._rooms.get(room.game_id) is room:
            del self._rooms[room.game_id]

    async def _welcome(self, room: Room, connection: Connection, after: int | None) -> None:
        if connection.audience == "events":
            # With ?after=N a prop that was away gets what it missed; else only what follows.
            events: list[dict[str, Any]] = []
            if after is None:
                version = (await game_info(self._session_factory, room.game_id)).version
            else:
                version, events = await events_after(
                    self._session_factory, room.game_id, after, "display"
                )
            connection.events_from = version
            connection.welcome = [
                json.dumps({"type": "hello", "version": version}),
                *(event_message(event) for event in events),
            ]
        else:
            version, state = await load_state(self._session_factory, room.game_id)
            connection.last_view = view_for(state, connection.viewer)
            connection.welcome = [
                render(connection.audience, connection.last_view, version, connection.fmt)
            ]
        if room.pushed < 0:  # the first socket here: later rounds start from its version
            room.pushed = version
        room.wanted = max(room.wanted, version)

    # --- Changes ---------------------------------------------------------------------------------

    def notice(self, game_id: uuid.UUID, version: int) -> None:
        """A version was committed (here or in another process). Safe from any thread."""
        loop = self._loop
        if loop is None:
            return
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._want(game_id, version)
        else:
            with contextlib.suppress(RuntimeError):  # that loop is closing
                loop.call_soon_threadsafe(self._want, game_id, version)

    def resync_all(self) -> None:
        """After the listener was away, NOTIFYs may have been missed: push every full view."""
        for room in self._rooms.values():
            room.resync = True
            self._schedule(room)

    def _want(self, game_id: uuid.UUID, version: int) -> None:
        room = self._rooms.get(game_id)
        if room is None or version <= room.wanted:
            return  # nobody here watches it, or it is our own commit's echo
        room.wanted = version
        self._schedule(room)

    def _schedule(self, room: Room) -> None:
        if room.task is None or room.task.done():
            room.task = asyncio.get_running_loop().create_task(self._push(room))

    async def _push(self, room: Room) -> None:
        """Bring the room's sockets to the newest version. Commands arriving meanwhile are folded
        into the next round, so a burst costs a few rounds, not one per command."""
        failures = 0
        try:
            while room.resync or room.pushed < room.wanted:
                resync, room.resync = room.resync, False
                try:
                    async with room.lock:
                        await self._push_round(room, resync)
                    failures = 0
                except Exception:
                    room.resync = room.resync or resync
                    failures += 1
                    log.warning(
                        "push to game %s failed (%s in a row)",
                        room.game_id,
                        failures,
                        exc_info=failures == 1,
                    )
                    await asyncio.sleep(min(5.0, 0.5 * failures))
        finally:
            room.task = None
            self._forget_if_idle(room)

    async def _push_round(self, room: Room, resync: bool) -> None:
        if not room.connections:
            room.pushed = room.wanted
            return
        version, state = await load_state(self._session_factory, room.game_id)
        room.wanted = max(room.wanted, version)
        connections = list(room.connections)
        if version > room.pushed and any(c.audience == "events" for c in connections):
            await self._push_events(room, connections)
        views: dict[tuple[Any, ...], dict[str, Any]] = {}
        texts: dict[tuple[Any, ...], str] = {}
        for connection in connections:
            if connection.audience == "events":
                continue
            key = connection.key
            if key not in views:  # one view per viewer, shared by its sockets
                views[key] = view_for(state, connection.viewer)
            if not resync and connection.last_view == views[key]:
                continue  # e.g. a GM-only change: this screen stays as it is
            if key not in texts:  # rendered once per viewer and version, however many sockets
                try:
                    texts[key] = render(connection.audience, views[key], version, connection.fmt)
                except Exception:  # one broken panel must not freeze every other screen
                    log.exception("rendering %s for game %s failed", key, room.game_id)
                    texts[key] = ""
            if texts[key]:
                connection.last_view = views[key]
                connection.offer(version, texts[key])
        room.pushed = max(room.pushed, version)

    async def _push_events(self, room: Room, connections: list[Connection]) -> None:
        _, events = await events_after(self._session_factory, room.game_id, room.pushed, "display")
        messages = [(event["version"], event_message(event)) for event in events]
        for connection in connections:
            if connection.audience == "events":
                for version, text in messages:
                    connection.offer(version, text, event=True)

    # --- Background ------------------------------------------------------------------------------

    async def _heartbeat_forever(self) -> None:
        # Keeps proxies and phones' radios from idling the socket out, and finds dead sockets.
        while True:
            await asyncio.sleep(self._heartbeat_seconds)
            for room in list(self._rooms.values()):
                for connection in list(room.connections):
                    connection.offer(None, heartbeat(connection.fmt))

    async def _listen_forever(self) -> None:
        delay = 0.5
        while True:
            connection: asyncpg.Connection | None = None
            try:
                connection = await asyncpg.connect(
                    self._dsn, timeout=10, server_settings={"application_name": LISTENER_NAME}
                )
                lost = asyncio.Event()

                def on_lost(_: object, lost: asyncio.Event = lost) -> None:
                    lost.set()

                connection.add_termination_listener(on_lost)
                await connection.add_listener(NOTIFY_CHANNEL, self._on_notify)
                self.listening, delay = True, 0.5
                self.resync_all()
                # asyncpg notices a dead server only when it talks to it: ask now and then.
                while not lost.is_set():
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(lost.wait(), 5.0)
                    if not lost.is_set():
                        await connection.fetchval("SELECT 1", timeout=5)
                log.warning("lost the LISTEN connection; reconnecting")
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the database restarting: retry with back-off
                log.warning("LISTEN connection failed (%s); retrying in %.1f s", error, delay)
            finally:
                self.listening = False
                if connection is not None:
                    connection.terminate()
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)

    def _on_notify(self, _connection: object, _pid: int, _channel: str, payload: str) -> None:
        game, _, version = payload.partition(":")
        try:
            self._want(uuid.UUID(game), int(version))
        except ValueError:
            log.warning("ignoring odd notification %r", payload)


def event_message(event: dict[str, Any]) -> str:
    """One public event for the JSON event stream, with where it sits in the game's history."""
    body = {k: v for k, v in event.items() if k not in ("version", "seq")}
    return json.dumps(
        {"type": "event", "version": event["version"], "seq": event["seq"], "event": body}
    )


def heartbeat(fmt: Format) -> str:
    # An HTML comment: htmx-ext-ws swaps nothing for it.
    return '{"type": "heartbeat"}' if fmt == "json" or not HTML_AVAILABLE else "<!-- heartbeat -->"
