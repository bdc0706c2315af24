"""A scenario's cues (module cues): each a trigger and the commands it gives when it fires.

A cue is read from `[[cues]]` into plain data the engine runs as it is: its trigger
(`{"kind": "turn", "turn": 3}`) and its actions, each the JSON of one command
(`{"type": "AddShip", ...}`), so a fired cue goes through the same handlers as the GM's own
commands. What one file can check is checked here; ship classes and stations, which other files
define, in `check_cue_references`. Every error names the file and the field.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ...content import QUALITIES, SHIPS_MAX, SOUNDS, Placed
from ...content.checks import ContentError, Table, first_duplicate

# The phases a `phase` trigger may name (core/phases.py; `resolve` is never a resting phase).
PHASES = ("orders", "allocation", "turn_end", "downtime")
CUES_MAX = 40
# One key of a trigger table names its kind; the others it may carry.
TRIGGERS: dict[str, tuple[str, ...]] = {
    "turn": (),
    "every": (),
    "phase": (),
    "hull_at_most": ("ship",),
    "destroyed": (),
    "fled": (),
    "surrendered": (),
    "torpedo_strikes": (),
    "enters": ("ship",),
    "gm": (),
    "prop": (),
}
# Likewise for an action, by its first key.
ACTIONS: dict[str, tuple[str, ...]] = {
    "message": ("to",),
    "red_alert": (),
    "add_ship": ("name", "side", "x", "y", "zone", "crew"),
    "npc": ("quality", "auto"),
    "place": ("zone",),
    "end_combat": (),
    "fire": (),
    "sound": (),
}


@dataclass(frozen=True)
class Cue:
    id: str
    name: str
    trigger: Mapping[str, Any]
    actions: tuple[Mapping[str, Any], ...]
    repeat: bool


def parse_cues(sheet: Table, placed: Placed) -> tuple[Cue, ...]:
    """The scenario's `[[cues]]`, checked as far as its own file can be."""
    entries = sheet.tables(
        "cues", required=("id", "name", "trigger", "actions"), optional=("repeat",), default=()
    )
    if len(entries) > CUES_MAX:
        raise sheet.error("cues", f"a scenario holds at most {CUES_MAX} cues, found {len(entries)}")
    ids = [entry.slug("id") for entry in entries]
    duplicate = first_duplicate(ids)
    if duplicate:
        raise entries[duplicate[1]].error(
            "id", f"cue id {ids[duplicate[1]]!r} is already used by cues[{duplicate[0]}]"
        )
    cues = tuple(_cue(entry, placed, set(ids), QUALITIES) for entry in entries)
    _check_new_ships(sheet, entries, cues, placed, SHIPS_MAX)
    _check_loops(sheet, cues)
    return cues


def _one_kind(table: Table, kinds: Mapping[str, tuple[str, ...]], what: str) -> str:
    found = [key for key in table.data if key in kinds]
    if len(found) != 1:
        raise ContentError(
            table.file,
            table.path,
            f"names one {what} of: {', '.join(kinds)}"
            + (f"; found {', '.join(found)}" if found else ""),
        )
    return found[0]


def _cue(entry: Table, placed: Placed, cue_ids: set[str], qualities: tuple[str, ...]) -> Cue:
    cue_id = entry.slug("id")
    trigger = _trigger(entry, placed)
    repeat = entry.flag("repeat", default=False)
    if trigger["kind"] == "every":
        if entry.has("repeat") and not repeat:
            raise entry.error("repeat", "a cue that fires every few turns repeats")
        repeat = True
    actions = entry.tables(
        "actions", optional=tuple({k for a in ACTIONS.items() for k in (a[0], *a[1])})
    )
    if not actions:
        raise entry.error("actions", "a cue needs at least one action")
    return Cue(
        cue_id,
        entry.text("name"),
        trigger,
        tuple(_action(action, placed, cue_ids, qualities) for action in actions),
        repeat,
    )


def _ship(table: Table, key: str, placed: Placed) -> str:
    ship = table.slug(key)
    if ship not in placed.ships:
        raise table.error(
            key, f"unknown ship {ship!r}; the scenario's ships: {', '.join(placed.ships)}"
        )
    return ship


