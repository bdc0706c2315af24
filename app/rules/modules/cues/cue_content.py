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
from ...content.checks import ContentError, Problems, Table, duplicates
from ...content.zone_content import zone_names
from ...core.messages import message

# The phases a `phase` trigger may name (core/phases.py; `resolve` is never a resting phase).
PHASES = ("orders", "allocation", "turn_end", "downtime")
CUES_MAX = 40
MESSAGE_MAX = 280  # characters of a cue's message, as of the GM's own (SendMessage)
NAME_MAX = 60  # characters of the name of a ship a cue brings in
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
    """The scenario's `[[cues]]`, checked as far as its own file can be: every cue on its own,
    every action of a cue on its own, so that each problem is named at once."""
    entries = sheet.tables(
        "cues", required=("id", "name", "trigger", "actions"), optional=("repeat",), default=()
    )
    if len(entries) > CUES_MAX:
        sheet.report("cues", message("content_too_many_cues", most=CUES_MAX, count=len(entries)))
    ids = [entry.slug("id") for entry in entries]
    for first, later in duplicates(ids):
        entries[later].report("id", message("content_id_taken", id=ids[later], row=first + 1))
    # Each cue's name by id, for a problem naming the cues an action may fire.
    cue_names = {i: str(e.data.get("name") or i) for i, e in zip(ids, entries, strict=True)}
    read: list[tuple[Table, Cue]] = []
    for entry in entries:
        # A cue with a problem is left out of the checks of the whole: they would repeat it.
        before = len(sheet.problems.found)
        with sheet.problems.each():
            cue = _cue(entry, placed, cue_names, QUALITIES)
            if len(sheet.problems.found) == before:
                read.append((entry, cue))
    _check_new_ships(read, placed, SHIPS_MAX)
    _check_loops(read)
    return tuple(cue for _, cue in read)


def _one_kind(table: Table, kinds: Mapping[str, tuple[str, ...]], what: str) -> str:
    found = [key for key in table.data if key in kinds]
    if len(found) != 1:
        raise ContentError(
            table.file,
            table.path,
            message(
                "content_one_trigger_of" if what == "trigger" else "content_one_action_of",
                known=list(kinds),
            ),
        )
    return found[0]


def _cue(
    entry: Table, placed: Placed, cue_ids: Mapping[str, str], qualities: tuple[str, ...]
) -> Cue:
    cue_id = entry.slug("id")
    trigger = _trigger(entry, placed)
    repeat = entry.flag("repeat", default=False)
    if trigger["kind"] == "every":
        if entry.has("repeat") and not repeat:
            entry.report("repeat", message("content_every_repeats"))
        repeat = True
    actions = entry.tables(
        "actions", optional=tuple({k for a in ACTIONS.items() for k in (a[0], *a[1])})
    )
    if entry.has("actions") and not actions:
        entry.report("actions", message("content_cue_needs_action"))
    done = []
    for action in actions:
        with entry.problems.each():
            done.append(_action(action, placed, cue_ids, qualities))
    return Cue(cue_id, entry.text("name"), trigger, tuple(done), repeat)


def _ship(table: Table, key: str, placed: Placed) -> str:
    ship = table.slug(key)
    if ship not in placed.ships:
        names = [placed.titles.get(one, one) for one in placed.ships]
        raise table.error(key, message("content_unknown_ship", ship=ship, ships=names))
    return ship


def _zone(table: Table, key: str, placed: Placed) -> str:
    if placed.zone_map is None:
        raise table.error(key, message("content_no_zone_map"))
    zone = table.slug(key)
    known = placed.zone_map.by_id()
    if zone not in known:
        raise table.error(key, message("content_unknown_zone", zone=zone, zones=zone_names(known)))
    return zone


def _trigger(entry: Table, placed: Placed) -> dict[str, Any]:
    raw = entry.data.get("trigger")
    if not isinstance(raw, dict):
        raise entry.error("trigger", message("content_trigger_not_table"))
    path = entry.at("trigger")
    kind = _one_kind(entry.inner(raw, path, optional=(*TRIGGERS, "ship")), TRIGGERS, "trigger")
    table = entry.inner(raw, path, required=(kind,), optional=TRIGGERS[kind])
    if kind in ("turn", "every"):
        return {"kind": kind, "turns": table.integer(kind, low=1, high=99)}
    if kind == "phase":
        return {"kind": kind, "phase": table.choice(kind, PHASES)}
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
        raise table.error(kind, message("content_write_true"))
    return {"kind": kind}


