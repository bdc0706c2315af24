"""This process's websocket hub: the sockets of each game here (a room), when each room is pushed
to, and what each socket is sent.

A socket's own task sends; everything else only offers it messages, so a slow phone never holds
up a push round. On joining, a socket is sent its whole screen; after a commit, what changed of
it. An HTML screen is its panels (app/web/render.py): a panel is pushed when its inputs changed,
rendered only if no screen here has those inputs rendered already (two phones of one ship share
most panels), and never re-rendered for a change elsewhere in the view. A JSON screen is its
whole view, sent when the view changed. The hub hears of this process's commits from the
transaction (app/service/commands.py, `on_commit`), of other processes' by LISTEN (listener.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from starlette.websockets import WebSocket, WebSocketState

from app import i18n
from app.i18n import locale_of_scope
from app.i18n_content import Words, speaking_content
from app.rules import shared_view
from app.rules.core.messages import message
from app.service import events_after, game_info, load_state, view_for
from app.service.commands import SessionFactory, State, Viewer, on_commit
from app.service.games import game_words
from app.settings import Settings
from app.web.render import (
    PANELS,
    PLANS,
    Fragment,
    Inputs,
    PanelCache,
    Reads,
    Screen,
    Shown,
    screen_locale,
    screen_message,
    shown_as,
    version_marker,
)
from app.web.words import say

from . import presence
from .listener import Listener
from .presence import PROJECTOR, Presence, with_presence

log = logging.getLogger(__name__)
HEARTBEAT_SECONDS: float = Settings.model_fields["heartbeat_s"].default

Audience = Literal["station", "gm", "display", "events"]
Format = Literal["html", "json"]
# What a socket may have waiting to be sent. One that stops reading is closed (CLOSE_TRY_AGAIN)
# once this much waits, not buffered: a phone that far behind is better served by a fresh screen.
OUTBOX_BYTES = 256 * 1024
CLOSE_RESTART = 1012  # htmx-ext-ws reconnects after 1006/1011/1012/1013, not after 1000/1008
CLOSE_TRY_AGAIN = 1013
CLOSE_SERVER_ERROR = 1011
CLOSE_SECONDS = 2.0
# How long a push round may hold the event loop before it lets other work in.
PACE_SECONDS = 0.002
# The game was deleted (app/sweeper.py): a 4xxx code, which no screen retries, with the reason
# in the reader's language for the screen to show (static/js/app.js).
CLOSE_GONE = 4410
CLOSE_REASON_BYTES = 123  # what a close frame holds


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
    shown: Shown | None = None  # what an HTML screen shows (app/web/render.py)
    events_from: int = 0  # events up to this version were already sent
    closed: bool = False
    close_code: int | None = None  # why it was dropped, if it was
    close_reason: str = ""
    sender: asyncio.Task[None] | None = None
    offered_at: float = field(default_factory=time.monotonic)  # the last message it was given

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
        self.offered_at = time.monotonic()
        self.outbox.put_nowait((version, event, text))

    def drop(self, code: int, reason: str = "") -> None:
        """Close from outside the socket's own task: its sender stops, and `until_closed` ends."""
        if self.closed:
            return
        self.closed, self.close_code, self.close_reason = True, code, reason
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
                closing = self.websocket.close(self.close_code, self.close_reason)
                await asyncio.wait_for(closing, CLOSE_SECONDS)


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
    panels: PanelCache = field(default_factory=dict)
    joined_words: Words | None = None  # the words of the game's own content `joined` is in
    # The words its sockets were last pushed in: other ones, after a move to another battle,
    # are pushed whole.
    words: Words | None = None
    # Which phones and projectors are connected (the GM's screens show it), and whether the GM's
    # screens must be brought up to a change of it.
    presence: Presence = field(default_factory=Presence)
    presence_changed: bool = False


def event_message(event: dict[str, Any]) -> str:
    """One public event for the JSON event stream, with where it sits in the game's history."""
    body = {k: v for k, v in event.items() if k not in ("version", "seq")}
    return json.dumps(
        {"type": "event", "version": event["version"], "seq": event["seq"], "event": body}
    )


