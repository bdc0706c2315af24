"""Rendering screens from engine views: the full page, a few panels, or the websocket push.

A screen is made of fragments, each an element with an id of its own that the browser replaces
(htmx's out-of-band swap) when it comes:

- a **panel**: one named block of its screen's template, declared in PANELS with the parts of the
  view it reads (its inputs). `game` is the whole of view["game"], `me.order` one field of it,
  `ships.*.x` the field x of every ship (`*` walks a list, or every value of a dict), and `{a,b}`
  stands for either name;
- an **entry** of a panel's list (`Items`): one ship, one ship's ready marks, one log line, drawn
  by the block `<panel>_item` with the entry as `item`. An entry reads its own fields, its slice
  of parts keyed by entries (`view.hands[item.id]`), and its panel's inputs. When only entries
  changed, only they are sent; when the panel's own inputs changed (which include the list's
  entries' keys), the panel is sent whole. A `stream` is a list that only ever grows at its end
  (the log): new entries are inserted into the panel, never the panel redrawn for them.

A fragment is rendered from its inputs alone (`Inputs`): a field left out is there, but as a
value that fails the render loudly when read. So a template that reads something it does not
declare fails the tests (tests/web/test_panel_inputs.py) instead of showing a stale fragment,
and a fragment need be rendered again exactly when its inputs change. Fragments may use only
their inputs from `view`, `item`, `oob` and `alone`: the hub renders them with no request at
hand.

What changed is found from the top down (`Screen.changes`): the parts of the view whose JSON
differs from what the screen was last brought to, then only the fragments that read those parts,
each compared by a digest of what it reads. An order changes one small part (`ready`, or the
ordering phone's `me`), so its push round looks at a few fragments and sends a few hundred bytes.
"""

from __future__ import annotations

import itertools
import json
import secrets
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson
from jinja2 import StrictUndefined
from jinja2_fragments import render_blocks

from app.i18n import rendering, requested

from .templating import environment_for


@dataclass(frozen=True)
class Items:
    """A panel's list, each entry its own fragment. `over` is a top-level part of the view: a
    list of dicts, each named by its field `key` (its element's id is made from it). `inputs` are
    paths inside one entry; `slices` name top-level parts of the view that are dicts keyed by the
    entry's key, of which an entry reads its own value; `also` are paths of the view every entry
    reads besides its panel's inputs. A `stream` (`into`: the htmx swap that inserts new entries,
    e.g. "afterbegin:#log-list") only ever gains entries at the end, whose keys rise, and keeps
    `limit` of them on screen."""

    over: str
    inputs: tuple[str, ...] = ()
    slices: tuple[str, ...] = ()
    also: tuple[str, ...] = ()
    key: str = "id"
    into: str | None = None
    limit: int = 0


@dataclass(frozen=True)
class Panel:
    inputs: tuple[str, ...]
    items: Items | None = None

# Parts several panels share. A station's `manned` is left out of STATION: it flips as seats are
# taken, and only the panels listing the crew read it. Who has ordered is apart (`ready`).
SHIP_FIELDS = (
    "{id,name,class_name,crew,side,x,y,zone,zone_name,out,defence,destroyed,hull,shields,weapons}"
)
STATION_FIELDS = (
    "stations.*.{id,role,label,boxes,damage,health,red,hand_limit,operational,crew,character}"
)
SHIP = f"ships.*.{SHIP_FIELDS}"
STATION = f"ships.*.{STATION_FIELDS}"
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


def log(keep: int) -> Panel:
    """A screen's log: a stream of lines, the newest first, of which the screen keeps `keep`
    (its list's data-keep), so a push brings the new lines alone."""
    return Panel((), Items("log", key="n", into="afterbegin:#log-list", limit=keep))


# Which ships a list shows, in what order (by_side), and how many (the layout).
LISTED = "ships.*.{id,side}"

