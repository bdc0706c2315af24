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

import dataclasses
import itertools
import json
import secrets
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson
from jinja2 import StrictUndefined
from jinja2_fragments import render_blocks

from app.i18n import rendering, requested

from .templating import environment_for


@dataclass(frozen=True)
class Items:
    """Entries of a panel, each its own fragment: drawn by `block` (with the entry as `item`, and
    for an entry of a nested list the entry above it as `owner`) into an element whose id is
    `id` with the entry's key put in ("card-{0}", "track-{0}-{1}").

    `over` says where the entries are: a list in the view ("ships", "me.hand", "log"), or a
    list in each entry of one ("ships.*.stations"). An entry's key is its field `key`, after
    its owner's for a nested list. An entry reads: its own `inputs` (none named: all of it), its
    owner's `owner` inputs, its value in each of the parts `slices` (dicts keyed by each level
    of its key: `view.hands[ship][station]`), the view's `also`, and its panel's inputs.

    A list may be drawn `inside` the entries of another of its panel (named by that one's block):
    of the same list (a ship's Hull row inside the ship), or of the lists in its entries (each
    station's row inside its ship). Such an entry is sent alone when it changes, and with its
    owner when the owner does; the owner's key leaves it out.

    Entries come and go: by default the panel is then drawn anew. With `into`, the id of the
    element holding them, entries that come at the end of the list are put in (at the element's
    `end`, or its `start` when it shows the newest first) and entries gone are removed, so long
    as those that stay keep their order. `last` draws only the list's last entries (a log)."""

    block: str
    over: str
    id: str
    inputs: tuple[str, ...] = ()
    owner: tuple[str, ...] = ()
    slices: tuple[str, ...] = ()
    also: tuple[str, ...] = ()
    key: str = "id"
    into: str | None = None
    at: Literal["end", "start"] = "end"
    last: int = 0
    inside: str | None = None
    # Only the entries this says (from the view and the entry; what it reads of the view must be
    # the panel's inputs): a phone's own ship among the ships.
    only: Callable[[dict[str, Any], dict[str, Any]], bool] | None = None

    def element(self, key: tuple[Any, ...]) -> str:
        return self.id.format(*key)


@dataclass(frozen=True)
class Panel:
    """A panel: its inputs, its lists of entries, and for a panel that is empty most of the
    time, when it shows: while `shown(view)` is false it draws its empty element, reading only
    the paths `when` (what `shown` reads), and is not sent again however its inputs change."""

    inputs: tuple[str, ...]
    items: tuple[Items, ...] = ()
    when: tuple[str, ...] = ()
    shown: Callable[[dict[str, Any]], bool] | None = None


# Parts several panels share. A station's `manned` is left out of STATION: it flips as seats are
# taken, and only the panels listing the crew read it. Who has ordered is apart (`ready`).
SHIP_FIELDS = (
    "{id,name,class_name,crew,side,players_side,x,y,zone,zone_name,out,defence,destroyed,hull,"
    "shields,weapons}"
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
    "ships.*.{id,name,side,players_side,x,y,zone,destroyed}",
    "weapons.{grapples,torpedoes}",
)


def _combat_end(view: dict[str, Any]) -> bool:
    game = view["game"]
    if view["combat_can_end"] or game["combat_over"]:
        return True
    return bool(view["viewer"]["role"] == "gm" and game["phase"] != "downtime")


# G-END-1..3: who can no longer fight, the report once the combat is over, the GM's buttons.
COMBAT_END = Panel(
    (
        "game.{phase,combat,combat_over}",
        "combat_can_end",
        "viewer.role",
        "settings.orders_seconds",
        "ships.*.{id,name,destroyed,out}",
    ),
    when=("game.{phase,combat_over}", "combat_can_end", "viewer.role"),
    shown=_combat_end,
)


