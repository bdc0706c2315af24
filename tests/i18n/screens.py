"""Every screen of real games, rendered in one language, and the words a person reads on them.

The games are played with real commands (tests/web/games.py and the moments the screen tests
use): downtime, orders, allocation, after a hit, a zone map, torpedoes in flight, the seats and
npc modules, a beaten side, a combat over. Each renders for the projector (its game set to the
language), the GM, and every seated phone.
"""

from __future__ import annotations

import functools
import html
import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from babel.messages.pofile import read_po

from app.i18n import LANGUAGES, catalogue_path, requested
from app.rules import apply, display_view, gm_view, station_view
from app.rules import commands as c
from app.rules.content import MODULES
from app.web.mapmarks import said_name, short_name
from app.web.render import render_page, render_template
from tests.web import games
from tests.web.test_crew_screens import crewed
from tests.web.test_render import PAGE
from tests.web.test_weapons_screens import after_turn_one

State = dict[str, Any]


def _then(build: Callable[[], State], *commands: c.Command) -> Callable[[], State]:
    def built() -> State:
        state = build()
        for command in commands:
            state, _ = apply(state, command)
        return state

    return built


MOMENTS: dict[str, Callable[[], State]] = {
    **games.ALL,
    "zones": _then(
        lambda: games.seated("nebula-ambush"),
        c.PlaceInZone(ship="jackal-3", zone="dense-nebula"),
        c.StartTurn(now=games.NOW),
    ),
    "torpedoes": after_turn_one,
    "seats and npc": lambda: crewed(("seats", "npc")),
    "a side beaten": _then(games.orders_phase, c.DestroyShip(ship="rustjaw")),
    "combat over": _then(games.orders_phase, c.DestroyShip(ship="rustjaw"), c.EndCombat()),
}


@contextmanager
def speaking_as(locale: str) -> Iterator[None]:
    """As a request from a device in this language (app.i18n.LanguageMiddleware sets it)."""
    token = requested.set(locale)
    try:
        yield
    finally:
        requested.reset(token)


def seats(state: State) -> list[str]:
    return [
        station["crew"]["seat"]
        for ship in state["ships"].values()
        for station in ship["stations"].values()
        if isinstance(station.get("crew"), dict) and station["crew"].get("seat")
    ]


def screens(locale: str) -> Iterator[tuple[str, str, Any]]:
    """(name, html, the view it shows) for every screen of every moment, in `locale`."""
    for moment, build in MOMENTS.items():
        state, _ = apply(build(), c.SetDisplayLanguage(language=locale))
        with speaking_as(locale):
            view = display_view(state)
            yield f"{moment}: projector", render_page("display", view, **PAGE), view
            view = gm_view(state)
            yield f"{moment}: GM", render_page("gm", view, **PAGE), view
            for seat in seats(state):
                view = station_view(state, seat)
                yield f"{moment}: phone {seat}", render_page("station", view, **PAGE), view
    with speaking_as(locale):
        yield "outage", render_template("unavailable.html", retry=3, csrf=""), {}


# Attributes people read (or hear from a screen reader) besides the text.
_READ_ATTRIBUTES = re.compile(
    r'\b(?:aria-label|title|placeholder|alt|data-confirm|hx-confirm)="([^"]*)"'
)
_WORDS_BLOCK = re.compile(r'<script type="application/json" id="bc-words">(.*?)</script>', re.S)


def readable(page: str) -> str:
    """What a person reads on a page: its text, the attributes above, and the sentences the
    page gives its script; no markup, no other scripts or styles."""
    blocks = [json.loads(html.unescape(m)) for m in _WORDS_BLOCK.findall(page)]
    # The script's sentences, without what it fills in ({count}, {total}).
    said = [re.sub(r"\{[a-z_]+\}", " ", " ".join(b.values())) for b in blocks]
    page = _WORDS_BLOCK.sub(" ", page)
    attributes = _READ_ATTRIBUTES.findall(page)
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    page = re.sub(r"<!--.*?-->", " ", page, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", page)
    text = html.unescape(" ".join([text, *attributes, *said]))
    return re.sub(r"https?://\S+", " ", text)  # a link is no word


# Not words of any language: the join link, the switcher's language names (each in its own
# language, on purpose), the modules' names (identifiers the GM switches), a file format.
NOT_WORDS = {*(str(v) for v in PAGE.values()), *LANGUAGES.values(), *MODULES, "JSON"}


def data_strings(value: Any) -> set[str]:
    """Every string in a view: names people chose, ids, and the engine's own sentences (which
    the engine's message ids put into words, apart from these templates)."""
    found: set[str] = set(NOT_WORDS)
    if isinstance(value, str):
        found.add(value)
        # Templates show some of the engine's sentences in part (a roll's head, a pass).
        found.update(part.strip() for part in value.split(":"))
        found.add(value.replace(" passed.", ""))
    elif isinstance(value, dict):
        if "side" in value and isinstance(value.get("name"), str):
            found.add(value["name"][:3])  # a ship's mark on the pilot's grid
            # its name shortened on a map and in the projector's reveal (app/web/mapmarks.py)
            found.update(short_name(value["name"], n) for n in (10, 12, 14))
            found.add(said_name(value["name"], 20))
        for key, item in value.items():
            found |= data_strings(key) | data_strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            found |= data_strings(item)
    return found


@functools.cache
def catalogue_sources() -> frozenset[str]:
    """The catalogue's English sources: data equal to one of them must show translated."""
    with catalogue_path("de", "messages").open("rb") as f:
        catalogue = read_po(f)
    found: set[str] = set()
    for message in catalogue:
        found.update(message.id if isinstance(message.id, tuple | list) else (message.id,))
    return frozenset(found)


def without(text: str, strings: set[str]) -> str:
    """The text with every given string taken out, the longest first."""
    for string in sorted((s for s in strings if len(s) >= 2), key=len, reverse=True):
        text = text.replace(string, " ")
    return text