# Block names in page order, each with its inputs. Each block's root element carries the id the
# browser swaps.
_DECLARED: dict[str, dict[str, Panel | tuple[str, ...]]] = {
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
        "order_state": (
            "game.{turn,phase,map}",
            "me.{order,down,can_order}",
            "ships.*.{id,name,weapons}",
        ),
        # Not the phase: what can be chosen changes only as orders open and close.
        "order": (
            "game.{turn,map,modules}",
            "distances",
            "me.{actions,can_order,down,order,role,ship,hand,operational,out_of_reach_now}",
            "me.{station,weapons,default_weapons}",
            "ships.*.{id,name,class_name,crew,side,x,y,zone,zone_name,moves,defence,destroyed}",
            "ships.*.{shields,weapons}",
            "ships.*.stations.*.{id,role,label,boxes,damage,health,operational,manned}",
            "weapons.torpedoes",
        ),
        "crew": (
            "game.phase",
            "me.ship",
            NAMES,
            "ships.*.stations.*.{id,label,role,manned}",
            "ready",
        ),
        "reveal": ("me.{ship,station}", "revealed"),
        "ship_status": (
            "game.map",
            "me.ship",
            "distances",
            SHIP,
            STATION,
            "weapons.{grapples,torpedoes}",
        ),
        "contacts": Panel(
            ("me.ship",),
            Items(
                "ships",
                ("{id,name,side,zone,zone_name,destroyed,hull,shields}",),
                also=("game.map.kind", "distances"),
            ),
        ),
        "log": log(15),
    },
    "gm": {
        "turn": ("can_undo", "game", "settings", NAMES, "ships.*.stations.*.{id,label}"),
        "combat_end": COMBAT_END,
        "waiting": (
            "game.phase",
            "ships.*.{id,crew,destroyed}",
            "ships.*.stations.*.{id,manned,operational,role}",
            "ready",
        ),
        "orders": Panel(
            ("game.phase", LISTED),
            Items(
                "ships",
                ("{id,name,side}", "stations.*.{id,label,manned,operational,role}"),
                slices=("orders",),
                also=("game.map", "ships.*.{id,name,weapons}"),
            ),
        ),
        "allocation": ("allocation", NAMES, "ships.*.stations.*.{id,label}"),
        "ships": Panel(
            (LISTED,),
            Items("ships", (SHIP_FIELDS, STATION_FIELDS), slices=("hands",), also=("game.map", "weapons.on")),
        ),
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
        "log": log(30),
    },
    "display": {
        "alert": ("game.red_alert",),
        "sound": ("game.sound",),
        "combat_end": COMBAT_END,
        "timer": ("game.{scenario,turn,phase,phase_label,deadline,paused}",),
        "ship_status": Panel((LISTED,), Items("ships", (SHIP_FIELDS, STATION_FIELDS))),
        "map": MAP,
        "ready": Panel(
            ("game.phase", LISTED),
            Items(
                "ships",
                ("{id,name,side,destroyed}", "stations.*.{id,label,role,manned,operational}"),
                slices=("ready",),
            ),
        ),
        "reveal": ("revealed",),
        "log": log(8),
        "messages": ("messages",),
    },
}


def _normal(panel: Panel | tuple[str, ...]) -> Panel:
    return panel if isinstance(panel, Panel) else Panel(panel)


Tree = dict[str, "Tree | None"]  # None: the whole value
_TREES: dict[Any, Tree] = {}


def _expand(path: str) -> list[list[str]]:
    """`a.{b,c}.d` -> [[a, b, d], [a, c, d]]."""
    choices = [part.strip("{}").split(",") for part in path.split(".")]
    return [list(steps) for steps in itertools.product(*choices)]


def _shared(tree: Tree) -> Tree:
    """One object for equal trees, so that fragments declaring the same part share its
    projection."""
    for key, child in tree.items():
        if child is not None:
            tree[key] = _shared(child)
    signature = tuple(sorted((key, id(child)) for key, child in tree.items()))
    return _TREES.setdefault(signature, tree)


def _tree(paths: Iterable[str]) -> Tree:
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


@dataclass(frozen=True)
class _Plan:
    """A panel's inputs as trees: what the panel itself reads (`own`, its key), what a whole
    render of it reads (`whole`), what an entry's render reads of the view (`view`) and of the
    entry (`entry`); and the top-level parts of the view each depends on."""

    panel: Panel
    own: Tree
    whole: Tree
    view: Tree
    entry: Tree
    also: Tree
    own_parts: frozenset[str]
    entry_parts: frozenset[str]

    @classmethod
    def of(cls, panel: Panel) -> _Plan:
        items = panel.items
        if items is None:
            own = _tree(panel.inputs)
            return cls(panel, own, own, own, {}, {}, frozenset(own), frozenset())
        keys = () if items.into else (f"{items.over}.*.{items.key}",)
        inside = [f"{items.over}.*.{path}" for path in items.inputs] or [f"{items.over}.*"]
        own = _tree((*panel.inputs, *keys))
        view = _tree((*panel.inputs, *keys, *items.also))
        whole = _tree((*panel.inputs, *keys, *inside, *items.also, *items.slices))
        entry = _tree(items.inputs) if items.inputs else {}
        also = _tree(items.also)
        parts = frozenset((items.over, *items.slices, *also))
        return cls(panel, own, whole, view, entry, also, frozenset(own), parts)