def heartbeat(fmt: Format) -> str:
    # An HTML comment: htmx-ext-ws swaps nothing for it.
    return '{"type": "heartbeat"}' if fmt == "json" else "<!-- heartbeat -->"


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
        self._listener = Listener(dsn, self._want, self.resync_all, seats_ended, self.game_gone)

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
        shown: str | None = None,
        counted: bool = True,
    ) -> None:
        """Own an accepted socket until it closes: its full view first (unless `shown` says the
        screen shows it already: `welcome`), then every change. A socket not `counted` (a
        spectator's) is left out of the room's presence."""
        connection = Connection(
            websocket, audience, viewer, fmt, locale_of_scope(getattr(websocket, "scope", None))
        )
        room = self._rooms.setdefault(game_id, Room(game_id))
        room.joining += 1
        present = _presence_key(audience, viewer) if counted else None
        counted = False
        try:
            try:
                async with room.lock:
                    version = await welcome(
                        self._session_factory, room, connection, events_after_version, shown
                    )
                    room.connections.add(connection)
                    self._joined_at(room, version)
                if present is not None:
                    counted = True
                    if room.presence.came(present):
                        self._presence_changed(game_id)
            finally:
                room.joining -= 1
                if not room.joining:
                    room.joined = room.joined_words = None
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
            if counted and present is not None:
                room.presence.went(present)
                if self._loop is not None:  # the GM is told once its grace is over
                    self._loop.call_later(
                        presence.GRACE_SECONDS + 0.05, self._presence_changed, game_id
                    )
            self._forget_if_idle(room)

    def presence(self, game_id: uuid.UUID) -> dict[str, Any]:
        """Who is connected to the game here, as the GM's view shows it (`with_presence`)."""
        room = self._rooms.get(game_id)
        return with_presence({}, room.presence if room is not None else Presence())

    def _presence_changed(self, game_id: uuid.UUID) -> None:
        room = self._rooms.get(game_id)
        if room is not None and self._loop is not None:
            room.presence_changed = True
            self._schedule(room)

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

    def game_gone(self, game_id: uuid.UUID) -> None:
        """The game was deleted, by any process: its sockets here close, each told why in the
        language it shows."""
        room = self._rooms.get(game_id)
        for connection in list(room.connections if room else ()):
            shown = connection.shown.locale if connection.shown else connection.locale
            words = i18n.translations(shown)
            reason = f"GAME_GONE: {say(message('game_gone'), words)}".encode()
            connection.drop(CLOSE_GONE, reason[:CLOSE_REASON_BYTES].decode(errors="ignore"))

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
            while room.resync or room.pushed < room.wanted or room.presence_changed:
                resync, room.resync = room.resync, False
                room.presence_changed = False
                try:
                    async with room.lock:
                        await push_round(self._session_factory, room, resync)
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
        # Keeps proxies and phones' radios from idling the socket out, and finds dead sockets. A
        # socket sent anything within the period needs none: any message tells its screen it is
        # alive (static/js/app.js), and a busy evening then sends far fewer frames.
        while True:
            await asyncio.sleep(self._heartbeat_seconds)
            quiet_since = time.monotonic() - self._heartbeat_seconds
            for room in list(self._rooms.values()):
                for connection in list(room.connections):
                    if connection.offered_at <= quiet_since:
                        connection.offer(None, heartbeat(connection.fmt))


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


def _own_locale(connection: Connection) -> str | None:
    """A device's own language; None for the projector, which follows its game's setting."""
    return None if connection.audience == "display" else connection.locale


def _presence_key(audience: Audience, viewer: Viewer) -> str | None:
    """What a socket counts as in the room's presence: its seat, the projector, or nothing."""
    if audience == "station" and isinstance(viewer, tuple):
        return viewer[1]
    return PROJECTOR if audience == "display" else None