def log(last: int) -> Panel:
    """A screen's log, its `last` lines, the newest first: a push brings the new lines alone and
    takes away those that fall off the end."""
    return Panel(
        (), (Items("log_item", "log", "log-{0}", key="n", into="log-list", at="start", last=last),)
    )


# Which ships a list shows, in what order (by_side), and how many (the layout).
LISTED = "ships.*.{id,side,players_side}"
CARD_LINES = "ships.*.stations.*.id"


def _own_ship(view: dict[str, Any], ship: dict[str, Any]) -> bool:
    return bool(view["me"] and ship["id"] == view["me"]["ship"])


def ship_rows(only: Callable[..., bool] | None = None) -> tuple[Items, ...]:
    """A ship card (ui.ship_head and its rows), each row drawn apart: a hit redraws the row it
    hit. On the projector every ship; on a phone its own (`only`)."""
    return (
        Items(
            "ship_status_item",
            "ships",
            "ship-{0}",
            ("{id,name,class_name,side,players_side,x,y,zone,zone_name,defence,destroyed}",),
            only=only,
        ),
        Items("hull_item", "ships", "hull-{0}", ("{id,destroyed,hull}",), inside=TOP, only=only),
        Items("shields_item", "ships", "shields-{0}", ("{id,shields}",), inside=TOP, only=only),
        Items(
            "station_item",
            "ships.*.stations",
            "station-{0}-{1}",
            ("{id,role,label,boxes,damage,health,red,hand_limit,operational,crew}",),
            owner=("{id,crew}",),
            inside=TOP,
            only=only,
        ),
    )


TOP = "ship_status_item"  # a ship card, whose rows are drawn apart

