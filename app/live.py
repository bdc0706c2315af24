"""This process's websocket hub, and the LISTEN connection that tells it when any process changed a
game. Each socket gets its own view: loaded once per game and version, rendered once per viewer.

Rendering is most of what a push costs (bench/load.py), so HTML screens are rendered panel by
panel and each panel is rendered again only when its inputs changed: the first time a panel is
rendered, the hub notes which top-level keys of the view the template read; the panel is reused,
for this screen or for another viewer's, as long as those keys hold the same values (compared by
digest). The bytes are the same as render_push's, which tests check.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import json
import logging
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

import asyncpg  # type: ignore[import-untyped]
import orjson
from starlette.websockets import WebSocket, WebSocketState

from app.db.session import plain_dsn
from app.rules import shared_view
from app.service import (
    add_commit_listener,
    events_after,
    game_info,
    load_state,
    notices,
    remove_commit_listener,
    view_for,
)
from app.service.commands import NOTIFY_CHANNEL, SessionFactory, Viewer
from app.service.seats import SEATS_ENDED, forget_tokens, seats_ended

# The UI's renderer. Issue 16: the hub reaches up into the web layer here (tests/test_layers.py
# lists it as the one exception).
from app.web.render import PANELS as _PANELS
from app.web.render import render_panels as _render_panels
from app.web.render import render_push as _render_html
from app.web.render import version_marker as _version_marker


def _dumps(value: Any) -> bytes:
    """Digests of view parts: orjson is ~10x faster than json here; both give the same answers."""
    try:
        return orjson.dumps(value)
    except TypeError:  # e.g. a non-str key: slower, still deterministic
        return json.dumps(value, default=repr).encode()


log = logging.getLogger(__name__)

Audience = Literal["station", "gm", "display", "events"]
Format = Literal["html", "json"]
HEARTBEAT_SECONDS = 15.0
OUTBOX_SIZE = 64  # a phone this far behind is better served by reconnecting (and a full view)
CLOSE_RESTART = 1012  # htmx-ext-ws reconnects after 1006/1011/1012/1013, not after 1000/1008
CLOSE_TRY_AGAIN = 1013
CLOSE_SERVER_ERROR = 1011
LISTENER_NAME = "bridgecrew-listener"  # in pg_stat_activity, so operators can tell it apart
LISTEN_CHECK_SECONDS = 5.0  # how often the LISTEN connection is asked after


def render(audience: Audience, view: dict[str, Any], version: int, fmt: Format) -> str:
    if fmt == "html":
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
    last_view: dict[str, Any] | None = None  # what a JSON screen shows now
    shown: list[bytes] | None = None  # the panels an HTML screen shows now, in PANELS order
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
        # Each message is let go once sent: this frame waits here for the socket's whole life,
        # and a variable left holding its last message (a welcome is a whole screen, ~30 KB)
        # kept it alive as long (bench/load.py: ~29 KB per socket at connect).
        while self.welcome:
            await self.websocket.send_text(self.welcome.pop(0))
        while True:
            version, event, text = await self.outbox.get()
            # Events the welcome already covered are skipped.
            if not (event and version is not None and version <= self.events_from):
                await self.websocket.send_text(text)
            del text


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
    # The newest panels rendered for each HTML screen (audience, viewer, fmt): a cache only; what
    # each socket shows is its Connection.shown.
    screens: dict[tuple[Any, ...], list[Panel]] = field(default_factory=dict)


class Hub:
    def __init__(
        self,
        session_factory: SessionFactory,
        database_url: str,
        heartbeat_seconds: float = HEARTBEAT_SECONDS,
    ) -> None:
        self._session_factory = session_factory
        self._dsn = plain_dsn(database_url)
        self._heartbeat_seconds = heartbeat_seconds
        self._rooms: dict[uuid.UUID, Room] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self.listening = False
        self.rendered = 0  # panels rendered (not reused) since start: for benchmarks and tests

    # --- Lifecycle -------------------------------------------------------------------------------

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        tune_gc()
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
            view = view_for(state, connection.viewer)
            if _html_by_panel(connection):
                panels = self._panels(room, connection.key, view, {})
                connection.shown = [panel.data for panel in panels]
                connection.welcome = [_html_message(version, connection.shown)]
            else:
                connection.last_view = view
                connection.welcome = [render(connection.audience, view, version, connection.fmt)]
        if room.pushed < 0:  # the first socket here: later rounds start from its version
            room.pushed = version
        room.wanted = max(room.wanted, version)
        if room.wanted > room.pushed:
            # It joined between a commit and the hub hearing of it, and shows a version the
            # sockets already here do not: bring them up now, as the notice, when it comes, will
            # find that version wanted already and schedule nothing.
            self._schedule(room)

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
            room.screens.clear()
            return
        version, state = await load_state(self._session_factory, room.game_id)
        room.wanted = max(room.wanted, version)
        connections = list(room.connections)
        if version > room.pushed and any(c.audience == "events" for c in connections):
            await self._push_events(room, connections)
        by_key: dict[tuple[Any, ...], list[Connection]] = {}
        for connection in connections:
            if connection.audience != "events":
                by_key.setdefault(connection.key, []).append(connection)
        shared: dict[tuple[str, str], list[Panel]] = {}  # this round's panels, for other viewers
        # What every view shows, worked out once: the views share those parts, and so do the
        # digests of them (by identity) that tell whether a panel can be reused.
        common, digests = shared_view(state), Digests()
        for turn, (key, members) in enumerate(by_key.items()):
            if turn:
                # Let commands in flight take their next step between two screens: a transaction
                # waiting on this loop holds its game's lock and a pooled connection meanwhile.
                await asyncio.sleep(0)
            audience, viewer = members[0].audience, members[0].viewer
            view = view_for(state, viewer, common)  # one per viewer, shared by its sockets
            try:
                if _html_by_panel(members[0]):
                    self._offer_panels(room, key, view, shared, digests, members, version, resync)
                else:
                    self._offer_whole(audience, view, version, members, resync)
            except Exception:  # one broken panel must not freeze every other screen
                log.exception("rendering %s for game %s failed", key, room.game_id)
        for key in list(room.screens):
            if key not in by_key:
                del room.screens[key]
        room.pushed = max(room.pushed, version)

    def _offer_panels(
        self,
        room: Room,
        key: tuple[Any, ...],
        view: dict[str, Any],
        shared: dict[tuple[str, str], list[Panel]],
        digests: Digests,
        members: list[Connection],
        version: int,
        resync: bool,
    ) -> None:
        htmls = [panel.data for panel in self._panels(room, key, view, shared, digests)]
        texts: dict[tuple[int, ...], str] = {}  # sockets of one screen mostly need the same
        for connection in members:
            shown = connection.shown
            if resync or shown is None or len(shown) != len(htmls):
                changed = tuple(range(len(htmls)))
            else:  # only the panels that changed: most commands touch one or two of ten
                changed = tuple(
                    i
                    for i, (new, old) in enumerate(zip(htmls, shown, strict=True))
                    if new is not old and new != old
                )
            connection.shown = htmls
            if not changed:
                continue  # e.g. a GM-only change: this screen stays as it is
            text = texts.get(changed)
            if text is None:
                text = texts[changed] = _html_message(version, [htmls[i] for i in changed])
            connection.offer(version, text)

    def _offer_whole(
        self,
        audience: Audience,
        view: dict[str, Any],
        version: int,
        members: list[Connection],
        resync: bool,
    ) -> None:
        text: str | None = None
        for connection in members:
            if not resync and connection.last_view == view:
                continue
            if text is None:  # rendered once per viewer and version, however many sockets
                text = render(audience, view, version, connection.fmt)
            connection.last_view = view
            connection.offer(version, text)

    def _panels(
        self,
        room: Room,
        key: tuple[Any, ...],
        view: dict[str, Any],
        shared: dict[tuple[str, str], list[Panel]],
        digests: Digests | None = None,
    ) -> list[Panel]:
        """The screen's panels for this view: each one reused if what it read gives the same
        (from this screen's last render, or from another viewer's this round), else rendered
        afresh. Also remembers them for the next round."""
        audience = key[0]
        names = _PANELS[audience]
        previous = room.screens.get(key)
        if previous is not None and len(previous) != len(names):
            previous = None
        probe = _Probe(view, digests)
        panels: list[Panel] = []
        for index, name in enumerate(names):
            others = shared.setdefault((audience, name), [])
            hot = _hot.setdefault((audience, name), set())
            panel = previous[index] if previous is not None else None
            if panel is None or not panel.fits(probe, hot):
                panel = next((p for p in others if p.fits(probe)), None)
                if panel is None:
                    panel = _render_panel(audience, name, view, probe, hot)
                    self.rendered += 1
            if not any(p is panel for p in others):
                others.append(panel)
            panels.append(panel)
        room.screens[key] = panels
        return panels

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
                forget_tokens()  # seats may have ended while nobody listened
                self.resync_all()
                # asyncpg notices a dead server only when it talks to it: ask now and then.
                while not lost.is_set():
                    await connection.fetchval("SELECT 1", timeout=5)
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(lost.wait(), LISTEN_CHECK_SECONDS)
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
        if game == SEATS_ENDED:  # "seats:<game id>": who that game's tokens are has changed
            try:
                seats_ended(uuid.UUID(version))
            except ValueError:
                log.warning("ignoring odd notification %r", payload)
            return
        try:
            notice = notices.parse(payload)
        except ValueError:
            log.warning("ignoring odd notification %r", payload[:200])
            return
        game_id, number = notice.game_id, notice.version
        room = self._rooms.get(game_id)
        if room is None:
            return  # nobody here watches that game
        self._want(game_id, number)


# --- Garbage collection ------------------------------------------------------------------------

GC_THRESHOLD0 = 50_000


def tune_gc() -> None:
    """Make the cyclic collector's full passes rare. A push round allocates tens of thousands of
    short-lived objects (views, the reads of templates); with Python's default first threshold
    (700 allocations) many are caught alive mid-round and promoted, so the oldest generation is
    collected every second or two, and a full pass over a server holding hundreds of sockets
    stopped every screen for over 100 ms (bench/load.py, BENCH_GC_LOG). Most garbage here is
    freed by reference counting; young collections every 50 000 allocations still find cycles."""
    threshold0, threshold1, threshold2 = gc.get_threshold()
    if threshold0 < GC_THRESHOLD0:
        gc.set_threshold(GC_THRESHOLD0, threshold1, threshold2)


# --- Panels: rendered once, reused while what they read stays the same -------------------------
#
# While a panel renders, the view it sees is wrapped so that every read is noted as a path into
# the view with what kind of read it was: a value (a leaf), a dict's key set, a list's length, or
# the whole of a part (something walked it, e.g. tojson). A panel's signature is what those reads
# give on a view; if another view gives the same signature, the template would read the same
# values, take the same branches and write the same bytes (render_push is deterministic), so the
# panel is reused. Paths go down to single fields: a panel showing ships' names and positions is
# not rendered again when only a station's "ready" flag changed.

_MISSING = object()
_LEAF, _TYPE, _LEN, _KEYS, _WHOLE = range(5)
_SCALARS = (str, int, float, bool, type(None))
_SCALAR_TYPES = frozenset(_SCALARS)  # exactly these types, not subclasses
_interned: dict[Any, Any] = {}


def _intern(item: Any) -> Any:
    """One object per distinct path (and dependency): panels in every room share them."""
    found = _interned.get(item)
    if found is None:
        if len(_interned) > 200_000:  # paths with ids in them: bounded, whatever the games
            _interned.clear()
        _interned[item] = found = item
    return found


def _digest(value: Any) -> bytes:
    return hashlib.blake2b(_dumps(value), digest_size=16).digest()


class Digests:
    """Digests of parts of views, by the part itself: views of one state made together share
    parts (app.rules.shared_view), so each is digested once per round, not once per screen.
    Holds what it digested, so an id is never another object's; lives for one round, in which
    nobody changes a view."""

    __slots__ = ("_known",)

    def __init__(self) -> None:
        self._known: dict[int, tuple[Any, bytes]] = {}

    def __call__(self, node: Any) -> bytes:
        known = self._known.get(id(node))
        if known is not None and known[0] is node:
            return known[1]
        answer = _digest(node)
        self._known[id(node)] = (node, answer)
        return answer


GROUP_DEPTH = 2  # reads are grouped by the part of the view they are in, e.g. ("ships", 0)


class Panel:
    """One rendered panel and what it was made from: its reads and what they gave, grouped by
    the part of the view each read is in, with that part's digest. A part that is the same as
    then needs none of its reads checked: a command changes a part or two of a view, and a panel
    reads hundreds of fields. Kept as UTF-8, half the memory of a str with any character past
    Latin-1 (icons, dashes, arrows)."""

    __slots__ = ("data", "groups", "loose")

    def __init__(self, deps: tuple[tuple[Any, int], ...], probe: _Probe, html: str):
        parts: dict[Any, list[tuple[Any, int]]] = {}
        loose = []
        for dep in deps:  # in `deps` order (lately changed first), within each group too
            if len(dep[0]) >= GROUP_DEPTH:
                parts.setdefault(_intern(dep[0][:GROUP_DEPTH]), []).append(dep)
            else:
                loose.append(dep)
        self.loose = (tuple(loose), probe.sig(loose))
        self.groups = tuple(
            (part, probe.digest(part), tuple(members), probe.sig(members))
            for part, members in parts.items()
        )
        self.data = html.encode()

    @property
    def html(self) -> str:
        return self.data.decode()

    def fits(self, probe: _Probe, hot: set[Any] | None = None) -> bool:
        if not _same(probe, *self.loose, hot):
            return False
        digest = probe.digest
        for part, was, deps, sig in self.groups:
            if digest(part) != was and not _same(probe, deps, sig, hot):
                return False
        return True


def _same(probe: _Probe, deps: tuple[Any, ...], sig: tuple[Any, ...], hot: set[Any] | None) -> bool:
    read = probe.read
    for dep, expected in zip(deps, sig, strict=True):
        if read(dep) != expected:
            if hot is not None and len(hot) < 64:
                hot.add(dep)  # read first next time: a panel that does not fit fails fast
            return False
    return True


class _Probe:
    """Answers reads on one view, each read worked out at most once (panels of one screen, and
    the screens of one round, share many). Reads are the interned (path, kind) pairs of `_Reads`,
    so they are remembered by identity: hashing a path tuple costs more than walking it."""

    __slots__ = ("_answers", "_digests", "digests", "view")

    def __init__(self, view: dict[str, Any], digests: Digests | None = None) -> None:
        self.view = view
        self.digests = Digests() if digests is None else digests
        self._answers: dict[int, tuple[Any, Any]] = {}
        self._digests: dict[int, tuple[Any, Any]] = {}

    def digest(self, path: tuple[Any, ...]) -> Any:
        """What the part of the view at `path` is, in a few bytes (itself if a plain value)."""
        known = self._digests.get(id(path))
        if known is not None and known[0] is path:
            return known[1]
        answer = self._read(path, _LEAF)
        self._digests[id(path)] = (path, answer)
        return answer

    def know(self, dep: tuple[tuple[Any, ...], int], answer: Any) -> None:
        """What a read gives on this view, as a render of it found."""
        self._answers[id(dep)] = (dep, answer)

    def read(self, dep: tuple[tuple[Any, ...], int]) -> Any:
        known = self._answers.get(id(dep))
        if known is not None and known[0] is dep:  # (the very same object, not a reused id)
            return known[1]
        answer = self._read(dep[0], dep[1])
        self._answers[id(dep)] = (dep, answer)
        return answer

    def _read(self, path: tuple[Any, ...], kind: int) -> Any:
        node: Any = self.view
        for key in path:
            try:
                if isinstance(node, dict) or (isinstance(node, list) and type(key) is int):
                    node = node[key]
                else:
                    return _MISSING
            except (KeyError, IndexError):
                return _MISSING
        if kind == _LEAF:
            return node if isinstance(node, _SCALARS) else self.digests(node)
        if kind == _TYPE:
            return type(node)
        if kind == _LEN:
            return len(node) if isinstance(node, list) else _MISSING
        if kind == _KEYS:
            return tuple(node) if isinstance(node, dict) else _MISSING
        return self.digests(node)  # _WHOLE

    def sig(self, deps: Iterable[tuple[Any, int]]) -> tuple[Any, ...]:
        return tuple(self.read(dep) for dep in deps)


class _Reads:
    """The reads of one render, each with what it gave (as `_Probe._read` would answer it: the
    value is at hand while the template reads it, so the new panel's signature needs no second
    walk down the view)."""

    __slots__ = ("deps", "digests")

    def __init__(self, digests: Digests | None = None) -> None:
        self.deps: dict[tuple[Any, int], Any] = {}
        self.digests = Digests() if digests is None else digests

    def ordered(self, hot: set[Any], probe: _Probe | None = None) -> tuple[tuple[Any, int], ...]:
        """The reads, those that changed lately first, each path and read one shared object.
        The probe (of the view rendered) is told what each gave."""
        deps = []
        for (path, kind), answer in self.deps.items():
            dep = _intern((_intern(path), kind))
            if probe is not None:
                probe.know(dep, answer)
            deps.append(dep)
        deps.sort(key=lambda dep: dep not in hot)
        return tuple(deps)

    def wrap(self, value: Any, path: tuple[Any, ...]) -> Any:
        kind = type(value)
        if kind is dict:
            self.deps[(path, _TYPE)] = dict
            return _DictReads(value, self, path)
        if kind is list and all(type(item) is dict for item in value):
            # A list of records: its length, then each record's own reads. Anything else in a
            # list (strings, numbers) is read as one value, since C code can read it unseen.
            self.deps[(path, _LEN)] = len(value)
            return _ListReads(_DictReads(item, self, (*path, i)) for i, item in enumerate(value))
        self.deps[(path, _LEAF)] = value if isinstance(value, _SCALARS) else self.digests(value)
        return value

    def absent(self, path: tuple[Any, ...]) -> None:
        self.deps[(path, _LEAF)] = _MISSING

    def keys(self, path: tuple[Any, ...], node: dict[Any, Any]) -> None:
        if (path, _KEYS) not in self.deps:
            self.deps[(path, _KEYS)] = tuple(node)

    def whole(self, path: tuple[Any, ...], node: dict[Any, Any]) -> None:
        if (path, _WHOLE) not in self.deps:
            self.deps[(path, _WHOLE)] = self.digests(node)


class _ListReads(list):  # type: ignore[type-arg]
    """A list of records whose items are already wrapped: C code reading it directly (json,
    join, sorted) still goes through the items' own reads."""

    __slots__ = ()


