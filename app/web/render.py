"""Rendering screens from engine views: the full page, a few panels, or the websocket push.

Every panel is one named block of its screen's template; the same block serves all three. A
panel's inputs are paths into the view: `game` is the whole of view["game"], `me.order` one field
of it, `ships.*.x` the field x of every ship (`*` walks a list, or every value of a dict), and
`{a,b}` stands for either name. The live hub renders a panel from its inputs alone (`Inputs`): a
field left out is there, but as a value that fails the render loudly when read. So a template
that reads something its panel does not declare fails the tests (tests/web/test_panel_inputs.py)
instead of showing a stale panel, and a panel need be rendered again exactly when its inputs
change. Panels may use only their inputs from `view`, and `oob`: the hub renders them with no
request at hand.
"""

from __future__ import annotations

import itertools
import json
import secrets
import time
from collections.abc import Iterable, Mapping
from typing import Any, Literal

import orjson
from jinja2 import StrictUndefined
from jinja2_fragments import render_blocks

from app.i18n import rendering, requested

from .templating import environment_for

# Parts several panels share. A station's `manned` and `ready` are left out of STATION: they flip
# with every order, and only the panels listing who is ready read them.
SHIP = (
    "ships.*.{id,name,class_name,crew,side,x,y,zone,zone_name,out,defence,destroyed,hull,shields,"
    "weapons}"
)
STATION = (
    "ships.*.stations.*.{id,role,label,boxes,damage,health,red,hand_limit,operational,crew,"
    "character}"
)
NAMES = "ships.*.{id,name}"
# Torpedoes in flight and grapples (module weapons) are drawn on the map.
MAP = (
    "game.map",
    "distances",
    "ships.*.{id,name,side,x,y,zone,destroyed}",
    "weapons.{grapples,torpedoes}",
)
# G-END-1..3: who can no longer fight, the report once the combat is over, the GM's buttons.
COMBAT_END = (
    "game.{phase,combat}",
    "combat_can_end",
    "viewer.role",
    "settings.orders_seconds",
    "ships.*.{id,name,destroyed,out}",
)

# Block names in page order, each with its inputs. Each block's root element carries the id the
# browser swaps.
PANELS: dict[str, dict[str, tuple[str, ...]]] = {
    "station": {
        "status": ("game", "me.{label,ship_name}"),
        "combat_end": COMBAT_END,
        "messages": ("messages",),
        "me": (
            "me.{ship,station,role,label,name,character,hand_limit,health,boxes,down}",
            "me.weapons",
            "ships.*.id",
            "ships.*.stations.*.{id,boxes,damage,health,red}",
        ),
        "position": (
            "game.{modules,phase}",
            "me.{ship,station,label,character,moving_to}",
            "ships.*.id",
            "ships.*.stations.*.{id,crew,hand_limit,label,manned,role}",
        ),
        "allocation": (
            "me.{allocation,ship}",
            "ships.*.id",
            "ships.*.stations.*.{id,label,health}",
        ),
        "hand": ("game.{turn,phase}", "me.{hand,hand_limit}", "me.order.cards"),
        "order": (
            "game.{turn,phase,map,modules}",
            "distances",
            "me.{actions,down,order,role,ship,hand,operational,out_of_reach_now,station,weapons}",
            "me.default_weapons",
            "ships.*.{id,name,class_name,crew,side,x,y,zone,zone_name,moves,defence,destroyed}",
            "ships.*.{shields,weapons}",
            "ships.*.stations.*.{id,role,label,boxes,damage,health,operational,manned}",
            "weapons.torpedoes",
        ),
        "crew": ("game.phase", "me.ship", NAMES, "ships.*.stations.*.{label,role,manned,ready}"),
        "reveal": ("me.{ship,station}", "revealed"),
        "ship_status": (
            "game.map",
            "me.ship",
            "distances",
            SHIP,
            STATION,
            "weapons.{grapples,torpedoes}",
        ),
        "log": ("log",),
    },
    "gm": {
        "turn": ("can_undo", "game", "settings", NAMES, "ships.*.stations.*.{id,label}"),
        "combat_end": COMBAT_END,
        "orders": (
            "game.{phase,map}",
            "orders",
            SHIP,
            STATION,
            "ships.*.stations.*.{manned,ready}",
        ),
        "allocation": ("allocation", NAMES, "ships.*.stations.*.{id,label}"),
        "ships": ("game.map", "hands", SHIP, STATION, "weapons.on"),
        "npc": (
            "game.{phase,map,modules}",
            "npc",
            "distances",
            SHIP,
            STATION,
            "weapons.on",
        ),
        "modifiers": ("modifiers", NAMES, "ships.*.stations.*.{id,label}"),
        "crew": ("characters",),
        "messages": ("messages", NAMES, "ships.*.stations.*.{id,label,crew}"),
        "map": (*MAP, "settings.{zone_move_one,zone_move_two,cover_bonus}"),  # _gm_zone_rules
        "reveal": ("revealed",),
        "cues": ("cues",),  # module cues
        "log": ("log",),
    },
    "display": {
        "alert": ("game.red_alert",),
        "sound": ("game.sound",),
        "combat_end": COMBAT_END,
        "timer": ("game.{scenario,turn,phase,phase_label,deadline,paused}",),
        "ship_status": (SHIP, STATION),
        "map": MAP,
        "ready": (
            "game.phase",
            "ships.*.{destroyed,name,side}",
            "ships.*.stations.*.{label,role,manned,operational,ready}",
        ),
        "reveal": ("revealed",),
        "log": ("log",),
        "messages": ("messages",),
    },
}