def _action(
    table: Table, placed: Placed, cue_ids: Mapping[str, str], qualities: tuple[str, ...]
) -> dict[str, Any]:
    kind = _one_kind(table, ACTIONS, "action")
    table = table.inner(table.data, table.path, required=(kind,), optional=ACTIONS[kind])
    if kind == "message":
        text = table.text(kind)
        if len(text) > MESSAGE_MAX:
            table.report(kind, message("content_message_too_long", most=MESSAGE_MAX))
        to = table.text("to", default="all")
        if to != "all":
            ship = to.partition("/")[0]
            if ship not in placed.ships:
                raise table.error("to", message("content_message_to_unknown", ship=ship))
        return {"type": "SendMessage", "text": text, "to": to}
    if kind == "red_alert":
        return {"type": "SetRedAlert", "on": table.flag(kind)}
    if kind == "add_ship":
        return _add_ship(table, placed)
    if kind == "npc":
        ship = _ship(table, kind, placed)
        if placed.ships[ship] != "npc":
            named = placed.titles.get(ship, ship)
            raise table.error(kind, message("content_npc_of_players_ship", ship=named))
        if not (table.has("quality") or table.has("auto")):
            raise table.error(kind, message("content_npc_changes_nothing"))
        npc: dict[str, Any] = {"type": "SetNpc", "ship": ship}
        if table.has("quality"):
            npc["quality"] = table.choice("quality", qualities)
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
        return {"type": "PlaySound", "sound": table.choice(kind, SOUNDS)}
    if kind == "end_combat":
        if not table.flag(kind):
            raise table.error(kind, message("content_write_true"))
        return {"type": "EndCombat"}
    other = table.slug(kind)
    if other not in cue_ids:
        raise table.error(
            kind, message("content_unknown_cue", cue=other, cues=list(cue_ids.values()))
        )
    return {"type": "FireCue", "cue": other}


def _add_ship(table: Table, placed: Placed) -> dict[str, Any]:
    ship: dict[str, Any] = {
        "type": "AddShip",
        "ship_class": table.slug("add_ship"),
        "name": table.text("name"),
        "side": table.slug("side"),
        "crew": table.choice("crew", ("npc", "players"), default="npc"),
    }
    if len(ship["name"]) > NAME_MAX:
        table.report("name", message("content_name_too_long", most=NAME_MAX))
    if placed.zone_map is None:
        if table.has("zone"):
            table.report("zone", message("content_give_a_square"))
        for key, size in (("x", placed.width), ("y", placed.height)):
            value = table.integer(key)
            if table.has(key) and not 0 <= value < size:
                table.report(key, message("content_off_the_map", value=value, most=size - 1))
            ship[key] = value
    else:
        for key in ("x", "y"):
            if table.has(key):
                table.report(key, message("content_give_a_zone"))
        ship.update(x=0, y=0, zone=_zone(table, "zone", placed))
    return ship


def _check_new_ships(read: list[tuple[Table, Cue]], placed: Placed, ships_max: int) -> None:
    """Each ship a cue brings in is a new name, brought once: the game holds at most
    `ships_max` ships, and AddShip refuses a name already taken."""
    names = {name.casefold() for name in placed.names}
    count = len(placed.ships)
    for entry, cue in read:
        for index, action in enumerate(cue.actions):
            if action["type"] != "AddShip":
                continue
            where = f"actions[{index}].name"
            if cue.repeat:
                entry.report(where, message("content_repeating_cue_adds_ship"))
            elif action["name"].casefold() in names:
                entry.report(where, message("content_ship_name_taken", name=action["name"]))
            names.add(action["name"].casefold())
            count += 1
            if count > ships_max:
                entry.report(where, message("content_too_many_ships_added", most=ships_max))


def _check_loops(read: list[tuple[Table, Cue]]) -> None:
    """A cue that fires itself, directly or through others, would never end."""
    fires = {cue.id: [a["cue"] for a in cue.actions if a["type"] == "FireCue"] for _, cue in read}
    names = {cue.id: cue.name for _, cue in read}
    for entry, cue in read:
        path = _cycle(cue.id, fires, [])
        if path:  # said by the cues' names, as the organiser knows them
            loop = [names.get(one, one) for one in path]
            entry.report("actions", message("content_cue_loop", cues=loop))
        if cue.repeat and cue.trigger["kind"] == "enters":
            for action in cue.actions:
                if action["type"] == "PlaceInZone" and action["zone"] == cue.trigger["zone"]:
                    entry.report("actions", message("content_cue_fires_itself"))


def _cycle(start: str, fires: Mapping[str, list[str]], path: list[str]) -> list[str] | None:
    if start in path:
        return [*path[path.index(start) :], start]
    for other in fires.get(start, ()):
        found = _cycle(other, fires, [*path, start])
        if found:
            return found
    return None


def check_cue_references(
    source: str, cues: Iterable[Cue], classes: Mapping[str, Any], placed: Mapping[str, Any]
) -> None:
    """What other files define: the class of each ship a cue brings in, and each station a
    message is sent to (`placed`: the ships the scenario places, by id)."""
    problems = Problems()
    for index, cue in enumerate(cues):
        for number, action in enumerate(cue.actions):
            where = f"cues[{index}].actions[{number}]"
            if action["type"] == "AddShip" and action["ship_class"] not in classes:
                unknown = message(
                    "content_unknown_ship_class",
                    ship_class=action["ship_class"],
                    ship_classes=sorted(str(c.name) for c in classes.values()),
                )
                problems.add(ContentError(source, f"{where}.add_ship", unknown))
            if action["type"] == "SendMessage" and "/" in action["to"]:
                ship, _, station = action["to"].partition("/")
                stations = [s.id for s in classes[placed[ship].ship_class].stations]
                if station not in stations:
                    unknown = message(
                        "content_unknown_station",
                        station=station,
                        ship=placed[ship].name,
                        stations=stations,
                    )
                    problems.add(ContentError(source, f"{where}.to", unknown))
    problems.check()


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