PANELS: dict[str, dict[str, Panel]] = {
    audience: {name: _normal(panel) for name, panel in panels.items()}
    for audience, panels in _DECLARED.items()
}
PLANS = {
    (audience, name): _Plan.of(panel)
    for audience, panels in PANELS.items()
    for name, panel in panels.items()
}
# What a whole render of each panel reads (tests/web/test_panel_inputs.py).
TREES = {at: plan.whole for at, plan in PLANS.items()}


class _Hidden(dict[Any, StrictUndefined]):
    """The stand-in for each hidden field, by its key: made once, then a plain lookup."""

    def __missing__(self, key: Any) -> StrictUndefined:
        hint = f"{str(key)!r} is not an input of this fragment: add it in app/web/render.py"
        found = self[key] = StrictUndefined(hint=hint)
        return found


_HIDDEN = _Hidden()


def _project(node: Any, tree: Tree | None, read: bool = False) -> Any:
    """`node` as a fragment with inputs `tree` sees it: every field outside them hidden. With
    `read`, what the fragment reads of it, to digest: the inputs alone, and the keys of each dict
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
    digest never leaves the process that made it (a socket's fragments are pushed by the process
    holding the socket)."""
    return hash(orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS))


Reads = dict[tuple[int, int], int]  # (digest of a part, id of a tree) -> what it reads


class Inputs:
    """Fragments' inputs from the views of one moment. Views made together share parts
    (app.rules.shared_view), so each part is digested (and projected, if a fragment is
    rendered) once, by identity, for every view and fragment declaring it; the part is held
    meanwhile, so its id is never another's. What each tree reads of a part is remembered by
    the part's content for the next moment's Inputs (`reads`): most parts are as they were after
    a command, and a part's JSON says all of it, views being plain JSON data."""

    __slots__ = ("_before", "_projections", "_wholes", "reads")

    def __init__(self, before: Reads | None = None) -> None:
        self._before = {} if before is None else before
        self.reads: Reads = {}
        self._wholes: dict[int, tuple[Any, int]] = {}
        self._projections: dict[tuple[int, int], tuple[Any, Any]] = {}

    def whole(self, node: Any) -> int:
        """The digest of a part (or an entry) as a whole."""
        known = self._wholes.get(id(node))
        if known is None or known[0] is not node:
            known = self._wholes[id(node)] = (node, _digest(node))
        return known[1]

    def read(self, node: Any, tree: Tree | None) -> int:
        """The digest of what a fragment with inputs `tree` reads of `node`."""
        if tree is None:
            return self.whole(node)
        memo = (self.whole(node), id(tree))
        found = self.reads.get(memo)
        if found is None:
            found = self._before.get(memo)
            if found is None:
                found = _digest(_project(node, tree, read=True))
            self.reads[memo] = found
        return found

    def key(self, view: dict[str, Any], tree: Tree) -> int:
        """A digest of what a fragment with inputs `tree` reads of the view: equal keys, equal
        inputs, and so the same HTML."""
        parts = [hash(tuple(view))]  # hidden keys are keys too
        for key, child in tree.items():
            if key in view:
                parts.append(self.read(view[key], child))
        return hash(tuple(parts))

    def project(self, view: dict[str, Any], tree: Tree) -> dict[str, Any]:
        """The view as a fragment with inputs `tree` may see it: every other field hidden."""
        projected: dict[str, Any] = {}
        for key, node in view.items():
            if key not in tree:
                projected[key] = _HIDDEN[key]
                continue
            child = tree[key]
            known = self._projections.get((id(node), id(child)))
            if known is None or known[0] is not node:
                known = (node, _project(node, child))
                self._projections[(id(node), id(child))] = known
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
    not change. The websocket hub sends the same panels, but only what changed of them.
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
    """The first element of every push and panel answer: the game version its fragments show.
    static/js/app.js skips the fragments of a message older than what the screen already shows,
    and a socket it opens again says what the screen shows (`data-shown`, see `shown_as`)."""
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
            environment_for(locale),
            TEMPLATES[audience],
            list(names),
            view=view,
            oob=True,
            alone=False,
            **words,
        )