Tree = dict[str, "Tree | None"]  # None: the whole value
_TREES: dict[Any, Tree] = {}


def _expand(path: str) -> list[list[str]]:
    """`a.{b,c}.d` -> [[a, b, d], [a, c, d]]."""
    choices = [part.strip("{}").split(",") for part in path.split(".")]
    return [list(steps) for steps in itertools.product(*choices)]


def _shared(tree: Tree) -> Tree:
    """One object for equal trees, so that panels declaring the same part share its projection."""
    for key, child in tree.items():
        if child is not None:
            tree[key] = _shared(child)
    signature = tuple(sorted((key, id(child)) for key, child in tree.items()))
    return _TREES.setdefault(signature, tree)


def _tree(paths: tuple[str, ...]) -> Tree:
    tree: Tree = {}
    for path in paths:
        for steps in _expand(path):
            node = tree
            for step in steps[:-1]:
                child = node.setdefault(step, {})
                if child is None:  # a whole value already: a field of it adds nothing
                    break
                node = child
            else:
                node[steps[-1]] = None
    return _shared(tree)


TREES = {
    (audience, name): _tree(paths)
    for audience, panels in PANELS.items()
    for name, paths in panels.items()
}


class _Hidden(dict[Any, StrictUndefined]):
    """The stand-in for each hidden field, by its key: made once, then a plain lookup."""

    def __missing__(self, key: Any) -> StrictUndefined:
        hint = f"{str(key)!r} is not an input of this panel: add it in app/web/render.py"
        found = self[key] = StrictUndefined(hint=hint)
        return found


_HIDDEN = _Hidden()


def _project(node: Any, tree: Tree | None, read: bool = False) -> Any:
    """`node` as a panel with inputs `tree` sees it: every field outside them hidden. With
    `read`, what the panel reads of it, to digest: the inputs alone, and the keys of each dict
    (hidden ones too: a template may test them) under "\x00". Equal reads, equal projections;
    and reading walks only the inputs, where projecting walks every field."""
    if tree is None:
        return node
    if type(node) is dict:
        if "*" in tree:
            every = tree["*"]
            return {key: _project(value, every, read) for key, value in node.items()}
        if read:
            found = {k: _project(node[k], child, True) for k, child in tree.items() if k in node}
            found["\x00"] = list(node)
            return found
        return {
            key: _project(value, tree[key]) if key in tree else _HIDDEN[key]
            for key, value in node.items()
        }
    if type(node) is list and "*" in tree:
        every = tree["*"]
        return [_project(item, every, read) for item in node]
    return node  # a plain value (e.g. None) where the path would go on: the value is the input


def _digest(value: Any) -> int:
    """The value's JSON (views are plain JSON data), hashed by Python's own hash of bytes: SipHash
    under a key drawn afresh by each process, 64 bits, cheaper than a cryptographic digest. A
    digest never leaves the process that made it (a socket's panels are pushed by the process
    holding the socket)."""
    return hash(orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS))


Reads = dict[tuple[int, int], int]  # (digest of a part, id of a tree) -> what it reads


