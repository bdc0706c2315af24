"""The editor's words for the content's fields and the engine's options: a problem names its
field as the form labels it ("Zone 2 › Touches", not `map.zones[1].touches[0]`), and a picker
says what each option is ("Fragile systems", not `fragile`). The labels are the form's own
msgids (templates/_editor_*.html), so both read the same in every language."""

from __future__ import annotations

import re

from app.i18n import N_, spoken

# A field by its path with the rows' numbers taken out (`stations[].track.boxes`).
FIELDS: dict[str, str] = {
    "id": N_("Id"),
    "name": N_("Name"),
    "description": N_("Description"),
    # Ship classes
    "hull_size": N_("Hull size"),
    "defence": N_("Defence"),
    "systems": N_("Systems"),
    "hull.boxes": N_("Hull boxes"),
    "hull.red": N_("Red hull boxes"),
    "shields.boxes": N_("Shield boxes (0: none)"),
    "shields.red": N_("Red shield boxes"),
    "stations": N_("Stations"),
    "stations[].role": N_("Role"),
    "stations[].deck": N_("Deck"),
    "stations[].id": N_("Station id (when two share a role)"),
    "stations[].track.boxes": N_("Boxes (hand size)"),
    "stations[].track.red": N_("Red boxes"),
    "weapons": N_("Weapons"),
    "weapons[].id": N_("Id"),
    "weapons[].name": N_("Name"),
    "weapons[].damage": N_("Damage"),
    "weapons[].kind": N_("Kind"),
    "weapons[].max_range": N_("Reach"),
    "weapons[].magazine": N_("Magazine (torpedoes)"),
    # Decks and characters
    "role": N_("Role"),
    "prefix": N_("Card id prefix (optional; the deck's id if empty)"),
    "strength": N_("Strength"),
    "dexterity": N_("Dexterity"),
    "endurance": N_("Endurance"),
    "armour": N_("Armour"),
    "medicine": N_("Medicine"),
    "blurb": N_("Blurb"),
    "cards": N_("Cards"),
    "skill_cards": N_("Cards"),
    # Scenarios
    "modules": N_("Modules"),
    "settings": N_("Settings"),
    "settings.orders_seconds": N_("Seconds for orders"),
    "settings.allocation_seconds": N_("Seconds to allocate damage"),
    "settings.bonus_table": N_("Bonus table (empty: half the value, rounded up)"),
    "settings.map_width": N_("Grid width"),
    "settings.map_height": N_("Grid height"),
    "settings.zone_move_one": N_("Value to move one zone"),
    "settings.zone_move_two": N_("Value to move two zones"),
    "settings.cover_bonus": N_("Cover's Defending bonus"),
    "settings.hit_table": N_("Hit table"),
    "map": N_("Map"),
    "map.kind": N_("Map"),
    "map.zones": N_("Map"),
    "map.zones[].id": N_("Id"),
    "map.zones[].name": N_("Name"),
    "map.zones[].terrain": N_("Terrain"),
    "map.zones[].cost": N_("Cost to leave (1-3; not for open space)"),
    "map.zones[].cover": N_("Cover"),
    "map.zones[].x": N_("Across (0-100)"),
    "map.zones[].y": N_("Down (0-90)"),
    "map.zones[].touches": N_("Touches (both ways)"),
    "players_side": N_("Players' side (every screen draws its ships as the players')"),
    "ships": N_("Ships"),
    "ships[].id": N_("Id"),
    "ships[].name": N_("Name"),
    "ships[].ship_class": N_("Ship class"),
    "ships[].crew": N_("Crew"),
    "ships[].side": N_("Side (ships of one side fight together)"),
    "ships[].quality": N_("NPC crew quality"),
    "ships[].zone": N_("Zone"),
    "ships[].x": N_("Square across"),
    "ships[].y": N_("Square down"),
    "ships[].shields_active": N_("Shields up at the start"),
    "cues": N_("Cues"),
    "cues[].id": N_("Name"),
    "cues[].name": N_("Name"),
    "cues[].repeat": N_("Fires again each time"),
    "cues[].trigger": N_("When"),
    "cues[].actions": N_("What happens"),
    "translations": N_("Translations"),
    # Where no field can be named: the file as a whole
    "(syntax)": N_("The file"),
    "(whole)": N_("The file"),
    "(document)": N_("The file"),
    "(kind)": N_("The file"),
    "(zip)": N_("The file"),
    "(files)": N_("The files"),
    "(library)": N_("The library"),
}
# A row of a list, by the list's path: "Zone 2".
ROWS: dict[str, str] = {
    "stations": N_("Station %(n)s"),
    "weapons": N_("Weapon %(n)s"),
    "cards": N_("Card %(n)s"),
    "skill_cards": N_("Card %(n)s"),
    "map.zones": N_("Zone %(n)s"),
    "ships": N_("Ship %(n)s"),
    "cues": N_("Cue %(n)s"),
    "cues[].actions": N_("Action %(n)s"),
}
_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def field_words(path: str) -> str:
    """A field's path as the form names it, in the rendering language: each row it passes
    through by its number, then the field's label. A part the form has no label for is named
    as the file writes it."""
    parts: list[str] = []
    pattern = ""
    last_named = ""
    for name, index in _STEP.findall(path):
        if name:
            pattern = f"{pattern}.{name}" if pattern else name
            continue
        if pattern in ROWS:
            parts.append(spoken(ROWS[pattern]) % {"n": int(index) + 1})
            pattern += "[]"
            last_named = pattern
    rest = pattern.removeprefix(last_named + ".") if last_named else pattern
    # A part inside a labelled field (a cue's trigger's keys) is named by that field.
    while pattern not in FIELDS and "." in pattern and pattern != last_named:
        pattern = pattern.rpartition(".")[0]
    if pattern == last_named and parts:
        return " › ".join(parts)  # the row itself, or a part of it the form has no label for
    parts.append(spoken(FIELDS[pattern]) if pattern in FIELDS else rest)
    return " › ".join(parts)