def _screen_view(
    room: Room, state: State, viewer: Viewer, common: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A viewer's view as its screens show it: the GM's with the phones and projector connected."""
    view = view_for(state, viewer, common)
    return with_presence(view, room.presence) if viewer == "gm" else view


# The panels that read who is connected, by audience.
_PRESENCE_PANELS = {
    audience: {
        name
        for (of, name), plan in PLANS.items()
        if of == audience and any(key in plan.own for key in presence.KEYS)
    }
    for audience in PANELS
}


def by_panel(connection: Connection) -> bool:
    return connection.fmt == "html" and connection.audience in PANELS


async def welcome(
    factory: SessionFactory,
    room: Room,
    connection: Connection,
    after: int | None,
    shown: str | None = None,
) -> int:
    """Fill the socket's welcome; answers the version it shows. An HTML screen that says it shows
    this version already, as this process renders it (`shown_as`), gets the version marker alone:
    its panels would be the ones it has."""
    if connection.audience == "events":
        # With ?after=N a prop that was away gets what it missed; else only what follows.
        events: list[dict[str, Any]] = []
        if after is None:
            version = (await game_info(factory, room.game_id)).version
        else:
            version, events = await events_after(factory, room.game_id, after, "display")
        connection.events_from = version
        connection.welcome = [
            json.dumps({"type": "hello", "version": version}),
            *(event_message(event) for event in events),
        ]
        return version
    # Sockets joining together (a reconnect storm) share one read of the state, and the panels
    # they have in common; the newest version this process knows of is the least they show.
    if room.joined is None or room.joined[0] < room.wanted:
        room.joined = await load_state(factory, room.game_id)
        words = await game_words(factory, room.game_id)
        if room.joined_words != words:  # the panels kept so far say other words
            room.panels.clear()
            room.joined_words = words
    version, state = room.joined
    view = _screen_view(room, state, connection.viewer)
    locale = screen_locale(connection.audience, view, _own_locale(connection))
    with speaking_content(room.joined_words or {}):
        if by_panel(connection):
            screen = Screen(connection.audience, view, locale=locale)
            everything, connection.shown = screen.everything()
            if shown == shown_as(version, locale):
                # Who is connected is not in the version: what the page showed of it may be old.
                live = [f for f in everything if f[1] in _PRESENCE_PANELS[connection.audience]]
                connection.welcome = [screen.message(version, live, room.panels)]
            else:
                connection.welcome = [screen.message(version, everything, room.panels)]
        else:
            connection.last_view = view
            connection.welcome = [
                screen_message(connection.audience, view, version, connection.fmt, locale)
            ]
    return version


async def push_round(factory: SessionFactory, room: Room, resync: bool) -> None:
    """Bring every socket of the room to the newest version."""
    committed, room.committed = room.committed, None
    if not room.connections:
        room.pushed = room.wanted
        room.reads.clear()
        return
    # After a commit here, the state it committed; else (another process's commit, a resync)
    # the row's.
    if committed is not None and committed[0] >= room.wanted and not resync:
        version, state = committed
    else:
        version, state = await load_state(factory, room.game_id)
    room.wanted = max(room.wanted, version)
    connections = list(room.connections)
    if version <= room.pushed and not resync:  # only who is connected changed: the GM's screens
        connections = [c for c in connections if c.viewer == "gm"]
    if version > room.pushed and any(c.audience == "events" for c in connections):
        _, events = await events_after(factory, room.game_id, room.pushed, "display")
        messages = [(event["version"], event_message(event)) for event in events]
        for connection in connections:
            if connection.audience == "events":
                for number, text in messages:
                    connection.offer(number, text, event=True)
    by_key: dict[tuple[Any, ...], list[Connection]] = {}
    for connection in connections:
        if connection.audience != "events":
            by_key.setdefault(connection.key, []).append(connection)
    words = await game_words(factory, room.game_id)
    resync = resync or (room.words is not None and room.words != words)
    room.words = words
    common, parts = shared_view(state), Inputs(room.reads)  # what every view shows, once
    room.reads = parts.reads
    rendered: PanelCache = {}
    pace = Pace()
    for members in by_key.values():
        first = members[0]
        view = _screen_view(room, state, first.viewer, common)  # one per viewer, for its sockets
        locale = screen_locale(first.audience, view, _own_locale(first))
        try:
            with speaking_content(words):
                if by_panel(first):
                    screen = Screen(first.audience, view, parts, locale)
                    await _offer_fragments(screen, members, version, resync, rendered, pace)
                else:
                    _offer_whole(first.audience, view, version, members, resync, locale)
        except Exception:  # one broken fragment must not freeze every other screen
            log.exception("rendering %s for game %s failed", first.key, room.game_id)
        await pace.step()
    room.pushed = max(room.pushed, version)


class Pace:
    """Lets other games' commands in during a long push round: a turn's start or its reveal
    redraws much of every screen of a game, and the loop must not wait for all of it. Yields
    to the loop once a round has held it for PACE_SECONDS."""

    def __init__(self) -> None:
        self._since = time.perf_counter()

    async def step(self) -> None:
        if time.perf_counter() - self._since >= PACE_SECONDS:
            await asyncio.sleep(0)
            self._since = time.perf_counter()


async def _offer_fragments(
    screen: Screen,
    members: list[Connection],
    version: int,
    resync: bool,
    rendered: PanelCache,
    pace: Pace,
) -> None:
    texts: dict[int, str] = {}  # sockets of one viewer mostly need the same
    for connection in members:
        if resync:
            send, shown = screen.everything()
        else:
            send, shown = screen.changes(connection.shown)
        if send:  # else e.g. a GM-only change: this screen stays as it is
            text = texts.get(id(send))
            if text is None:  # (a fragment that fails to render leaves `shown` for another try)
                text = texts[id(send)] = await _message(screen, version, send, rendered, pace)
            connection.offer(version, text)
        connection.shown = shown


async def _message(
    screen: Screen, version: int, send: list[Fragment], rendered: PanelCache, pace: Pace
) -> str:
    html = []
    for fragment in send:
        html.append(screen.html(fragment, rendered))
        await pace.step()
    return version_marker(version, screen.locale) + b"".join(html).decode()


def _offer_whole(
    audience: Audience,
    view: dict[str, Any],
    version: int,
    members: list[Connection],
    resync: bool,
    locale: str,
) -> None:
    text: str | None = None
    for connection in members:
        if not resync and connection.last_view == view:
            continue
        if text is None:  # rendered once per viewer and version, however many sockets
            text = screen_message(audience, view, version, connection.fmt, locale)
        connection.last_view = view
        connection.offer(version, text)