def _zone(table: Table, key: str, placed: Placed) -> str:
    if placed.zone_map is None:
        raise table.error(key, "this scenario has no zone map")
    zone = table.slug(key)
    known = placed.zone_map.by_id()
    if zone not in known:
        raise table.error(key, f"unknown zone {zone!r}; known zones: {', '.join(known)}")
    return zone


def _trigger(entry: Table, placed: Placed) -> dict[str, Any]:
    raw = entry.data["trigger"]
    if not isinstance(raw, dict):
        raise entry.error("trigger", "must be a table, such as { turn = 3 }")
    kind = _one_kind(
        Table(raw, entry.file, entry.at("trigger"), optional=(*TRIGGERS, "ship")),
        TRIGGERS,
        "trigger",
    )
    table = Table(raw, entry.file, entry.at("trigger"), required=(kind,), optional=TRIGGERS[kind])
    if kind in ("turn", "every"):
        return {"kind": kind, "turns": table.integer(kind, low=1, high=99)}
    if kind == "phase":
        return {"kind": kind, "phase": table.choice(kind, PHASES, "phase")}
    if kind == "hull_at_most":
        return {
            "kind": "hull",
            "at_most": table.integer(kind, low=0, high=60),
            "ship": _ship(table, "ship", placed),
        }
    if kind in ("destroyed", "fled", "surrendered"):
        return {"kind": kind, "ship": _ship(table, kind, placed)}
    if kind == "torpedo_strikes":
        target = table.slug(kind)
        return {"kind": "torpedo", "ship": None if target == "any" else _ship(table, kind, placed)}
    if kind == "enters":
        ship = _ship(table, "ship", placed) if table.has("ship") else None
        return {"kind": kind, "zone": _zone(table, kind, placed), "ship": ship}
    if not table.flag(kind):  # gm, prop: only FireCue fires them
        raise table.error(kind, "write it as true")
    return {"kind": kind}


def _action(
    table: Table, placed: Placed, cue_ids: set[str], qualities: tuple[str, ...]
) -> dict[str, Any]:
    kind = _one_kind(table, ACTIONS, "action")
    table = Table(table.data, table.file, table.path, required=(kind,), optional=ACTIONS[kind])
    if kind == "message":
        text = table.text(kind)
        if len(text) > 280:
            raise table.error(kind, "a message holds at most 280 characters")
        to = table.text("to", default="all")
        if to != "all":
            ship = to.partition("/")[0]
            if ship not in placed.ships:
                raise table.error("to", f"unknown ship {ship!r}; write all, a ship or ship/station")
        return {"type": "SendMessage", "text": text, "to": to}
    if kind == "red_alert":
        return {"type": "SetRedAlert", "on": table.flag(kind)}
    if kind == "add_ship":
        return _add_ship(table, placed)
    if kind == "npc":
        ship = _ship(table, kind, placed)
        if placed.ships[ship] != "npc":
            raise table.error(kind, f"{ship!r} has a players' crew, not an NPC one")
        if not (table.has("quality") or table.has("auto")):
            raise table.error(kind, "set quality, auto or both")
        npc: dict[str, Any] = {"type": "SetNpc", "ship": ship}
        if table.has("quality"):
            npc["quality"] = table.choice("quality", qualities, "crew quality")
        if table.has("auto"):
            npc["auto"] = table.flag("auto")
        return npc
    if kind == "place":
        return {
            "type": "PlaceInZone",
            "ship": _ship(table, kind, placed),
            "zone": _zone(table, "zone", placed),
        }
    if kind == "sound":
        return {"type": "PlaySound", "sound": table.choice(kind, SOUNDS, "sound")}
    if kind == "end_combat":
        if not table.flag(kind):
            raise table.error(kind, "write it as true")
        return {"type": "EndCombat"}
    other = table.slug(kind)
    if other not in cue_ids:
        raise table.error(
            kind, f"unknown cue {other!r}; this scenario's cues: {', '.join(sorted(cue_ids))}"
        )
    return {"type": "FireCue", "cue": other}


