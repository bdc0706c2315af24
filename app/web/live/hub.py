"""This process's websocket hub: the rooms of sockets, and when each is pushed to."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import uuid
from collections.abc import Callable

from starlette.websockets import WebSocket, WebSocketState

from app.i18n import locale_of_scope
from app.service.commands import SessionFactory, State, Viewer, on_commit

from . import push
from .connections import CLOSE_RESTART, CLOSE_SERVER_ERROR, Audience, Connection, Format, Room
from .connections import heartbeat as heartbeat_message
from .listener import Listener

log = logging.getLogger(__name__)
HEARTBEAT_SECONDS = 5.0  # app.settings.Settings.heartbeat_s


class Hub:
    def __init__(
        self,
        session_factory: SessionFactory,
        dsn: str,
        heartbeat_seconds: float = HEARTBEAT_SECONDS,
        seats_ended: Callable[[uuid.UUID], None] = lambda game_id: None,
    ) -> None:
        """`seats_ended` is told the game whose seats ended, in any process (by LISTEN)."""
        self._session_factory = session_factory
        self._heartbeat_seconds = heartbeat_seconds
        self._rooms: dict[uuid.UUID, Room] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._listener = Listener(dsn, self._want, self.resync_all, seats_ended)

    @property
    def listening(self) -> bool:
        return self._listener.listening

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        tune_gc()
        on_commit(self._session_factory, self.committed)
        self._tasks = [
            asyncio.create_task(self._listener.run_forever(), name="live-listener"),
            asyncio.create_task(self._heartbeat_forever(), name="live-heartbeat"),
        ]

    async def stop(self) -> None:
        on_commit(self._session_factory, None)
        for task in [*self._tasks, *(r.task for r in self._rooms.values() if r.task)]:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for room in self._rooms.values():
            for connection in list(room.connections):
                connection.drop(CLOSE_RESTART)
        await asyncio.sleep(0.05)  # let the sockets' tasks send their close frames
        self._loop = None

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
        connection = Connection(
            websocket, audience, viewer, fmt, locale_of_scope(getattr(websocket, "scope", None))
        )
        room = self._rooms.setdefault(game_id, Room(game_id))
        room.joining += 1
        try:
            try:
                async with room.lock:
                    version = await push.welcome(
                        self._session_factory, room, connection, events_after_version
                    )
                    room.connections.add(connection)
                    self._joined_at(room, version)
            finally:
                room.joining -= 1
                if not room.joining:
                    room.joined = None
                    room.panels.clear()
            await connection.until_closed()
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
            self._forget_if_idle(room)

    def _joined_at(self, room: Room, version: int) -> None:
        if room.pushed < 0:  # the first socket here: later rounds start from its version
            room.pushed = version
        room.wanted = max(room.wanted, version)
        if room.wanted > room.pushed:
            # It joined between a commit and the hub hearing of it, and shows a version the
            # sockets already here do not: bring them up now, as the notice, when it comes, will
            # find that version wanted already and schedule nothing.
            self._schedule(room)

    def _forget_if_idle(self, room: Room) -> None:
        idle = not room.connections and not room.joining and room.task is None
        if idle and self._rooms.get(room.game_id) is room:
            del self._rooms[room.game_id]

    def committed(self, game_id: uuid.UUID, version: int | None, state: State | None) -> None:
        """A transaction of this app committed `version` with `state` (app/service/commands.py,
        `on_commit`); None when a COMMIT's outcome is unknown, so the row must say."""
        if self._loop is not None:
            self._want(game_id, version, state)

    def resync_all(self) -> None:
        """After the listener was away, NOTIFYs may have been missed: push every full view."""
        for room in self._rooms.values():
            room.resync = True
            self._schedule(room)

    def _want(self, game_id: uuid.UUID, version: int | None, state: State | None = None) -> None:
        """Bring the game's sockets here to `version` (None: to whatever the row holds)."""
        room = self._rooms.get(game_id)
        if room is None:
            return  # nobody here watches it
        if version is None:
            room.resync = True
        elif version <= room.wanted:
            return
        else:
            room.wanted = version
            if state is not None:
                room.committed = (version, state)
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
                        await push.push_round(self._session_factory, room, resync)
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

    async def _heartbeat_forever(self) -> None:
        # Keeps proxies and phones' radios from idling the socket out, and finds dead sockets.
        while True:
            await asyncio.sleep(self._heartbeat_seconds)
            for room in list(self._rooms.values()):
                for connection in list(room.connections):
                    connection.offer(None, heartbeat_message(connection.fmt))


GC_THRESHOLD0 = 50_000


def tune_gc() -> None:
    """Make the cyclic collector's full passes rare. A push round allocates tens of thousands of
    short-lived objects (views, panels' inputs); with Python's default first threshold many are
    caught alive mid-round and promoted, and a full pass over a server holding hundreds of
    sockets stops every screen (bench/load.py, BENCH_GC_LOG). Reference counting frees most of
    it; young collections still find cycles."""
    threshold0, threshold1, threshold2 = gc.get_threshold()
    if threshold0 < GC_THRESHOLD0:
        gc.set_threshold(GC_THRESHOLD0, threshold1, threshold2)
