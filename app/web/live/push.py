"""What each socket is sent: on joining, its whole screen; after a change, what changed of it.

An HTML screen is its panels (app/web/panels.py). A panel is a function of its inputs, so it is
pushed when they changed, rendered only if no screen here has those inputs rendered already (two
phones of one ship share most panels), and never re-rendered for a change elsewhere in the view.
A JSON screen is its whole view, sent when the view changed.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from app.rules import shared_view
from app.service import events_after, game_info, load_state, view_for
from app.service.commands import SessionFactory
from app.web.panels import PANELS, Inputs
from app.web.render import render_panels, render_push, screen_locale, version_marker

from .connections import Audience, Connection, Format, Room, event_message

log = logging.getLogger(__name__)
Cache = dict[tuple[str, str, int, str], bytes]


def render(
    audience: Audience, view: dict[str, Any], version: int, fmt: Format, locale: str = "en"
) -> str:
    """A whole screen in one message."""
    if fmt == "html":
        return str(render_push(audience, view, locale=screen_locale(audience, view, locale)))
    return json.dumps({"type": "view", "audience": audience, "version": version, "view": view})


class Screen:
    """One viewer's panels for one view: each one's key, and its HTML when asked."""

    def __init__(
        self,
        audience: str,
        view: dict[str, Any],
        parts: Inputs | None = None,
        locale: str = "en",
    ) -> None:
        self.parts = Inputs() if parts is None else parts
        self.audience = audience
        self.view = view
        self.locale = locale
        self.names = tuple(PANELS[audience])
        self.keys = self.parts.keys(audience, view)

    def html(self, index: int, cache: Cache) -> bytes:
        """A panel's HTML (kept as UTF-8: half the memory of a str with icons and arrows),
        rendered from its inputs alone, and only if no screen of this round has it already."""
        name = self.names[index]
        key = (self.audience, name, self.keys[index], self.locale)
        found = cache.get(key)
        if found is None:
            inputs = self.parts.project(self.audience, name, self.view)
            rendered = render_panels(self.audience, inputs, (name,), self.locale)
            found = cache[key] = rendered.encode()
        return found

    def message(self, version: int, indexes: tuple[int, ...], cache: Cache) -> str:
        """A push: the version marker, then the panels (out-of-band swaps, each by its id)."""
        panels = b"".join(self.html(i, cache) for i in indexes)
        return version_marker(version) + panels.decode()


def _own_locale(connection: Connection) -> str | None:
    """A device's own language; None for the projector, which follows its game's setting."""
    return None if connection.audience == "display" else connection.locale


def by_panel(connection: Connection) -> bool:
    return connection.fmt == "html" and connection.audience in PANELS


async def welcome(
    factory: SessionFactory, room: Room, connection: Connection, after: int | None
) -> int:
    """Fill the socket's welcome; answers the version it shows."""
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
    version, state = room.joined
    view = view_for(state, connection.viewer)
    locale = screen_locale(connection.audience, view, _own_locale(connection))
    if by_panel(connection):
        screen = Screen(connection.audience, view, locale=locale)
        everything = tuple(range(len(screen.names)))
        connection.welcome = [screen.message(version, everything, room.panels)]
        connection.shown = screen.keys
        connection.shown_locale = locale
    else:
        connection.last_view = view
        connection.welcome = [render(connection.audience, view, version, connection.fmt, locale)]
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
    common, parts = shared_view(state), Inputs(room.reads)  # what every view shows, once
    room.reads = parts.reads
    rendered: Cache = {}
    for turn, members in enumerate(by_key.values()):
        if turn:
            # Let commands in flight take their next step between two screens: a transaction
            # waiting on this loop holds its game's lock and a pooled connection meanwhile.
            await asyncio.sleep(0)
        first = members[0]
        view = view_for(state, first.viewer, common)  # one per viewer, shared by its sockets
        locale = screen_locale(first.audience, view, _own_locale(first))
        try:
            if by_panel(first):
                screen = Screen(first.audience, view, parts, locale)
                _offer_panels(screen, members, version, resync, rendered)
            else:
                _offer_whole(first.audience, view, version, members, resync, locale)
        except Exception:  # one broken panel must not freeze every other screen
            log.exception("rendering %s for game %s failed", first.key, room.game_id)
    room.pushed = max(room.pushed, version)


def _offer_panels(
    screen: Screen, members: list[Connection], version: int, resync: bool, rendered: Cache
) -> None:
    texts: dict[tuple[int, ...], str] = {}  # sockets of one screen mostly need the same
    for connection in members:
        shown = connection.shown
        # A projector whose game changed language is shown everything again.
        if resync or shown is None or connection.shown_locale != screen.locale:
            changed = tuple(range(len(screen.keys)))
        else:  # only the panels whose inputs changed: most commands touch one or two of ten
            changed = tuple(i for i, key in enumerate(screen.keys) if key != shown[i])
        if changed:  # else e.g. a GM-only change: this screen stays as it is
            text = texts.get(changed)
            if text is None:  # (a panel that fails to render leaves `shown` for another try)
                text = texts[changed] = screen.message(version, changed, rendered)
            connection.offer(version, text)
        connection.shown = screen.keys
        connection.shown_locale = screen.locale


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
            text = render(audience, view, version, connection.fmt, locale)
        connection.last_view = view
        connection.offer(version, text)