# The pickers' options that are the engine's ids, each with what it means.
OPTIONS: dict[str, dict[str, str]] = {
    "systems": {
        "normal": N_("Normal systems"),
        "fragile": N_("Fragile systems (break sooner under Starmada damage)"),
        "reinforced": N_("Reinforced systems (last longer under Starmada damage)"),
    },
    "crews": {"players": N_("Players"), "npc": N_("NPC crew (the GM or the server plays it)")},
    "terrains": {
        "open": N_("Open space"),
        "difficult": N_("Difficult (costs value to leave)"),
        "hazardous": N_("Hazardous (costs value to leave, and hurts)"),
    },
    "map_kinds": {"grid": N_("Squares (a grid)"), "zones": N_("Zones (a zone map)")},
    # One word per weapon kind: the sheets spell the rail gun two ways.
    "weapon_kinds": {
        "cannon": N_("Cannon"),
        "grappler": N_("Grappler (pulls and holds, close reach)"),
        "laser": N_("Laser"),
        "pdc": N_("Point-defence cannons (shoot down torpedoes, close reach)"),
        "rail_gun": N_("Railgun (medium reach)"),
        "rocket": N_("Rockets"),
        "torpedo": N_("Torpedo launcher (magazine, long reach)"),
    },
}
OPTIONS.update(
    {
        "triggers": {
            "turn": N_("At the start of a turn"),
            "every": N_("Every few turns"),
            "phase": N_("As a phase begins"),
            "hull_at_most": N_("When a ship's Hull is down to"),
            "destroyed": N_("When a ship is destroyed"),
            "fled": N_("When a ship has fled"),
            "surrendered": N_("When a ship has surrendered"),
            "torpedo_strikes": N_("When a torpedo strikes"),
            "enters": N_("When a ship enters a zone"),
            "gm": N_("Only when the GM fires it"),
            "prop": N_("When a prop signals it"),
        },
        "actions": {
            "message": N_("Send a message"),
            "red_alert": N_("Red alert"),
            "add_ship": N_("Bring in a ship"),
            "npc": N_("Change an NPC crew"),
            "place": N_("Move a ship to a zone"),
            "end_combat": N_("End the combat"),
            "fire": N_("Fire another cue"),
            "sound": N_("Play a sound"),
        },
        "phases": {
            "orders": N_("Orders"),
            "allocation": N_("Damage allocation"),
            "turn_end": N_("End of turn"),
            "downtime": N_("Downtime"),
        },
        "sounds": {
            "alarm": N_("Alarm"),
            "chime": N_("Chime"),
            "red-alert": N_("Red alert"),
            "hit-players": N_("Hit on our side"),
            "hit-enemy": N_("Hit on the enemy"),
            "destroyed": N_("Ship destroyed"),
            "turn-start": N_("Turn's start"),
        },
    }
)
# The modules a scenario switches on, each with a line on what it does.
MODULE_WORDS: dict[str, tuple[str, str]] = {
    "weapons": (
        N_("Weapon kinds"),
        N_("Torpedoes with magazines, point defence, grapples and the kinds' own reach."),
    ),
    "starmada": (
        N_("Starmada damage"),
        N_("Hull damage wears the ship's systems down on a d6 chart; Engineering is not asked."),
    ),
    "syshit": (
        N_("System hits"),
        N_("Each hit on the Hull rolls a d20 on the hit table for the station it strikes."),
    ),
    "npc": (
        N_("NPC crews"),
        N_("Ships crewed by NPCs roll their Crew Quality, and can give their orders themselves."),
    ),
    "seats": (
        N_("Seat changes"),
        N_("Players move between stations and ships during the battle."),
    ),
}
# Kinds written other ways in older sheets, and the one the picker offers for them.
SAME_KIND = {"railgun": "rail_gun"}


def options(kind: str, ids: tuple[str, ...] | list[str]) -> list[tuple[str, str]]:
    """(id, label) for a picker of the engine's ids; an id without a label keeps its own."""
    words = OPTIONS.get(kind, {})
    return [(one, words.get(one, one)) for one in ids]