def render_entries(
    audience: str,
    name: str,
    view: dict[str, Any],
    entries: list[dict[str, Any]],
    locale: str,
    *,
    alone: bool,
) -> str:
    """Entries of a panel's list, each by the panel's `<name>_item` block: `alone`, each with
    its own out-of-band swap (an entry that changed); else as they stand in the panel."""
    blocks = [f"{name}_item"]
    env = environment_for(locale)
    with rendering(locale) as words:
        return "".join(
            render_blocks(
                env, TEMPLATES[audience], blocks, view=view, item=entry, oob=True,
                alone=alone, **words,
            )
            for entry in entries
        )


def render_page(audience: str, view: dict[str, Any], **page: Any) -> str:
    """The whole screen. `page` holds what only a full page needs (game id, CSRF token, QR)."""
    locale = screen_locale(audience, view)
    template = environment_for(locale).get_template(TEMPLATES[audience])
    if "version" in page:
        page["shown"] = shown_as(page["version"], locale)
    with rendering(locale) as words:
        return template.render(
            view=view,
            oob=False,
            alone=False,
            server_now=round(time.time(), 3),
            **page,
            **words,
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


def screen_message(
    audience: str, view: dict[str, Any], version: int, fmt: str, locale: str = "en"
) -> str:
    """A whole screen in one websocket message: its panels (htmx), or its view as JSON."""
    if fmt == "html":
        return str(render_push(audience, view, locale=screen_locale(audience, view, locale)))
    return json.dumps({"type": "view", "audience": audience, "version": version, "view": view})


# A fragment: ("panel", name, None), ("entry", name, entry key), or ("new", name, entry keys):
# entries a stream gained, inserted together.
Fragment = tuple[str, str, Any]
# Fragments' HTML by (audience, fragment, inputs key, language), shared by the screens of a round.
PanelCache = dict[tuple[str, Fragment, int, str], bytes]


@dataclass(eq=False)
class Shown:
    """What one screen was last brought to: the digest of each top-level part of its view, the
    key of each fragment, the newest entry of each stream, and the language. Screens of one
    viewer share one, while they are alike."""

    locale: str
    parts: dict[str, int] = field(default_factory=dict)
    keys: dict[Any, int] = field(default_factory=dict)
    newest: dict[str, Any] = field(default_factory=dict)


class Screen:
    """One viewer's fragments for one view: which changed since what a screen shows, and their
    HTML."""

    def __init__(
        self,
        audience: str,
        view: dict[str, Any],
        inputs: Inputs | None = None,
        locale: str = "en",
    ) -> None:
        self.inputs = Inputs() if inputs is None else inputs
        self.audience = audience
        self.view = view
        self.locale = locale
        self.names = tuple(PANELS[audience])
        self.parts = {key: self.inputs.whole(value) for key, value in view.items()}
        self._keys: dict[Any, int] = {}
        self._entries: dict[str, dict[Any, dict[str, Any]]] = {}
        # What each earlier Shown becomes, and what a screen that showed it is sent: screens of
        # one viewer mostly show the same, and share the answer.
        self._next: dict[int, Shown] = {}
        self._sent: dict[int, list[Fragment]] = {}

    # --- What changed ---------------------------------------------------------------------

    def _panel_key(self, name: str) -> int:
        found = self._keys.get(name)
        if found is None:
            found = self._keys[name] = self.inputs.key(
                self.view, PLANS[(self.audience, name)].own
            )
        return found

    def entries(self, name: str) -> dict[Any, dict[str, Any]]:
        """The panel's list by entry key, in its order."""
        found = self._entries.get(name)
        if found is None:
            items = PANELS[self.audience][name].items
            assert items is not None
            listed = self.view.get(items.over) or []
            found = self._entries[name] = {entry.get(items.key): entry for entry in listed}
        return found

    def _entry_key(self, name: str, key: Any) -> int:
        memo = (name, key)
        found = self._keys.get(memo)
        if found is None:
            plan = PLANS[(self.audience, name)]
            items = plan.panel.items
            assert items is not None
            parts = [
                self.inputs.read(self.entries(name)[key], plan.entry or None),
                self.inputs.key(self.view, plan.also) if plan.also else 0,
            ]
            for part in items.slices:
                value = (self.view.get(part) or {}).get(key)
                parts.append(self.inputs.whole(value) if value is not None else 0)
            found = self._keys[memo] = hash(tuple(parts))
        return found

    def _whole(self, name: str, keys: dict[Any, int], newest: dict[str, Any]) -> Fragment:
        """The panel sent whole: it shows every entry as it is now."""
        keys[name] = self._panel_key(name)
        items = PANELS[self.audience][name].items
        if items is not None:
            entries = self.entries(name)
            if items.into:
                newest[name] = next(reversed(entries), None) if entries else None
            else:
                for key in entries:
                    keys[(name, key)] = self._entry_key(name, key)
        return ("panel", name, None)

    def everything(self) -> tuple[list[Fragment], Shown]:
        """Every panel, whole: a screen's first message."""
        shown = Shown(self.locale, dict(self.parts))
        send = [self._whole(name, shown.keys, shown.newest) for name in self.names]
        return send, shown

    def changes(self, shown: Shown | None) -> tuple[list[Fragment], Shown]:
        """What a screen that shows `shown` must be sent to show this view, and what it then
        shows. Only fragments that read a part of the view that changed are looked at."""
        if shown is None or shown.locale != self.locale:
            return self.everything()
        again = self._next.get(id(shown))
        if again is not None:  # a screen of this viewer that showed the same: the same answer
            return self._sent[id(shown)], again
        changed = {key for key, digest in self.parts.items() if shown.parts.get(key) != digest}
        changed.update(shown.parts.keys() - self.parts.keys())
        send: list[Fragment] = []
        keys, newest = dict(shown.keys), dict(shown.newest)
        if changed:
            for name in self.names:
                plan = PLANS[(self.audience, name)]
                if not changed.isdisjoint(plan.own_parts) and self._panel_key(name) != keys.get(
                    name
                ):
                    send.append(self._whole(name, keys, newest))
                elif not changed.isdisjoint(plan.entry_parts):
                    send.extend(self._entry_changes(name, keys, newest))
        after = Shown(self.locale, dict(self.parts), keys, newest)
        self._next[id(shown)] = after
        self._sent[id(shown)] = send
        return send, after

    def _entry_changes(
        self, name: str, keys: dict[Any, int], newest: dict[str, Any]
    ) -> list[Fragment]:
        items = PANELS[self.audience][name].items
        assert items is not None
        entries = self.entries(name)
        if items.into:  # a stream: what came after the newest entry the screen shows
            last = newest.get(name)
            if not entries or last == next(reversed(entries)):
                return []
            if last is not None and last not in entries:  # not the list it shows: start again
                return [self._whole(name, keys, newest)]
            order = list(entries)
            fresh = order[order.index(last) + 1 :] if last is not None else order
            newest[name] = fresh[-1]
            return [("new", name, tuple(fresh[-items.limit :] if items.limit else fresh))]
        send: list[Fragment] = []
        for key in entries:
            found = self._entry_key(name, key)
            if keys.get((name, key)) != found:
                keys[(name, key)] = found
                send.append(("entry", name, key))
        return send

    # --- Their HTML -----------------------------------------------------------------------

    def html(self, fragment: Fragment, cache: PanelCache) -> bytes:
        """A fragment's HTML (kept as UTF-8: half the memory of a str with icons and arrows),
        rendered from its inputs alone, and only if no screen of this round has it already."""
        kind, name, which = fragment
        if kind == "panel":  # all it shows, its entries too (two screens may differ in those)
            key = self.inputs.key(self.view, PLANS[(self.audience, name)].whole)
        else:  # an entry may read its panel's inputs too
            mine = self._entry_key(name, which) if kind == "entry" else hash(which)
            key = hash((self._panel_key(name), mine))
        memo = (self.audience, fragment, key, self.locale)
        found = cache.get(memo)
        if found is None:
            found = cache[memo] = self._render(fragment).encode()
        return found

    def _render(self, fragment: Fragment) -> str:
        kind, name, which = fragment
        plan = PLANS[(self.audience, name)]
        if kind == "panel":
            view = self.inputs.project(self.view, plan.whole)
            return render_panels(self.audience, view, (name,), self.locale)
        items = plan.panel.items
        assert items is not None
        view = self.inputs.project(self.view, plan.view)
        keys = [which] if kind == "entry" else list(which)
        for part in items.slices:
            own = self.view.get(part) or {}
            view[part] = {key: own[key] for key in keys if key in own}
        entries = [_project(self.entries(name)[key], plan.entry or None) for key in keys]
        if kind == "entry":
            return render_entries(self.audience, name, view, entries, self.locale, alone=True)
        inside = render_entries(
            self.audience, name, view, entries[::-1], self.locale, alone=False
        )
        return f'<div hx-swap-oob="{items.into}">{inside}</div>'

    def message(self, version: int, fragments: list[Fragment], cache: PanelCache) -> str:
        """A push: the version marker, then the fragments (out-of-band swaps, each by its id)."""
        html = b"".join(self.html(fragment, cache) for fragment in fragments)
        return version_marker(version, self.locale) + html.decode()
