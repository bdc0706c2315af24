"""The Jinja2 environment shared by every screen: filters, the UI macros, the QR code.

One environment for full pages, htmx partials and websocket pushes, so a panel renders the same
bytes whichever way it travels.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, MutableMapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import segno
from jinja2 import (
    Environment,
    FileSystemLoader,
    StrictUndefined,
    pass_context,
    select_autoescape,
)
from jinja2.ext import Extension
from jinja2.lexer import Token, TokenStream
from markupsafe import Markup, escape

from app import i18n
from app.i18n import N_, known
from app.i18n import spoken as _
from app.i18n_content import content, side_name
from app.rules.content import MODULES
from app.rules.core.messages import message, term
from app.rules.core.names import CREW_NAME_LENGTH
from app.rules.core.phases import ACTIONS
from app.web.editor_words import field_words
from app.web.hyphens import hyphenated
from app.web.mapmarks import map_marks, short_name, short_names
from app.web.words import label_filter, say, say_filter

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES_DIR = ROOT / "templates"
STATIC_DIR = ROOT / "static"

# Msgids: the templates translate them with _() when they show them.
STATUS_WORDS = {
    "healthy": N_("unhurt"),
    "wounded": N_("wounded"),
    "seriously_wounded": N_("seriously wounded"),
    "unconscious": N_("unconscious"),
    "dead": N_("dead"),
}
# Static rules data (not game state): what each role may order, for the GM's NPC order forms.
ROLE_ACTIONS: dict[str, list[tuple[str, dict[str, Any]]]] = {}
for _action, _spec in ACTIONS.items():
    ROLE_ACTIONS.setdefault(str(_spec["role"]), []).append((_action, term("action", _action)))
CARDLESS_ACTIONS = frozenset(a for a, spec in ACTIONS.items() if not spec["kinds"])
# Events the reveal lists leave out: the tracks already show each filled box and station hit.
QUIET_EVENTS = frozenset(
    {
        "HullHit",
        "StationDamaged",
        "AllocationRequested",
        "AllOrdersIn",
        "TurnResolved",
        "OrdersRevealed",
        "CardsDrawn",
        "SystemDamageRolled",
    }
)
# Torpedo events whose dice _weapons.html draws (M-WEAPONS-3..5).
WEAPON_DICE_EVENTS = frozenset(
    {
        "TorpedoLaunched",
        "TorpedoIntercepted",
        "PointDefenceMissed",
        "TorpedoStruck",
        "TorpedoMissed",
    }
)
# BRIDGECREW_DEV=1: templates edited on disk show on the next render (each render then stat()s every
# template it uses, a macro call included). Off in production: templates load once per process.
DEV = os.environ.get("BRIDGECREW_DEV", "").strip().lower() in ("1", "true", "yes", "on")
ROLE_ICONS = {"weapons": "⊕", "engineering": "⚙", "pilot": "➤", "comms": "≋", "captain": "★"}


def mmss(seconds: float | int | None) -> str:
    if seconds is None:
        return "–:––"
    whole = max(0, int(seconds + 0.999))
    return f"{whole // 60}:{whole % 60:02d}"


def signed(value: int) -> str:
    return f"+{value}" if value >= 0 else f"−{abs(value)}"


def qr_svg(url: str) -> Markup:
    """A link as an inline SVG QR code, black on white (phones' scanners want dark on light)."""
    qr = segno.make(url, error="m")
    return Markup(qr.svg_inline(scale=6, border=2, dark="#000", light="#fff", omitsize=True))  # noqa: S704 - segno's own SVG


# --- Lookups over a view, so templates need no loops to find one ship ---------------------------

View = dict[str, Any]


def ship_of(view: View, ship_id: str) -> View:
    return next(s for s in view["ships"] if s["id"] == ship_id)


def station_of(view: View, ship_id: str, station_id: str) -> View:
    return next(st for st in ship_of(view, ship_id)["stations"] if st["id"] == station_id)


def distance_of(view: View, a: str, b: str) -> View | None:
    """{"squares", "band"} between two ships, whichever way round the view lists the pair."""
    for pair in view["distances"]:
        if {pair["a"], pair["b"]} == {a, b}:
            return pair  # type: ignore[no-any-return]
    return None


def far(view: View, pair: View | None) -> str:
    """A distance from distance_of in words: "7 sq" on a grid; "same zone", "1 zone", "2 zones"
    on a zone map (G-ZONE-2), where the number counts zone steps."""
    if pair is None:
        return ""
    steps = int(pair["squares"])
    if view["game"]["map"]["kind"] != "zones":
        return _("%(n)s sq") % {"n": steps}
    if steps == 0:
        return _("same zone")
    return i18n.translations(i18n.speaking.get()).ngettext(
        "%(num)s zone", "%(num)s zones", steps
    ) % {"num": steps}


def station_words(view: View, ship_id: str, station_id: str) -> str:
    """A station of a ship by its id, as people name it: by its role (or its own label), or the
    shields or the Hull, in the rendering language."""
    label = next(
        (st["label"] for st in ship_of(view, ship_id)["stations"] if st["id"] == station_id),
        station_id,
    )
    return say(message("station_name", station=label), i18n.words())


def message_text(sent: View) -> str:
    """A message to the crews in the rendering language: the GM's own words as typed, a
    scenario's (a cue's message) by the content's translations."""
    return content(sent["text"]) if sent.get("scripted") else str(sent["text"])


def addressee(view: View, to: str) -> str:
    """Whom a message went to ("kestrel", "kestrel/pilot") as people name them."""
    ship_id, _, station_id = to.partition("/")
    ship = next((s for s in view["ships"] if s["id"] == ship_id), None)
    if ship is None:
        return to
    name = content(ship["name"])
    return f"{name} · {station_words(view, ship_id, station_id)}" if station_id else name


def zone_name(view: View, zone_id: str) -> str:
    game_map = view["game"]["map"]
    return next((z["name"] for z in game_map.get("zones", ()) if z["id"] == zone_id), zone_id)


def enemies_of(view: View, ship_id: str) -> list[View]:
    side = ship_of(view, ship_id)["side"]
    return [s for s in view["ships"] if s["side"] != side and not s["destroyed"]]


def by_side(ships: list[View]) -> list[View]:
    """The players' ships first, then everyone else, each side in the scenario's order."""
    return sorted(ships, key=lambda ship: not ship["players_side"])


def occupancy(view: View) -> dict[tuple[int, int], View]:
    """The ship on each occupied square (the first listed, if several share one)."""
    found: dict[tuple[int, int], View] = {}
    for ship in view["ships"]:
        found.setdefault((ship["x"], ship["y"]), ship)
    return found


def pilot_grid(view: View, ship: View, order: View) -> Markup:
    """The pilot's map grid: one tappable square per cell (templates/_order_pilot.html).

    Hundreds of cells are far too many for a Jinja loop on every re-render of the order panel, so
    the squares are written here, and the last few grids are kept. Only a few: a grid is tens of
    kilobytes, and keeping many costs memory for every socket and saves little CPU."""
    game_map = view["game"]["map"]
    width, height = game_map["width"], game_map["height"]
    ships = tuple(
        (x, y, here["side"] + (" wreck" if here["destroyed"] else ""), content(here["name"])[:3])
        for (x, y), here in occupancy(view).items()
    )
    square = _("Square %(x)s, %(y)s")
    return _pilot_grid(
        width, height, ships, ship["x"], ship["y"], order.get("x"), order.get("y"), square
    )


@lru_cache(maxsize=32)
def _pilot_grid(
    width: int,
    height: int,
    ships: tuple[tuple[int, int, str, str], ...],
    own_x: int,
    own_y: int,
    chosen_x: Any,
    chosen_y: Any,
    square: str,
) -> Markup:
    here = {(x, y): (side, name) for x, y, side, name in ships}
    # Coordinates along the top and down the left, so a square can be called out by number.
    # Written tight: a phone is sent the grid each time orders open (the square is in the
    # radio's value, "x,y", for static/js/app.js).
    out = ['<span class="grid-coord"></span>']
    out += [f'<span class="grid-coord">{x}</span>' for x in range(width)]
    for y in range(height):
        out.append(f'\n<span class="grid-coord row-coord">{y}</span>')
        for x in range(width):
            found = here.get((x, y))
            cls = "cell"
            if x == own_x and y == own_y:
                cls += " own"
            if found:
                # A wreck stays on its square, crossed out: the side holds " wreck" then.
                cls += f" occupied side-{escape(found[0])}"
            checked = " checked" if chosen_x == x and chosen_y == y else ""
            out.append(
                f'<label class="{cls}"><input type="radio" name="dest" value="{x},{y}"{checked}'
                f' aria-label="{escape(square % {"x": x, "y": y})}">'
            )
            if found:
                out.append(f'<span class="cell-ship">{escape(found[1])}</span>')
            out.append("</label>")
    return Markup("".join(out))  # noqa: S704 - every value escaped above


def order_text(view: View, order: View) -> str:
    """An order in words, for its own station and the GM (the engine words orders only once
    they are revealed)."""
    if order["action"] == "pass":
        if order.get("overriding"):  # M-SEATS-2
            return _("Giving %(station)s's order instead (override −2).") % {
                "station": station_words(view, order["ship"], order["overriding"])
            }
        return _("Pass.")
    action = ACTIONS.get(order["action"])
    text = order["action"] if action is None else say(term("action", order["action"]), i18n.words())
    if action is not None and action["kinds"]:
        # M-NPC-1: an NPC crew's value is rolled at the reveal.
        text += " " + _("(crew roll)") if order.get("npc") else f" ({order['value']})"
    if order.get("target"):
        text += f" → {content(ship_of(view, order['target'])['name'])}"
    if order.get("target_station"):
        station = station_words(view, order.get("target") or order["ship"], order["target_station"])
        text += f" ({station})" if order.get("target") else f" → {station}"
    if order["action"] == "attack" and order.get("weapons"):  # G-HIT-4: what will fire
        weapons = ship_of(view, order["ship"])["weapons"]
        names = [content(w["name"]) for w in weapons if w["id"] in order["weapons"]]
        text += " " + _("with %(weapons)s") % {"weapons": ", ".join(names)}
    if order["action"] == "manoeuvre" and "zone" in order:
        text += f" → {content(zone_name(view, order['zone']))}"
    elif order["action"] == "manoeuvre":
        text += f" → ({order['x']}, {order['y']})"
    return text + "."


class _ViewEnvironment(Environment):
    """Jinja's environment, reading a view's fields key first.

    Templates read views, which are dicts, as `view.me.label`. Jinja looks an attribute up first
    and the key only after that, so every such read raised and caught an AttributeError, a large
    part of a panel's render (bench/panel_cost.py measures it). On a dict whose type has no
    attribute of that name, no `__getattr__` and no instance `__dict__`, the attribute lookup
    cannot succeed, so the key is read at once. Every answer stays Jinja's: `d.items` is still
    the method, a missing key still ends in StrictUndefined."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        cls = type(obj)
        names = _DICT_TYPE_NAMES.get(cls, _UNKNOWN)
        if names is _UNKNOWN:
            names = _DICT_TYPE_NAMES[cls] = _dict_type_names(cls)
        if names is not None and attribute not in names:
            try:
                return obj[attribute]
            except LookupError:
                pass  # Jinja's own way, to the same Undefined
        return super().getattr(obj, attribute)

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        """A template's globals as a plain dict, where Jinja gives a ChainMap over the
        environment's: every render and include copies them, and copying a ChainMap (a Python
        loop over its maps) showed in every panel's render. The environment's globals are all
        set before the first template loads (Jinja asks that of them anyway)."""
        return {**self.globals, **(d or {})}


_UNKNOWN: Any = object()
_DICT_TYPE_NAMES: dict[type, frozenset[str] | None] = {}  # the types templates have read


def _dict_type_names(cls: type) -> frozenset[str] | None:
    """The attribute names of a dict type whose instances have no others; else None."""
    if not issubclass(cls, dict):
        return None
    names = frozenset(dir(cls))
    return None if "__dict__" in names or "__getattr__" in names else names


class _WordsInPlace(Extension):
    """`_("literal")` with no values, put into the template as its translation when the template
    is compiled: one environment per language, so a render need not call gettext for each of the
    hundreds of fixed words a screen has (calls in a template are its costliest step). Messages
    with values (`_("Turn %(n)s", n=...)`) are still translated as they render."""

    def filter_stream(self, stream: TokenStream) -> Iterator[Token]:
        words = i18n.translations(self.environment.locale)  # type: ignore[attr-defined]
        held: list[Token] = []
        for token in stream:
            held.append(token)
            if not _words_so_far(held):
                yield from held
                held = []
            elif len(held) == len(_WORDS_SHAPE):
                text = words.gettext(held[2].value) % {}  # as newstyle gettext: "%%" is "%"
                line = held[0].lineno
                yield from (
                    Token(line, "string", text),
                    Token(line, "pipe", "|"),
                    Token(line, "name", "safe"),  # the catalogue's text, markup and all
                )
                held = []
        yield from held


_WORDS_SHAPE = ("name", "lparen", "string", "rparen")


def _words_so_far(held: list[Token]) -> bool:
    """Whether these tokens begin `_("literal")`."""
    if held[0].value != "_":
        return False
    return all(token.type == kind for token, kind in zip(held, _WORDS_SHAPE, strict=False))


def _environment(locale: str = i18n.SOURCE) -> Environment:
    env = _ViewEnvironment(
        loader=FileSystemLoader(TEMPLATES_DIR),
        autoescape=select_autoescape(["html"]),
        # A typo in a template must fail the tests, not show an empty string to 40 people.
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=DEV,
        extensions=["jinja2.ext.i18n", _WordsInPlace],
    )
    env.locale = locale  # type: ignore[attr-defined]
    # Newstyle gettext: placeholders by keyword, escaped. The callables come with each render
    # (app/i18n.py, render_context), so each screen is in its own viewer's language; these globals
    # serve macros, which see module globals rather than the render's context.
    env.newstyle_gettext = True  # type: ignore[attr-defined]
    env.globals.update(
        _=i18n.macro_underscore,
        gettext=i18n.macro_gettext,
        ngettext=i18n.macro_ngettext,
        number=i18n.macro_number,
    )
    env.filters.update(
        mmss=mmss,
        signed=signed,
        # In the rendering language (app/i18n.py): English words that come as data (range bands,
        # card kinds, sides, action and phase names), and scenario content. Context filters, so
        # that Jinja never folds them into a template in the language it was compiled in.
        known=pass_context(lambda _context, value: known(value)),
        content=pass_context(lambda _context, value: content(value)),
        # A content field's path as the editor's form labels it (app/web/editor_words.py).
        field=pass_context(lambda _context, path: field_words(path)),
        side=pass_context(lambda _context, value: side_name(value)),
        # One of the engine's own things by its id: `m|term("module")`.
        term=pass_context(lambda _context, value, kind: say(term(kind, value), i18n.words())),
        # The engine's messages (app/web/words.py), in the render's `translations`.
        say=say_filter,
        label=label_filter,
        short_name=short_name,
        short_names=pass_context(lambda _context, value, limit: short_names(value, limit)),
        # Soft hyphens in long words, for the rendering language (app/web/hyphens.py).
        hyphenate=pass_context(lambda _context, value: hyphenated(str(value))),
    )
    env.globals.update(
        status_words=STATUS_WORDS,
        role_icons=ROLE_ICONS,
        ship_of=ship_of,
        station_of=station_of,
        distance_of=distance_of,
        far=far,
        enemies_of=enemies_of,
        occupancy=occupancy,
        map_marks=map_marks,
        by_side=by_side,
        order_text=order_text,
        station_words=station_words,
        message_text=message_text,
        addressee=addressee,
        pilot_grid=pilot_grid,
        role_actions=ROLE_ACTIONS,
        cardless_actions=CARDLESS_ACTIONS,
        modules=MODULES,
        quiet_events=QUIET_EVENTS,
        weapon_dice_events=WEAPON_DICE_EVENTS,
        languages=i18n.LANGUAGES,
        name_most=CREW_NAME_LENGTH,  # the join form says it; the server refuses a longer name
    )
    # Macros as a global, not a per-template import: jinja2-fragments renders single blocks, and a
    # block never sees imports made at the top of its template.
    env.globals["ui"] = _Macros(env, "_ui.html")
    env.globals["weapons_ui"] = _Macros(env, "_weapons.html")
    env.globals["zone_ui"] = _Macros(env, "_zone_map.html")  # zone maps (G-ZONE-6)
    env.globals["gm_ui"] = _Macros(env, "_gm_ui.html")
    return env


class _Macros:
    """A template's macros. With auto_reload (BRIDGECREW_DEV) they are found afresh through the
    loader's cache on every call, so that an edited _ui.html is picked up like any other template;
    otherwise the module is loaded once and each macro looked up once (no stat() per call)."""

    def __init__(self, env: Environment, name: str) -> None:
        self._env = env
        self._name = name

    def __getattr__(self, macro: str) -> Any:
        found = getattr(self._env.get_template(self._name).module, macro)
        if not self._env.auto_reload:
            setattr(self, macro, found)  # found in __dict__ from now on: __getattr__ not called
        return found


environment = _environment()
_ENVIRONMENTS = {i18n.SOURCE: environment}


def environment_for(locale: str) -> Environment:
    """The environment whose templates have this language's fixed words in place."""
    locale = i18n.supported(locale) or i18n.SOURCE  # one per language offered, no more
    found = _ENVIRONMENTS.get(locale)
    if found is None:
        found = _ENVIRONMENTS[locale] = _environment(locale)
    return found
