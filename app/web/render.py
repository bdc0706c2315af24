"""Rendering screens from engine views: the full page, a few panels, or the websocket push.

Every panel is one named block; the same block serves all three. Panels (app/web/panels.py) may
use only their inputs from `view`, and `oob`: the hub renders them with no request at hand.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from jinja2_fragments import render_blocks

from app.i18n import rendering, requested

from .panels import PANELS
from .templating import environment_for

TEMPLATES: dict[str, str] = {"station": "station.html", "gm": "gm.html", "display": "display.html"}


def screen_locale(audience: str, view: dict[str, Any], locale: str | None = None) -> str:
    """The language a screen is rendered in: the one given, else the projector's game setting
    for the projector, else the language of the request being served."""
    if locale is not None:
        return locale
    if audience == "display":
        return str(view["game"].get("language") or requested.get())
    return requested.get()


def render_push(
    audience: str, view: dict[str, Any], version: int | None = None, locale: str | None = None
) -> str:
    """Every panel of one audience's screen as out-of-band swaps (`hx-swap-oob="true"`), after
    the version marker when the version is given (htmx answers and refreshes give it).

    Deterministic: the same view gives the same bytes, which lets browsers skip panels that did
    not change. The websocket hub sends the same panels, but only those that changed.
    """
    panels = render_panels(audience, view, PANELS[audience], screen_locale(audience, view, locale))
    return panels if version is None else version_marker(version) + panels


def version_marker(version: int) -> str:
    """The first element of every push and panel answer: the game version its panels show.
    static/js/app.js skips the panels of a message older than what the screen already shows."""
    return f'<div id="bc-version" hx-swap-oob="true" data-version="{int(version)}" hidden></div>'


def render_panels(
    audience: str, view: dict[str, Any], names: Iterable[str], locale: str | None = None
) -> str:
    """Some panels as out-of-band swaps: what an htmx action returns after it changed the game."""
    locale = locale or requested.get()
    with rendering(locale) as words:
        return render_blocks(
            environment_for(locale), TEMPLATES[audience], list(names), view=view, oob=True, **words
        )


def render_page(audience: str, view: dict[str, Any], **page: Any) -> str:
    """The whole screen. `page` holds what only a full page needs (game id, CSRF token, QR)."""
    locale = screen_locale(audience, view)
    template = environment_for(locale).get_template(TEMPLATES[audience])
    with rendering(locale) as words:
        return template.render(
            view=view, oob=False, server_now=round(time.time(), 3), **page, **words
        )


def render_template(name: str, **context: Any) -> str:
    """A screen that is not built from a game view (joining, the GM's lobby)."""
    context.setdefault("server_now", round(time.time(), 3))
    locale = requested.get()
    with rendering(locale) as words:
        return environment_for(locale).get_template(name).render(**context, **words)


def render_toast(
    message: str | Mapping[str, Any], code: str = "", kind: Literal["error", "ok"] = "error"
) -> str:
    """A message for the player as an out-of-band swap of #toast."""
    locale = requested.get()
    with rendering(locale) as words:
        template = environment_for(locale).get_template("_toast.html")
        return template.render(message=message, code=code, kind=kind, **words)