class _DictReads(dict):  # type: ignore[type-arg]
    """A dict of the view as a template sees it, noting each read. Walking it (keys, len, in)
    reads its key set; items()/values() also read each value; ==, repr and pickling read all."""

    __slots__ = ("_bc_kids", "_bc_path", "_bc_raw", "_bc_reads")

    def __init__(self, data: dict[str, Any], reads: _Reads, path: tuple[Any, ...]) -> None:
        super().__init__(data)
        self._bc_reads = reads
        self._bc_path = path
        self._bc_raw = data  # the view's own dict, as a probe finds it
        self._bc_kids: dict[Any, Any] = {}  # templates read the same fields again and again

    def __getitem__(self, key: Any) -> Any:
        kids = self._bc_kids
        if key in kids:
            return kids[key]
        path = (*self._bc_path, key)
        try:
            value = dict.__getitem__(self, key)
        except KeyError:
            self._bc_reads.absent(path)  # as a template may test for
            raise
        if type(value) in _SCALAR_TYPES:  # most reads: a leaf, noted here without a call
            self._bc_reads.deps[(path, _LEAF)] = kids[key] = value
            return value
        kids[key] = wrapped = self._bc_reads.wrap(value, path)
        return wrapped

    def get(self, key: Any, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key: object) -> bool:
        self._walk()
        return super().__contains__(key)

    def _walk(self) -> None:
        self._bc_reads.keys(self._bc_path, self._bc_raw)

    def __iter__(self) -> Any:
        self._walk()
        return super().__iter__()

    def __len__(self) -> int:
        self._walk()
        return super().__len__()

    def keys(self) -> Any:
        self._walk()
        return super().keys()

    def items(self) -> Any:
        self._walk()
        return [(key, self[key]) for key in super().keys()]  # noqa: SIM118 - dict's, not ours

    def values(self) -> Any:
        self._walk()
        return [self[key] for key in super().keys()]  # noqa: SIM118 - dict's, not ours

    def _whole(self) -> None:
        self._bc_reads.whole(self._bc_path, self._bc_raw)

    def __eq__(self, other: object) -> bool:
        self._whole()
        return dict(super().items()) == other

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None

    def copy(self) -> dict[str, Any]:
        self._whole()
        return dict(super().items())

    def __repr__(self) -> str:
        self._whole()
        return repr(dict(super().items()))

    def __reduce__(self) -> Any:
        self._whole()
        return (dict, (dict(super().items()),))


def _render_panel(
    audience: str, name: str, view: dict[str, Any], probe: _Probe, hot: set[Any]
) -> Panel:
    reads = _Reads(probe.digests)
    html = str(_render_panels(audience, _DictReads(view, reads, ()), (name,)))
    return Panel(reads.ordered(hot, probe), probe, html)


_hot: dict[tuple[str, str], set[Any]] = {}  # per panel: reads that lately told a change apart


def _html_message(version: int, panels: list[bytes]) -> str:
    """A push: the version marker, then the panels (out-of-band swaps, each by its id)."""
    return _version_marker(version) + b"".join(panels).decode()


def _html_by_panel(connection: Connection) -> bool:
    return connection.fmt == "html" and connection.audience in _PANELS


def event_message(event: dict[str, Any]) -> str:
    """One public event for the JSON event stream, with where it sits in the game's history."""
    body = {k: v for k, v in event.items() if k not in ("version", "seq")}
    return json.dumps(
        {"type": "event", "version": event["version"], "seq": event["seq"], "event": body}
    )


def heartbeat(fmt: Format) -> str:
    # An HTML comment: htmx-ext-ws swaps nothing for it.
    return '{"type": "heartbeat"}' if fmt == "json" else "<!-- heartbeat -->"