# Block names in page order, each with its inputs. Each block's root element carries the id the
# browser swaps.
_DECLARED: dict[str, dict[str, Panel | tuple[str, ...]]] = {
    "station": {
        "who": ("game.scenario", "me.{label,ship_name}"),
        "status": ("game.{turn,phase_label,deadline,paused,red_alert}",),
        "allocation": Panel(
            ("me.{allocation,ship}", "ships.*.id", "ships.*.stations.*.{id,label,health}"),
            when=("me.allocation",),
            shown=lambda view: bool(view["me"] and view["me"]["allocation"]),
        ),
        "combat_end": COMBAT_END,
        "messages": ("messages", "game.turn"),
        "me": (
            "me.{ship,station,role,label,name,character,hand_limit,health,boxes,damage,red,down}",
            "me.weapons",
            "standing_by",
        ),
        "position": Panel(
            (
                "game.{modules,phase}",
                "me.{ship,station,label,character,moving_to}",
                "ships.*.id",
                "ships.*.stations.*.{id,crew,hand_limit,label,manned,role}",
            ),
            when=("game.modules", "me.ship"),
            shown=lambda view: view["me"] is not None and "seats" in view["game"]["modules"],
        ),
        "hand": ("game.turn", "me.{hand,hand_limit,can_order}", "me.order.cards"),
        "map": Panel(
            (*MAP, "me.{ship,role}"),
            when=("me.role",),
            shown=lambda view: bool(view["me"] and view["me"]["role"] == "pilot"),
        ),
        "order_state": (
            "game.{turn,phase,map}",
            "me.{order,down,can_order}",
            "ships.*.{id,name,weapons}",
            "ships.*.stations.*.{id,label}",  # order_text names the station it aims at
        ),
        # Only while the phone may order: nothing of it changes between turns.
        "order": Panel(
            (
                "game.{turn,map,modules}",
                "distances",
                "me.{actions,can_order,down,order,role,ship,hand,operational,out_of_reach_now}",
                "me.{station,weapons,default_weapons}",
                "ships.*.{id,name,class_name,crew,side,players_side,x,y,zone,zone_name,moves,defence,destroyed}",
                "ships.*.{shields,weapons}",
                "ships.*.stations.*.{id,role,label,boxes,damage,health,operational,manned}",
                "weapons.torpedoes",
            ),
            when=("me.can_order",),
            shown=lambda view: bool(view["me"] and view["me"]["can_order"]),
        ),
        "crew": (
            "game.phase",
            "me.ship",
            NAMES,
            "ships.*.stations.*.{id,label,role,manned}",
            "ready",
        ),
        "reveal": ("revealed",),
        "ship_status": Panel(
            (
                "game.map",
                "me.ship",
                "distances",
                "ships.*.{id,name,side,players_side,x,y,zone,zone_name,destroyed}",
                "weapons.{grapples,torpedoes}",
            ),
            ship_rows(only=_own_ship),
        ),
        "contacts": Panel(
            ("me.ship",),
            (
                Items(
                    "contacts_item",
                    "ships",
                    "contact-{0}",
                    ("{id,name,side,players_side,zone,zone_name,destroyed,hull,shields}",),
                    also=("game.map.kind", "distances"),
                ),
            ),
        ),
        "log": log(15),
    },
    "gm": {
        # `projector`, the hub's like `phones` below: whether a projector screen is open.
        "turn": (
            "can_undo",
            "game",
            "settings",
            NAMES,
            "ships.*.stations.*.{id,label}",
            "projector",
        ),
        "combat_end": COMBAT_END,
        # Who is connected (`phones`, the hub's, not the game's: app/web/live/presence.py)
        # against which seat holds each station.
        "waiting": (
            "game.phase",
            "ships.*.{id,name,crew,destroyed,out}",
            "ships.*.stations.*.{id,label,manned,operational,role}",
            "ready",
            "seats",
            "phones",
        ),
        "orders": Panel(
            ("game.phase", LISTED),
            (
                Items(
                    "orders_item",
                    "ships",
                    "orders-{0}",
                    (
                        "{id,name,side,players_side}",
                        "stations.*.{id,label,manned,operational,role}",
                    ),
                    slices=("orders",),
                    # order_text names targets, their stations and the weapons that fire.
                    also=("game.map", "ships.*.{id,name,weapons}", "ships.*.stations.*.{id,label}"),
                ),
            ),
        ),
        "allocation": ("allocation", NAMES, "ships.*.stations.*.{id,label}"),
        "ships": Panel(
            (LISTED,),
            (
                Items(
                    "ships_item",
                    "ships",
                    "gm-ship-{0}",
                    (
                        "{id,name,class_name,crew,side,players_side,x,y,zone,zone_name,defence,destroyed}",
                        "shields.{active,boxes}",
                        "weapons",
                    ),
                    also=("game.map", "weapons.on"),
                ),
                Items(
                    "ships_hull_item",
                    "ships",
                    "gm-track-{0}-hull",
                    ("{id,destroyed,hull}",),
                    inside="ships_item",
                ),
                Items(
                    "ships_shields_item",
                    "ships",
                    "gm-track-{0}-shields",
                    ("{id,shields}",),
                    inside="ships_item",
                ),
                Items(
                    "ships_station_item",
                    "ships.*.stations",
                    "gm-track-{0}-{1}",
                    ("{id,label,crew,operational,boxes,damage,health,red,hand_limit}",),
                    owner=("id",),
                    slices=("hands",),
                    inside="ships_item",
                ),
            ),
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
        # Close cards or full ones by how many lines the ships' cards take (ui.close_cards).
        "ship_status": Panel((LISTED, CARD_LINES), ship_rows()),
        "map": (*MAP, CARD_LINES),
        "ready": Panel(
            ("game.phase", LISTED),
            (
                Items(
                    "ready_item",
                    "ships",
                    "ready-{0}",
                    (
                        "{id,name,crew,side,players_side,destroyed,out}",
                        "stations.*.{id,label,role,manned,operational}",
                    ),
                    slices=("ready",),
                ),
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


def _split(over: str) -> tuple[str, str | None]:
    """ "ships.*.stations" -> ("ships", "stations"); "me.hand" -> ("me.hand", None)."""
    outer, _, inner = over.partition(".*.")
    return outer, inner or None


@dataclass(frozen=True)
class _Entries:
    """One Items of a panel, as trees."""

    items: Items
    entry: Tree | None  # what an entry reads of itself (None: all of it), its key
    owner: Tree
    also: Tree
    parts: frozenset[str]  # the top-level parts of the view its entries read
    drawn: Tree | None = None  # what drawing an entry reads of it: its own and its inner lists'
    slices: tuple[str, ...] = ()  # the keyed parts drawing an entry reads: its own and inner's
    inner: tuple[int, ...] = ()  # the lists drawn inside its entries
    outer: int | None = None  # the list whose entries draw this one's


def _inside(items: Items, outer: Items) -> list[str]:
    """The paths an entry of `items` reads, as seen from the entry of `outer` that draws it."""
    field_ = "" if items.over == outer.over else _split(items.over)[1]
    assert field_ is not None and items.into is None, (items, outer)
    at = f"{field_}.*." if field_ else ""
    paths = [f"{at}{path}" for path in items.inputs] or ([f"{field_}.*"] if field_ else [])
    # ... and what it reads of its owner, which is that entry.
    return [*paths, f"{at}{items.key}", *items.owner] if field_ else paths


@dataclass(frozen=True)
class _Plan:
    """A panel's inputs as trees: what the panel itself reads (`own`, its key), what a whole
    render of it reads (`whole`), what an entry's render reads of the view (`view`); its lists
    of entries; and the top-level parts of the view it depends on."""

    panel: Panel
    own: Tree
    whole: Tree
    view: Tree
    lists: tuple[_Entries, ...]
    own_parts: frozenset[str]
    hidden: Tree  # what it reads while it does not show

    @classmethod
    def of(cls, panel: Panel) -> _Plan:
        members: list[str] = []
        inside: list[str] = []
        also: list[str] = []
        lists: list[_Entries] = []
        blocks = {items.block: index for index, items in enumerate(panel.items)}
        for items in panel.items:
            outer, inner = _split(items.over)
            at = f"{outer}.*.{inner}" if inner else outer
            if items.into is None:  # which entries there are is the panel's own business
                members.append(f"{at}.*.{items.key}")
                if inner:
                    members.append(f"{outer}.*.{items.key}")
            inside += [f"{at}.*.{path}" for path in items.inputs] or [f"{at}.*"]
            if inner:
                inside += [f"{outer}.*.{path}" for path in items.owner]
                inside.append(f"{outer}.*.{items.key}")
            also += items.also
            tree = _tree(items.also)
            parts = frozenset((outer.split(".")[0], *items.slices, *tree))
            entry = _tree(items.inputs) if items.inputs else None
            lists.append(_Entries(items, entry, _tree(items.owner), tree, parts))
        for index, found in enumerate(lists):  # each list with those drawn inside its entries
            inner_ = tuple(
                n for n, other in enumerate(panel.items) if other.inside == found.items.block
            )
            outer_ = blocks.get(found.items.inside) if found.items.inside else None
            drawn = None
            if found.entry is not None:
                paths = list(found.items.inputs)
                for n in inner_:
                    paths += _inside(panel.items[n], found.items)
                drawn = _tree(paths)
            slices = (*found.items.slices, *(p for n in inner_ for p in panel.items[n].slices))
            lists[index] = dataclasses.replace(
                found, drawn=drawn, slices=slices, inner=inner_, outer=outer_
            )
        view = _tree((*panel.inputs, *members, *also))
        keyed = [part for items in panel.items for part in items.slices]
        whole = _tree((*panel.inputs, *members, *inside, *also, *keyed, *panel.when))
        own = _tree((*panel.inputs, *members, *panel.when))
        hidden = _tree(panel.when)
        return cls(panel, own, whole, view, tuple(lists), frozenset(own), hidden)

    def shows(self, view: dict[str, Any]) -> bool:
        return self.panel.shown is None or self.panel.shown(view)


def _walk(node: Any, path: str) -> Any:
    for step in path.split("."):
        node = node.get(step) if isinstance(node, dict) else None
    return node


def _slice(part: Any, key: tuple[Any, ...]) -> Any:
    """An entry's value in a part keyed by each level of its key, or None."""
    for step in key:
        part = part.get(step) if isinstance(part, dict) else None
    return part


def _nested(key: tuple[Any, ...], value: Any) -> Any:
    """`value` at `key` in otherwise empty dicts: an entry's slice as the view holds it."""
    for step in reversed(key):
        value = {step: value}
    return value


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


def render_entry(
    audience: str,
    block: str,
    view: dict[str, Any],
    item: dict[str, Any],
    owner: Any,
    locale: str,
    *,
    alone: bool,
) -> str:
    """One entry of a panel's list by its block: `alone`, with its own out-of-band swap (an
    entry that changed); else as it stands in its panel."""
    with rendering(locale) as words:
        return render_blocks(
            environment_for(locale),
            TEMPLATES[audience],
            [block],
            view=view,
            item=item,
            owner=owner,
            oob=True,
            alone=alone,
            **words,
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


# A fragment: ("panel", panel, 0, None), a panel whole; ("entry", panel, n, key), an entry of its
# n-th list; ("new", panel, n, keys), entries come, put in together; ("gone", panel, n, key).
Fragment = tuple[str, str, int, Any]
# Fragments' HTML by (audience, fragment, inputs key, language), shared by the screens of a round.
PanelCache = dict[tuple[str, Fragment, int, str], bytes]
Entry = tuple[dict[str, Any], Any]  # an entry and its owner (None for a list at the top)


@dataclass(eq=False)
class Shown:
    """What one screen was last brought to: the digest of each top-level part of its view, the
    key of each panel and entry, the entries of each list whose entries come and go, and the
    language. Screens of one viewer share one, while they are alike."""

    locale: str
    parts: dict[str, int] = field(default_factory=dict)
    keys: dict[Any, int] = field(default_factory=dict)
    lists: dict[tuple[str, int], tuple[Any, ...]] = field(default_factory=dict)


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
        self._entries: dict[tuple[str, int], dict[tuple[Any, ...], Entry]] = {}
        # What each earlier Shown becomes, and what a screen that showed it is sent: screens of
        # one viewer mostly show the same, and share the answer.
        self._next: dict[int, tuple[Shown, list[Fragment], Shown]] = {}

    # --- What changed ---------------------------------------------------------------------

    def _panel_key(self, name: str) -> int:
        found = self._keys.get(name)
        if found is None:
            plan = PLANS[(self.audience, name)]
            if plan.shows(self.view):
                found = self.inputs.key(self.view, plan.own)
            else:  # empty, whatever its inputs
                found = hash((None, name))
            self._keys[name] = found
        return found

    def entries(self, name: str, index: int = 0) -> dict[tuple[Any, ...], Entry]:
        """A list's entries by key, in the view's order."""
        found = self._entries.get((name, index))
        if found is None:
            items = PANELS[self.audience][name].items[index]
            outer, inner = _split(items.over)
            listed = _walk(self.view, outer) or []
            found = {}
            only = items.only
            if inner is None:
                for entry in listed[-items.last :] if items.last else listed:
                    if only is None or only(self.view, entry):
                        found[(entry.get(items.key),)] = (entry, None)
            else:
                for owner in listed:
                    if only is not None and not only(self.view, owner):
                        continue
                    for entry in owner.get(inner) or ():
                        found[(owner.get(items.key), entry.get(items.key))] = (entry, owner)
            self._entries[(name, index)] = found
        return found

    def _entry_key(self, name: str, index: int, key: tuple[Any, ...]) -> int:
        memo = (name, index, key)
        found = self._keys.get(memo)
        if found is None:
            plan = PLANS[(self.audience, name)].lists[index]
            entry, owner = self.entries(name, index)[key]
            parts = [
                self.inputs.read(entry, plan.entry),
                self.inputs.read(owner, plan.owner) if owner is not None else 0,
                self.inputs.key(self.view, plan.also) if plan.also else 0,
            ]
            for part in plan.items.slices:
                value = _slice(self.view.get(part), key)
                parts.append(self.inputs.whole(value) if value is not None else 0)
            found = self._keys[memo] = hash(tuple(parts))
        return found

    def _whole(self, name: str, keys: dict[Any, int], lists: dict[Any, Any]) -> Fragment:
        """The panel sent whole: it shows every entry as it is now."""
        keys[name] = self._panel_key(name)
        for index, items in enumerate(PANELS[self.audience][name].items):
            entries = self.entries(name, index)
            for key in entries:
                keys[(name, index, key)] = self._entry_key(name, index, key)
            if items.into:
                lists[(name, index)] = tuple(entries)
        return ("panel", name, 0, None)

    def everything(self) -> tuple[list[Fragment], Shown]:
        """Every panel, whole: a screen's first message."""
        shown = Shown(self.locale, dict(self.parts))
        send = [self._whole(name, shown.keys, shown.lists) for name in self.names]
        return send, shown

    def changes(self, shown: Shown | None) -> tuple[list[Fragment], Shown]:
        """What a screen that shows `shown` must be sent to show this view, and what it then
        shows. Only fragments that read a part of the view that changed are looked at."""
        if shown is None or shown.locale != self.locale:
            return self.everything()
        known = self._next.get(id(shown))
        if known is not None and known[0] is shown:  # a screen of this viewer that showed the
            return known[1], known[2]  # same: the same answer
        changed = {key for key, digest in self.parts.items() if shown.parts.get(key) != digest}
        changed.update(shown.parts.keys() - self.parts.keys())
        send: list[Fragment] = []
        keys, lists = dict(shown.keys), dict(shown.lists)
        for name in self.names if changed else ():
            plan = PLANS[(self.audience, name)]
            if not changed.isdisjoint(plan.own_parts) and self._panel_key(name) != keys.get(name):
                send.append(self._whole(name, keys, lists))
                continue
            found: list[Fragment] = []
            # Each list's entries sent: those drawn inside them go with them.
            sent: dict[int, set[tuple[Any, ...]]] = {}
            for index, entries in enumerate(plan.lists):
                touched = not changed.isdisjoint(entries.parts)
                owners = sent.get(entries.outer, set()) if entries.outer is not None else set()
                if not touched and not owners:
                    continue
                some = self._entry_changes(
                    name, index, keys, lists, sent.setdefault(index, set()), owners, touched
                )
                if some is None:  # the entries moved about: draw the panel anew
                    found = [self._whole(name, keys, lists)]
                    break
                found += some
            send += found
        after = Shown(self.locale, dict(self.parts), keys, lists)
        self._next[id(shown)] = (shown, send, after)
        return send, after

    def _entry_changes(
        self,
        name: str,
        index: int,
        keys: dict[Any, int],
        lists: dict[Any, Any],
        sent: set[tuple[Any, ...]],
        owners: set[tuple[Any, ...]],
        touched: bool = True,
    ) -> list[Fragment] | None:
        """The changes of one list: entries come and gone, entries changed (collected in `sent`).
        An entry drawn inside one of `owners`, entries sent, went with it; `touched`: whether
        anything its entries read changed at all."""
        plan = PLANS[(self.audience, name)].lists[index]
        items = plan.items
        entries = self.entries(name, index)
        send: list[Fragment] = []
        if plan.outer is not None:
            for key in entries:
                carried = key[:1] in owners
                if carried or touched:
                    found = self._entry_key(name, index, key)
                    if not carried and keys.get((name, index, key)) != found:
                        send.append(("entry", name, index, key))
                    keys[(name, index, key)] = found
            return send
        if items.into:
            old, new = lists.get((name, index), ()), tuple(entries)
            if old != new:
                stay = set(old) & set(new)
                kept = tuple(key for key in new if key in stay)
                came = tuple(key for key in new if key not in stay)
                if tuple(key for key in old if key in stay) != kept:
                    return None
                if new != kept + came:  # entries only ever come at the end of the list
                    return None
                for key in old:
                    if key not in stay:
                        send.append(("gone", name, index, key))
                        keys.pop((name, index, key), None)
                if came:
                    send.append(("new", name, index, came))
                    for key in came:
                        keys[(name, index, key)] = self._entry_key(name, index, key)
                lists[(name, index)] = new
        for key in entries:
            found = self._entry_key(name, index, key)
            if keys.get((name, index, key)) != found:
                keys[(name, index, key)] = found
                send.append(("entry", name, index, key))
                sent.add(key)
        return send

    # --- Their HTML -----------------------------------------------------------------------

    def html(self, fragment: Fragment, cache: PanelCache) -> bytes:
        """A fragment's HTML (kept as UTF-8: half the memory of a str with icons and arrows),
        rendered from its inputs alone, and only if no screen of this round has it already."""
        kind, name, index, which = fragment
        plan = PLANS[(self.audience, name)]
        if kind == "panel" and not plan.shows(self.view):
            key = self._panel_key(name)
        elif kind == "panel":  # all it shows, its entries too (two screens may differ in those)
            key = self.inputs.key(self.view, plan.whole)
        elif kind == "entry":  # an entry may read its panel's inputs too
            key = hash((self._panel_key(name), self._entry_key(name, index, which)))
        elif kind == "new":
            mine = tuple(self._entry_key(name, index, key) for key in which)
            key = hash((self._panel_key(name), mine))
        else:
            key = 0
        memo = (self.audience, fragment, key, self.locale)
        found = cache.get(memo)
        if found is None:
            found = cache[memo] = self._render(fragment).encode()
        return found

    def _render(self, fragment: Fragment) -> str:
        kind, name, index, which = fragment
        plan = PLANS[(self.audience, name)]
        if kind == "panel":
            tree = plan.whole if plan.shows(self.view) else plan.hidden
            view = self.inputs.project(self.view, tree)
            return render_panels(self.audience, view, (name,), self.locale)
        entries = plan.lists[index]
        items = entries.items
        if kind == "gone":
            return f'<div id="{items.element(which)}" hx-swap-oob="delete"></div>'
        keys = [which] if kind == "entry" else list(which)
        if items.at == "start":
            keys.reverse()  # the newest first
        drawn = []
        for key in keys:
            view = self.inputs.project(self.view, plan.view)
            for part in entries.slices:
                value = _slice(self.view.get(part), key)
                view[part] = _nested(key, value) if value is not None else {}
            entry, owner = self.entries(name, index)[key]
            drawn.append(
                render_entry(
                    self.audience,
                    items.block,
                    view,
                    _project(entry, entries.drawn),
                    _project(owner, entries.owner) if owner is not None else None,
                    self.locale,
                    alone=kind == "entry",
                )
            )
        if kind == "entry":
            return drawn[0]
        swap = "beforeend" if items.at == "end" else "afterbegin"
        return f'<div hx-swap-oob="{swap}:#{items.into}">{"".join(drawn)}</div>'

    def message(self, version: int, fragments: list[Fragment], cache: PanelCache) -> str:
        """A push: the version marker, then the fragments (out-of-band swaps, each by its id)."""
        html = b"".join(self.html(fragment, cache) for fragment in fragments)
        return version_marker(version, self.locale) + html.decode()
