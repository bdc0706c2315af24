"""The editor's forms as item data and back: each field is named by its path in the item, as the
content checks name fields (`stations[1].track.boxes`), with how to read it after a `|`:

    int    a whole number (left as typed when it is not one, for the checks to name)
    ints   whole numbers separated by commas (red boxes, a bonus table)
    bool   a checkbox after a hidden "false": ticked sends "true" too
    list   the ticked boxes' values (zones a zone touches); a hidden empty value makes the list
    json   a part the form does not edit, kept as it was (a hit table, translations)

Anything else is text. An empty field is left out, so an optional one takes its default and a
required one is named by the checks. Rows are added and removed by the form's own buttons
(`add:<list>`, `remove:<list>[<n>]`), which change the data and show the form again.

A form is refused (a ServiceError) when it nests deeper than any item can (NESTING_MAX, paths and
`json` parts together) or names one field both as a value and as a group of fields (`name`
beside `name.x`, `ships[0]` beside `ships.x`).
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterable
from typing import Any

from app.i18n import LANGUAGES, N_, SOURCE, gettext
from app.i18n_content import TRANSLATABLE
from app.nesting import NESTING_MAX, TooDeep, depth, loads_json
from app.rules.core.messages import message
from app.rules.modules.cues.cue_content import ACTIONS as CUE_ACTIONS
from app.rules.modules.cues.cue_content import TRIGGERS as CUE_TRIGGERS
from app.service import ServiceError

Data = dict[str, Any]
_STEP = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")
# The form's own fields, and the command id static/js/app.js gives every htmx request.
NOT_ITEM = frozenset({"csrf", "action", "version", "command_id"})
ROWS_MAX = 200
# A new scenario's two sides, named in the organiser's language.
ALLIES = N_("Our side")
ENEMIES = N_("Their side")  # rows a form may name in one list: beyond any cap of the content


def _steps(path: str) -> list[str | int]:
    return [name if name else int(index) for name, index in _STEP.findall(path)]


def _too_deep() -> ServiceError:
    return ServiceError("TOO_DEEP", message("request_too_deep", most=NESTING_MAX))


def _value(kind: str, values: list[str]) -> Any:
    last = values[-1].strip() if values else ""
    if kind == "bool":
        return "true" in values
    if kind == "list":
        return [v for v in values if v]
    if kind == "int":
        return int(last) if re.fullmatch(r"-?\d{1,9}", last) else last
    if kind == "ints":
        parts = [p.strip() for p in last.split(",") if p.strip()]
        return [int(p) if re.fullmatch(r"-?\d{1,9}", p) else p for p in parts]
    if kind == "json":
        try:
            return loads_json(last)
        except TooDeep:
            raise _too_deep() from None
        except ValueError:
            return last
    return values[-1]


def data_from_form(pairs: Iterable[tuple[str, str]]) -> Data:
    """The item the form describes (see the module's words), without the form's own fields."""
    grouped: dict[str, list[str]] = {}
    for key, value in pairs:
        if key not in NOT_ITEM and not key.startswith("_"):
            grouped.setdefault(key, []).append(value)
    root: Data = {}
    for key, values in grouped.items():
        path, _, kind = key.partition("|")
        steps = _steps(path)
        if len(steps) > NESTING_MAX:
            raise _too_deep()
        value = _value(kind, values)
        if (
            value == ""
            or not steps
            or isinstance(steps[0], int)  # a row of nothing: no field of an item
            or any(isinstance(s, int) and s >= ROWS_MAX for s in steps)
        ):
            continue
        if len(steps) + depth(value) > NESTING_MAX:
            raise _too_deep()
        _put(root, steps, value, path)
    compacted: Data = _compact(root)
    return compacted


class _Rows(dict[int, Any]):
    """A list's rows as the form names them, by number: a removed row leaves a gap."""


def _put(root: Data, steps: list[str | int], value: Any, path: str) -> None:
    """The value at its path; a path through a value, or to a place another path has filled,
    is a form no item can be."""
    here: Any = root
    for step, following in itertools.pairwise(steps):
        fresh: Any = _Rows() if isinstance(following, int) else {}
        here = here.setdefault(step, fresh)
        if type(here) is not type(fresh):
            raise _clash(path)
    if steps[-1] in here:
        raise _clash(path)
    here[steps[-1]] = value


def _clash(path: str) -> ServiceError:
    return ServiceError("BAD_FORM", message("form_field_clash", field=path[:80]))


def _compact(node: Any) -> Any:
    """Rows become lists, in order."""
    if isinstance(node, _Rows):
        return [_compact(node[k]) for k in sorted(node)]
    if isinstance(node, dict):
        return {k: _compact(v) for k, v in node.items()}
    return node


def fresh_id(base: str, taken: Iterable[str]) -> str:
    used = set(taken)
    if base not in used:
        return base
    return next(f"{base}-{n}" for n in range(2, len(used) + 3) if f"{base}-{n}" not in used)


def _row(kind: str, list_path: str, data: Data) -> Data:
    """A new row for a list, filled in so it checks where it can."""
    count = len(_at(data, list_path) or [])
    n = count + 1
    if list_path == "stations":
        return {"role": "weapons", "deck": "weapons", "track": {"boxes": 4, "red": []}}
    if list_path == "weapons":
        return {"name": gettext(N_("Weapon %(n)s")) % {"n": n}, "damage": 1, "max_range": "close"}
    if list_path in ("cards", "skill_cards"):
        card_kind = "any" if list_path == "skill_cards" else _card_kind(data.get("role"))
        name = gettext(N_("Card %(n)s")) % {"n": n}
        return {"name": name, "value": 1, "kind": card_kind, "effect": "…", "copies": 1}
    if list_path == "map.zones":
        ids = [str(z.get("id")) for z in _at(data, "map.zones") or [] if isinstance(z, dict)]
        return {
            "id": fresh_id(f"zone-{n}", ids),
            "name": gettext(N_("Zone %(n)s")) % {"n": n},
            "terrain": "open",
            "x": min(10 + 18 * (count % 5), 100),
            "y": min(15 + 25 * (count // 5), 90),
            "touches": [],
        }
    if list_path == "cues":
        name = gettext(N_("Cue %(n)s")) % {"n": n}
        return {"name": name, "trigger": {"gm": True}, "actions": [{"red_alert": True}]}
    if list_path == "cues[].actions":
        return {"sound": "alarm"}
    # A ship of the scenario: in the map's first zone, or on a square.
    zones = _at(data, "map.zones") if _at(data, "map.kind") == "zones" else None
    ids = [str(s.get("id")) for s in _at(data, "ships") or [] if isinstance(s, dict)]
    where: Data = {"zone": zones[0].get("id", "")} if zones else {"x": n, "y": n}
    sides = [s.get("side") for s in _at(data, "ships") or [] if isinstance(s, dict)]
    return {
        "id": fresh_id(f"ship-{n}", ids),
        "name": gettext(N_("Ship %(n)s")) % {"n": n},
        "ship_class": "frigate",
        "crew": "players",
        "side": next((s for s in sides if isinstance(s, str) and s), slug_of(gettext(ALLIES))),
        **where,
        "shields_active": False,
    }


def _card_kind(role: Any) -> str:
    kinds = {
        "weapons": "attack",
        "engineering": "repair",
        "pilot": "helm",
        "comms": "ewar",
        "captain": "command",
    }
    return kinds.get(str(role), "any")


def _at(data: Any, path: str) -> Any:
    here = data
    for step in _steps(path):
        if isinstance(step, int):
            here = here[step] if isinstance(here, list) and step < len(here) else None
        else:
            here = here.get(step) if isinstance(here, dict) else None
    return here


def apply_action(kind: str, data: Data, action: str) -> Data:
    """`add:<list>` appends a new row, `remove:<list>[<n>]` takes one out, `up:<list>[<n>]`
    moves one a place up; the data is changed in place and returned. Anything else leaves it as
    it is."""
    verb, _, path = action.partition(":")
    if verb == "add" and _pattern(path) in ROWS:
        rows = _at(data, path)
        if not isinstance(rows, list):
            rows = []
            _put(data, _steps(path), rows, path)
        if len(rows) < ROWS_MAX:
            rows.append(_row(kind, _pattern(path), data))
    elif verb in ("remove", "up") and (found := re.fullmatch(r"(.+)\[(\d+)\]", path)):
        rows = _at(data, found.group(1))
        index = int(found.group(2))
        if _pattern(found.group(1)) in ROWS and isinstance(rows, list) and index < len(rows):
            if verb == "up":
                if index > 0:
                    rows[index - 1], rows[index] = rows[index], rows[index - 1]
                return data
            removed = rows.pop(index)
            if found.group(1) == "map.zones" and isinstance(removed, dict):
                _untouch(rows, removed.get("id"))
    return data


def _pattern(path: str) -> str:
    """A list's path with its rows' numbers taken out: `cues[2].actions` -> `cues[].actions`."""
    return re.sub(r"\[\d+\]", "[]", path)


def _untouch(zones: list[Any], zone_id: Any) -> None:
    """A removed zone leaves the touches of the zones it touched."""
    for zone in zones:
        if isinstance(zone, dict) and isinstance(zone.get("touches"), list):
            zone["touches"] = [t for t in zone["touches"] if t != zone_id]


ROWS = (
    "stations",
    "weapons",
    "cards",
    "skill_cards",
    "ships",
    "map.zones",
    "cues",
    "cues[].actions",
)


def blank(kind: str, taken: Iterable[str]) -> Data:
    """A new item to start from scratch, filled in so it checks."""
    new_id = fresh_id(f"new-{kind}", taken)
    if kind == "ship":
        return {
            "id": new_id,
            "name": gettext(N_("New ship class")),
            "hull_size": 10,
            "defence": 4,
            "systems": "normal",
            "hull": {"boxes": 10, "red": [5]},
            "shields": {"boxes": 0, "red": []},
            "stations": [
                {"role": "engineering", "deck": "engineering", "track": {"boxes": 5, "red": []}}
            ],
            "weapons": [],
        }
    if kind == "deck":
        name = gettext(N_("Card %(n)s")) % {"n": 1}
        card = {"name": name, "value": 1, "kind": "attack", "effect": "…", "copies": 6}
        return {"id": new_id, "name": gettext(N_("New deck")), "role": "weapons", "cards": [card]}
    if kind == "character":
        card = {"name": gettext(N_("Skill")), "value": 2, "kind": "any", "effect": "…", "copies": 2}
        return {
            "id": new_id,
            "name": gettext(N_("New character")),
            "strength": 8,
            "dexterity": 8,
            "endurance": 8,
            "skill_cards": [card],
        }
    zones = [
        {
            "id": f"zone-{n}",
            "name": gettext(N_("Zone %(n)s")) % {"n": n},
            "terrain": "open",
            "x": x,
            "y": 45,
            "touches": [],
        }
        for n, x in ((1, 20), (2, 80))
    ]
    zones[0]["touches"], zones[1]["touches"] = ["zone-2"], ["zone-1"]
    data: Data = {
        "id": new_id,
        "name": gettext(N_("New scenario")),
        "description": gettext(N_("A new battle.")),
        "map": {"kind": "zones", "zones": zones},
        "ships": [],
    }
    for side, zone, crew, ship_class in (
        (slug_of(gettext(ALLIES)), "zone-1", "players", "frigate"),
        (slug_of(gettext(ENEMIES)), "zone-2", "npc", "raider"),
    ):
        ship = _row(kind, "ships", data)
        data["ships"].append(
            {**ship, "side": side, "zone": zone, "crew": crew, "ship_class": ship_class}
        )
    return data


class Loose(dict[str, Any]):
    """An item for the form's template: a field it does not have reads as None (the form
    shows it empty) instead of failing the render, as the strict templates would."""

    def __getattr__(self, name: str) -> Any:
        return self.get(name)

    def __missing__(self, key: str) -> Any:
        return None


def loose(value: Any) -> Any:
    if isinstance(value, dict):
        return Loose({key: loose(item) for key, item in value.items()})
    if isinstance(value, list):
        return [loose(item) for item in value]
    return value


# --- Ids made from names --------------------------------------------------------------------------

_SPELLED = str.maketrans(
    {"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "Ä": "ae", "Ö": "oe", "Ü": "ue"}
)
ID_MAX = 60


def slug_of(name: Any) -> str:
    """An id from a name as typed: "Asteroidenfeld Süd" -> "asteroidenfeld-sued"."""
    text = unicodedata.normalize("NFKD", str(name).translate(_SPELLED))
    plain = "".join(char for char in text if not unicodedata.combining(char)).lower()
    return re.sub(r"[^a-z0-9]+", "-", plain).strip("-")[:ID_MAX].strip("-")


# Rows whose ids follow their names (the translations' key for them): a scenario refers to them
# by id, so a changed id is changed wherever the scenario names it.
NAMED_ROWS = {"map.zones": "zones", "ships": "ships", "cues": "cues"}
# Where a scenario's cues name a ship (the trigger's keys) or a zone (an action's `zone` too).
_SHIP_TRIGGERS = ("destroyed", "fled", "surrendered", "torpedo_strikes", "ship")
_SHIP_ACTIONS = ("npc", "place")


def settle_ids(kind: str, data: Data, taken: Iterable[str] | None) -> Data:
    """Ids made for the organiser from the names they type: the item's own while it is new
    (`taken`: the ids of its kind already in the library; None once it is saved), every zone's,
    ship's and cue's always, and a new weapon's. Changed in place and returned."""
    if taken is not None and isinstance(data.get("name"), str):
        data["id"] = fresh_id(slug_of(data["name"]) or f"new-{kind}", taken)
    for path, key in NAMED_ROWS.items():
        rows = _at(data, path)
        if not isinstance(rows, list):
            continue
        used: set[str] = set()
        changed: dict[str, str] = {}
        for number, row in enumerate(rows, 1):
            if not isinstance(row, dict):
                continue
            new = fresh_id(slug_of(row.get("name", "")) or f"{key[:-1]}-{number}", used)
            used.add(new)
            old = row.get("id")
            if isinstance(old, str) and old and old != new:
                changed.setdefault(old, new)
            row["id"] = new
        if changed:
            _follow(data, key, changed)
    for ship in data.get("ships") or [] if kind == "scenario" else []:
        if isinstance(ship, dict) and isinstance(ship.get("side"), str):
            ship["side"] = slug_of(ship["side"]) or ship["side"]
    zones = _at(data, "map.zones") if kind == "scenario" else None
    if isinstance(zones, list):
        _both_ways([z for z in zones if isinstance(z, dict)])
    _prune_translations(kind, data)
    found = data.get("weapons") if kind == "ship" else None
    weapons: list[Any] = found if isinstance(found, list) else []
    for number, row in enumerate(weapons, 1):
        if isinstance(row, dict) and not row.get("id"):
            ids = [str(w.get("id")) for w in weapons if isinstance(w, dict)]
            row["id"] = fresh_id(slug_of(row.get("name", "")) or f"weapon-{number}", ids)
    return data


_TRANSLATED = {
    "ship": "ship class",
    "deck": "deck",
    "character": "character",
    "scenario": "scenario",
}


def _prune_translations(kind: str, data: Data) -> None:
    """The translations of an entry the organiser took out (or renamed: cards are translated by
    their words) go with it, rather than refuse the item."""
    allowed = TRANSLATABLE.get(_TRANSLATED.get(kind, ""), {})
    tables = data.get("translations")
    for table in tables.values() if isinstance(tables, dict) else []:
        if not isinstance(table, dict):
            continue
        for field, entries in allowed.items():
            if entries is None or not isinstance(table.get(field), dict):
                continue
            rows = entries.of(data)
            table[field] = {key: words for key, words in table[field].items() if key in rows}
            if not table[field]:
                del table[field]


def _both_ways(zones: list[Data]) -> None:
    """A link is set once, on either zone: touching goes both ways (G-ZONE-1), so each zone a
    zone touches touches it too. The form offers each link on the first of its two zones."""
    by_id = {z.get("id"): z for z in zones}
    for zone in zones:
        zone.setdefault("touches", [])
    for zone in zones:
        for other in zone.get("touches") or [] if isinstance(zone.get("touches"), list) else []:
            found = by_id.get(other)
            if found is None or found is zone:
                continue
            touches = found.setdefault("touches", [])
            if isinstance(touches, list) and zone.get("id") not in touches:
                touches.append(zone.get("id"))


def _follow(data: Data, key: str, changed: dict[str, str]) -> None:
    """Every place the scenario names a zone, ship or cue whose id changed, changed too."""

    def swap(value: Any) -> Any:
        return changed.get(value, value) if isinstance(value, str) else value

    zones = _at(data, "map.zones") if key == "zones" else None
    for zone in zones if isinstance(zones, list) else []:
        if isinstance(zone, dict) and isinstance(zone.get("touches"), list):
            zone["touches"] = [swap(t) for t in zone["touches"]]
    for ship in data.get("ships") or [] if key == "zones" else []:
        if isinstance(ship, dict) and "zone" in ship:
            ship["zone"] = swap(ship["zone"])
    for cue in data.get("cues") or []:
        if not isinstance(cue, dict):
            continue
        trigger = cue.get("trigger")
        if isinstance(trigger, dict):
            names = {"zones": ("enters",), "ships": _SHIP_TRIGGERS}.get(key, ())
            trigger.update({k: swap(v) for k, v in trigger.items() if k in names})
        for action in cue.get("actions") or []:
            if isinstance(action, dict):
                _follow_action(action, key, swap)
    for words in (data.get("translations") or {}).values():
        table = words.get(key) if isinstance(words, dict) else None
        if isinstance(table, dict):
            words[key] = {swap(k): v for k, v in table.items()}


def _follow_action(action: Data, key: str, swap: Any) -> None:
    if key == "zones" and "zone" in action:
        action["zone"] = swap(action["zone"])
    elif key == "cues" and "fire" in action:
        action["fire"] = swap(action["fire"])
    elif key == "ships":
        for name in _SHIP_ACTIONS:
            if name in action:
                action[name] = swap(action[name])
        if isinstance(action.get("to"), str):
            ship, slash, station = action["to"].partition("/")
            action["to"] = f"{swap(ship)}{slash}{station}"


# --- Cues in the form -----------------------------------------------------------------------------
# The form gives each cue's trigger and each action as a kind, a value and the kind's other fields
# (`cues[0].trigger.kind = "turn"`, `cues[0].trigger.value|int = 3`); the file writes the kind as
# the key (`trigger = { turn = 3 }`). `was` is the kind the form showed: a kind chosen anew starts
# from a value that fits it, rather than the old kind's.

TRIGGER_KINDS = tuple(CUE_TRIGGERS)
ACTION_KINDS = tuple(CUE_ACTIONS)
_TRUE_KINDS = ("gm", "prop", "end_combat")


def cue_parts(data: Data) -> list[Data]:
    """Each cue of the scenario as the form shows it: the trigger's and each action's kind and
    value apart from its other fields."""
    shown: list[Data] = []
    for cue in data.get("cues") or []:
        if not isinstance(cue, dict):
            continue
        found = cue.get("trigger")
        trigger: Data = found if isinstance(found, dict) else {}
        kind = next((k for k in TRIGGER_KINDS if k in trigger and k != "ship"), "")
        actions = []
        for action in cue.get("actions") or []:
            if isinstance(action, dict):
                done = next((k for k in ACTION_KINDS if k in action), "")
                actions.append({**action, "kind": done, "value": action.get(done)})
        shown.append(
            {
                **cue,
                "trigger": {**trigger, "kind": kind, "value": trigger.get(kind)},
                "actions": actions,
            }
        )
    return shown


def cues_from_form(data: Data) -> Data:
    """The cues as the file writes them, from the form's kinds and values. Changed in place."""
    cues = data.get("cues")
    for cue in cues if isinstance(cues, list) else []:
        if not isinstance(cue, dict):
            continue
        trigger = cue.get("trigger")
        if isinstance(trigger, dict) and "kind" in trigger:
            cue["trigger"] = _keyed(trigger, _trigger_start(str(trigger["kind"]), data))
        if "every" in cue["trigger"] and cue.get("repeat") is False:
            del cue["repeat"]  # a cue every few turns repeats: the box has nothing to say
        actions = cue.get("actions")
        if isinstance(actions, list):
            cue["actions"] = [
                _keyed(a, _action_start(str(a["kind"]), data))
                if isinstance(a, dict) and "kind" in a
                else a
                for a in actions
            ]
    return data


def _keyed(part: Data, start: Data) -> Data:
    kind = str(part.pop("kind"))
    was = part.pop("was", kind)
    value = part.pop("value", None)
    if was != kind or kind not in start:  # a kind chosen anew
        return start
    if kind in _TRUE_KINDS:
        value = True
    return {kind: value, **part} if value is not None else {kind: "", **part}


def _first(data: Data, path: str, default: str = "") -> str:
    rows = _at(data, path)
    ids = [str(row.get("id")) for row in rows or [] if isinstance(row, dict)]
    return ids[0] if ids else default


def _trigger_start(kind: str, data: Data) -> Data:
    """A new trigger of a kind, filled in so it checks where it can."""
    ship, zone = _first(data, "ships"), _first(data, "map.zones")
    starts: dict[str, Data] = {
        "turn": {"turn": 2},
        "every": {"every": 2},
        "phase": {"phase": "orders"},
        "hull_at_most": {"hull_at_most": 3, "ship": ship},
        "destroyed": {"destroyed": ship},
        "fled": {"fled": ship},
        "surrendered": {"surrendered": ship},
        "torpedo_strikes": {"torpedo_strikes": "any"},
        "enters": {"enters": zone},
        "gm": {"gm": True},
        "prop": {"prop": True},
    }
    return starts.get(kind, {"gm": True})


def _action_start(kind: str, data: Data) -> Data:
    """A new action of a kind, filled in so it checks where it can."""
    ship, zone = _first(data, "ships"), _first(data, "map.zones")
    ships = [s for s in data.get("ships") or [] if isinstance(s, dict)]
    npc = next((str(s.get("id")) for s in ships if s.get("crew") == "npc"), ship)
    sides = [str(s.get("side")) for s in ships]
    where: Data = {"zone": zone} if zone and _at(data, "map.kind") == "zones" else {"x": 0, "y": 0}
    starts: dict[str, Data] = {
        "message": {"message": gettext(N_("A message to the crews.")), "to": "all"},
        "red_alert": {"red_alert": True},
        "add_ship": {
            "add_ship": "raider",
            "name": gettext(N_("Newcomer")),
            "side": sides[-1] if sides else "",
            **where,
            "crew": "npc",
        },
        "npc": {"npc": npc, "auto": True},
        "place": {"place": ship, "zone": zone},
        "end_combat": {"end_combat": True},
        "fire": {"fire": _first(data, "cues")},
        "sound": {"sound": "alarm"},
    }
    return starts.get(kind, {"red_alert": True})


# --- Translations beside the fields ---------------------------------------------------------------
# Each translatable field has an input per language beside it, named `_tr.<language>.<path>`
# (`_tr.de.name`, `_tr.de.weapons[1].name`): the file keeps them under `[translations]`, by the
# entry's id (or, for cards, its words), which the form reads from the row as it is sent.

TRANSLATED_LANGUAGES = tuple(code for code in LANGUAGES if code != SOURCE)
_TR = re.compile(r"_tr\.([A-Za-z_]+)\.(.+)")


def _translatable(kind: str) -> dict[str, Any]:
    return dict(TRANSLATABLE.get(_TRANSLATED.get(kind, ""), {}))


def translations_from_form(kind: str, data: Data, pairs: Iterable[tuple[str, str]]) -> Data:
    """The item's translations as typed beside its fields; none typed, none kept."""
    allowed = _translatable(kind)
    found: Data = {}
    for key, value in pairs:
        match = _TR.fullmatch(key)
        if match is None or not value.strip() or match[1] not in TRANSLATED_LANGUAGES:
            continue
        language, path = match.groups()
        words = found.setdefault(language, {})
        if path in allowed and allowed[path] is None:
            words[path] = value
            continue
        for field, entries in allowed.items():
            at = ".".join(entries.path) if entries is not None else ""
            row_of = re.fullmatch(re.escape(at) + r"\[(\d+)\]\.(\w+)", path) if at else None
            row = _at(data, f"{at}[{row_of[1]}]") if row_of else None
            if row_of and isinstance(row, dict) and row.get(entries.key):
                entry = words.setdefault(field, {}).setdefault(str(row[entries.key]), {})
                entry[row_of[2]] = value
    kept = {language: words for language, words in found.items() if words}
    if kept:
        data["translations"] = kept
    else:
        data.pop("translations", None)
    return data


def translations_shown(kind: str, data: Data) -> dict[str, dict[str, str]]:
    """{language: {form path: translation}}: what the inputs beside the fields show."""
    allowed = _translatable(kind)
    shown: dict[str, dict[str, str]] = {}
    tables = data.get("translations")
    for language in TRANSLATED_LANGUAGES:
        words = tables.get(language) if isinstance(tables, dict) else None
        words = words if isinstance(words, dict) else {}
        here = shown.setdefault(language, {})
        for field, entries in allowed.items():
            if entries is None:
                if isinstance(words.get(field), str):
                    here[field] = words[field]
                continue
            found = words.get(field)
            table: Data = found if isinstance(found, dict) else {}
            at = ".".join(entries.path)
            for index, row in enumerate(_at(data, at) or []):
                said = table.get(str(row.get(entries.key))) if isinstance(row, dict) else None
                for name, text in (said or {}).items():
                    here[f"{at}[{index}].{name}"] = str(text)
    return shown