def _add_ship(table: Table, placed: Placed) -> dict[str, Any]:
    ship: dict[str, Any] = {
        "type": "AddShip",
        "ship_class": table.slug("add_ship"),
        "name": table.text("name"),
        "side": table.slug("side"),
        "crew": table.choice("crew", ("npc", "players"), "crew", default="npc"),
    }
    if len(ship["name"]) > 60:
        raise table.error("name", "a ship's name holds at most 60 characters")
    if placed.zone_map is None:
        if table.has("zone"):
            raise table.error("zone", "this scenario fights on squares: give x and y")
        for key, size, size_name in (
            ("x", placed.width, "map_width"),
            ("y", placed.height, "map_height"),
        ):
            value = table.integer(key)
            if not 0 <= value < size:
                raise table.error(
                    key, f"{value} is outside the map (0 to {size - 1}, settings.{size_name})"
                )
            ship[key] = value
    else:
        for key in ("x", "y"):
            if table.has(key):
                raise table.error(key, "this scenario has a zone map: give zone")
        ship.update(x=0, y=0, zone=_zone(table, "zone", placed))
    return ship


def _check_new_ships(
    sheet: Table, entries: list[Table], cues: tuple[Cue, ...], placed: Placed, ships_max: int
) -> None:
    """Each ship a cue brings in is a new name, brought once: the game holds at most
    `ships_max` ships, and AddShip refuses a name already taken."""
    names = {name.casefold() for name in placed.names}
    count = len(placed.ships)
    for entry, cue in zip(entries, cues, strict=True):
        for index, action in enumerate(cue.actions):
            if action["type"] != "AddShip":
                continue
            where = f"actions[{index}].name"
            if cue.repeat:
                raise entry.error(where, "a repeating cue cannot bring in the same ship twice")
            if action["name"].casefold() in names:
                raise entry.error(where, f"a ship called {action['name']!r} is already in the game")
            names.add(action["name"].casefold())
            count += 1
            if count > ships_max:
                raise entry.error(where, f"a battle holds at most {ships_max} ships")


def _check_loops(sheet: Table, cues: tuple[Cue, ...]) -> None:
    """A cue that fires itself, directly or through others, would never end."""
    fires = {cue.id: [a["cue"] for a in cue.actions if a["type"] == "FireCue"] for cue in cues}
    for index, cue in enumerate(cues):
        path = _cycle(cue.id, fires, [])
        if path:
            raise sheet.error(
                f"cues[{index}].actions", f"fires itself in a loop: {' -> '.join(path)}"
            )
        if cue.repeat and cue.trigger["kind"] == "enters":
            for action in cue.actions:
                if action["type"] == "PlaceInZone" and action["zone"] == cue.trigger["zone"]:
                    raise sheet.error(
                        f"cues[{index}].actions",
                        "a repeating cue that places a ship in the zone it watches fires itself",
                    )


def _cycle(start: str, fires: Mapping[str, list[str]], path: list[str]) -> list[str] | None:
    if start in path:
        return [*path[path.index(start) :], start]
    for other in fires.get(start, ()):
        found = _cycle(other, fires, [*path, start])
        if found:
            return found
    return None


def check_cue_references(
    source: str, cues: Iterable[Cue], classes: Mapping[str, Any], ship_classes: Mapping[str, str]
) -> None:
    """What other files define: the class of each ship a cue brings in, and each station a
    message is sent to (`ship_classes`: the class of each ship the scenario places)."""
    for index, cue in enumerate(cues):
        for number, action in enumerate(cue.actions):
            where = f"cues[{index}].actions[{number}]"
            if action["type"] == "AddShip" and action["ship_class"] not in classes:
                known = ", ".join(sorted(classes)) or "(none)"
                raise ContentError(
                    source,
                    f"{where}.add_ship",
                    f"unknown ship class {action['ship_class']!r}; known classes: {known}",
                )
            if action["type"] == "SendMessage" and "/" in action["to"]:
                ship, _, station = action["to"].partition("/")
                stations = [s.id for s in classes[ship_classes[ship]].stations]
                if station not in stations:
                    raise ContentError(
                        source,
                        f"{where}.to",
                        f"unknown station {station!r} on {ship!r}; its stations: "
                        f"{', '.join(stations)}",
                    )


def cue_state(cues: Iterable[Cue]) -> list[dict[str, Any]]:
    """The cues as a game keeps them, in the scenario's order, each armed."""
    return [
        {
            "id": cue.id,
            "name": cue.name,
            "trigger": dict(cue.trigger),
            "actions": [dict(action) for action in cue.actions],
            "repeat": cue.repeat,
            "status": "armed",  # armed | fired | skipped | failed
            "fired": 0,
            "met": None,  # whether its condition held at the last look (None: not looked yet)
        }
        for cue in cues
    ]