class Inputs:
    """Panels' inputs from the views of one moment. Views made together share parts
    (app.rules.shared_view), so each part is digested (and projected, if a panel is rendered)
    once, by identity, for every view and panel declaring it; the part is held meanwhile, so its
    id is never another's. What each panel reads of a part is remembered by the part's content
    for the next moment's Inputs (`reads`): most parts are as they were after a command, and a
    part's JSON says all of it, views being plain JSON data (tests/web/test_panel_inputs.py)."""

    __slots__ = ("_before", "_projections", "_wholes", "reads")

    def __init__(self, before: Reads | None = None) -> None:
        self._before = {} if before is None else before
        self.reads: Reads = {}
        self._wholes: dict[int, tuple[Any, int]] = {}
        self._projections: dict[tuple[int, int], tuple[Any, Any]] = {}

    def _whole(self, node: Any) -> int:
        known = self._wholes.get(id(node))
        if known is None or known[0] is not node:
            known = self._wholes[id(node)] = (node, _digest(node))
        return known[1]

    def keys(self, audience: str, view: dict[str, Any]) -> list[int]:
        """A digest of each panel's inputs, in PANELS order: equal keys, equal inputs, and so
        the same HTML."""
        shape = _digest(list(view))  # hidden keys are keys too
        keys = []
        for tree in (TREES[(audience, name)] for name in PANELS[audience]):
            parts = [shape]
            for key, child in tree.items():
                if key in view:
                    node = view[key]
                    memo = (self._whole(node), id(child))
                    part = self.reads.get(memo)
                    if part is None:
                        part = self._before.get(memo)
                        if part is None:
                            part = _digest(_project(node, child, read=True))
                        self.reads[memo] = part
                    parts.append(part)
            keys.append(hash(tuple(parts)))
        return keys

    def project(self, audience: str, name: str, view: dict[str, Any]) -> dict[str, Any]:
        """The view as the panel may see it: every field but its inputs hidden."""
        tree = TREES[(audience, name)]
        projected: dict[str, Any] = {}
        for key, node in view.items():
            if key not in tree:
                projected[key] = _HIDDEN[key]
                continue
            known = self._projections.get((id(node), id(tree[key])))
            if known is None or known[0] is not node:
                known = (node, _project(node, tree[key]))
                self._projections[(id(node), id(tree[key]))] = known
            projected[key] = known[1]
        return projected


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
    locale = screen_locale(audience, view, locale)
    panels = render_panels(audience, view, PANELS[audience], locale)
    return panels if version is None else version_marker(version, locale) + panels


# This process's name for the screens it renders (its templates and words): see `shown_as`.
RENDERER = secrets.token_hex(6)


def shown_as(version: int, locale: str) -> str:
    """What a screen whose every panel shows `version` in `locale`, as this process renders it,
    tells a socket it opens (static/js/app.js): a screen that shows the game as it stands needs
    nothing more when its socket comes back (a reconnect after the venue's Wi-Fi dropped, or the
    socket a page opens). Another process's screen (a restart, a new release) is shown whole."""
    return f"{RENDERER}-{int(version)}-{locale}"


def version_marker(version: int, locale: str) -> str:
    """The first element of every push and panel answer: the game version its panels show.
    static/js/app.js skips the panels of a message older than what the screen already shows, and
    a socket it opens again says what the screen shows (`data-shown`, see `shown_as`)."""
    return (
        f'<div id="bc-version" hx-swap-oob="true" data-version="{int(version)}"'
        f' data-shown="{shown_as(version, locale)}" hidden></div>'
    )


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
    if "version" in page:
        page["shown"] = shown_as(page["version"], locale)
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


# Panels' HTML by (audience, panel, inputs key, language), shared by the screens of one push.
PanelCache = dict[tuple[str, str, int, str], bytes]


def screen_message(
    audience: str, view: dict[str, Any], version: int, fmt: str, locale: str = "en"
) -> str:
    """A whole screen in one websocket message: its panels (htmx), or its view as JSON."""
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

    def html(self, index: int, cache: PanelCache) -> bytes:
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

    def message(self, version: int, indexes: tuple[int, ...], cache: PanelCache) -> str:
        """A push: the version marker, then the panels (out-of-band swaps, each by its id)."""
        panels = b"".join(self.html(i, cache) for i in indexes)
        return version_marker(version, self.locale) + panels.decode()
