"""Scenario content as frozen data (ship classes, station decks, characters, scenarios) and the
strict parsers that build it from plain dicts, so a GM's typo fails at load time, not mid-game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.messages import message
from .checks import ContentError as ContentError  # part of this module's interface
from .checks import ContentErrors as ContentErrors
from .checks import (
    Problems,
    Table,
    check_hit_table,
    duplicates,
    field_path,
    index_by_id,
)
from .zone_content import ZoneMap, parse_map, zone_names


@dataclass(frozen=True)
class RangeBand:
    id: str
    label: str  # its name's id (`band.<label>` in app/web/words.py): a zone map names its own
    min_squares: int
    max_squares: int
    to_hit: int


ROLES = ("weapons", "engineering", "pilot", "comms", "captain")
# attack=Weapons attack, helm=Pilot manoeuvre or evasive, ewar=Comms lock or jam,
# repair=Engineering repair, command=Captain command, medicine=first aid only (never an order),
# any=wild.
CARD_KINDS = ("attack", "helm", "ewar", "repair", "command", "medicine", "any")
ROLE_CARD_KIND = {
    "weapons": "attack",
    "engineering": "repair",
    "pilot": "helm",
    "comms": "ewar",
    "captain": "command",
}
# rule: G-HIT-2 (the source overlaps Close and Medium at 4 squares; 4 is Close here)
RANGE_BANDS = (
    RangeBand("point_blank", "point_blank", 0, 2, 1),
    RangeBand("close", "close", 3, 4, 2),
    RangeBand("medium", "medium", 5, 5, 3),
    RangeBand("long", "long", 6, 8, 5),
    RangeBand("very_long", "very_long", 9, 9, 7),
)
# The switches a scenario's [modules] table (and the GM's SetModule) may set: each switchable
# module adds its own as it registers (core/hooks.py), so no module is named here.
MODULES: list[str] = []
# rule: M-WEAPONS-1: a weapon kind's reach, used when its sheet gives no max_range.
KIND_REACH = {"grappler": "close", "pdc": "close", "rail_gun": "medium", "torpedo": "long"}
MAGAZINE_DEFAULT = 4  # rule: M-WEAPONS-6: torpedoes a launcher holds unless its sheet says
SYSTEMS = ("normal", "fragile", "reinforced")
CREWS = ("players", "npc")
# M-NPC-1: an NPC ship's Crew Quality, lowest first; its rating is its place here + 1.
QUALITIES = ("basic", "proficient", "talented", "exceptional")
CARD_VALUE_MAX = 9
# Ships in one game, whether a scenario places them or the GM adds them: as many as the projector
# shows side by side (two columns of four), which also bounds what every view carries.
SHIPS_MAX = 8
# The projector's sounds (static/js/sound.js draws each): those it plays by itself as the game
# changes, and two that only the GM or a cue plays (PlaySound).
SOUNDS = ("alarm", "chime", "red-alert", "hit-players", "hit-enemy", "destroyed", "turn-start")


def range_band_for(distance: int) -> RangeBand | None:
    """The band for a distance in squares; None when out of range (beyond 9)."""
    if distance < 0:
        raise ValueError(f"distance cannot be negative: {distance}")
    for band in RANGE_BANDS:
        if band.min_squares <= distance <= band.max_squares:
            return band
    return None


def band_index(band_id: str) -> int:
    for index, band in enumerate(RANGE_BANDS):
        if band.id == band_id:
            return index
    raise ValueError(f"unknown range band {band_id!r}")


@dataclass(frozen=True)
class Card:
    id: str
    name: str
    value: int
    kind: str
    effect: str
    source: str  # "station" or "skill"


@dataclass(frozen=True)
class Deck:
    id: str
    name: str
    role: str
    cards: tuple[Card, ...]
    source: str = field(default="", compare=False)  # file it came from, for cross-check errors


@dataclass(frozen=True)
class Track:
    boxes: int
    red: tuple[int, ...]  # 1-based numbers of the red boxes, sorted


@dataclass(frozen=True)
class Weapon:
    id: str
    name: str
    damage: int
    max_range: str
    kind: str | None
    magazine: int | None = None  # torpedo launchers only (M-WEAPONS-6)


@dataclass(frozen=True)
class StationSpec:
    id: str
    role: str
    track: Track
    deck: str


@dataclass(frozen=True)
class ShipClass:
    id: str
    name: str
    hull_size: int
    defence: int
    systems: str
    hull: Track
    shields: Track  # 0 boxes = no shield generator
    stations: tuple[StationSpec, ...]
    weapons: tuple[Weapon, ...]
    source: str = field(default="", compare=False)


@dataclass(frozen=True)
class Character:
    id: str
    name: str
    strength: int
    dexterity: int
    endurance: int
    armour: int
    medicine: int
    skill_cards: tuple[Card, ...]
    blurb: str
    source: str = field(default="", compare=False)


@dataclass(frozen=True)
class ShipPlacement:
    id: str
    name: str
    ship_class: str
    crew: str  # "players" | "npc"
    side: str
    x: int
    y: int
    shields_active: bool
    zone: str | None = None  # on a zone map (G-ZONE-1), where it stands; x and y are then 0
    quality: str = "proficient"


@dataclass(frozen=True)
class ScenarioSettings:
    orders_seconds: int = 60
    allocation_seconds: int = 20
    bonus_table: tuple[int, ...] = ()  # index = action value; empty = ceil(value / 2)
    close_when_all_ready: bool = True
    map_width: int = 16
    map_height: int = 10
    # M-SYSHIT: d20 low, high, what is hit
    hit_table: tuple[tuple[int, int, str], ...] = (
        (1, 1, "comms"),
        (2, 2, "engineering"),
        (3, 6, "pilot"),
        (7, 9, "comms"),
        (10, 17, "hull"),
        (18, 20, "weapons"),
    )
    # G-ZONE-3, G-ZONE-5: the action value to move one or two zones, and cover's Defending bonus
    zone_move_one: int = 3
    zone_move_two: int = 6
    cover_bonus: int = 2


@dataclass(frozen=True)
class Scenario:
    id: str
    name: str
    description: str
    ships: tuple[ShipPlacement, ...]
    modules: frozenset[str]
    settings: ScenarioSettings
    source: str
    zone_map: ZoneMap | None = None  # None: the grid of G-MAP-1
    # The side the players crew, as the scenario names it; None: the engine finds it (G-SHIP-1).
    players_side: str | None = None
    # What each switchable module's own tables of this scenario hold, by key (SECTIONS).
    sections: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Placed:
    """What a module's table may name of the scenario's ships: ids, names, crews and the map."""

    ships: Mapping[str, str]  # id -> crew
    names: frozenset[str]
    width: int
    height: int
    zone_map: ZoneMap | None
    # id -> name: a problem names a ship the scenario has as the organiser does.
    titles: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Section:
    """A table of scenario files that a switchable module reads, and checks."""

    # (the scenario's sheet, what it places): the table as the game keeps it, checked as far as
    # the scenario's own file can be (absent: the module's "none").
    read: Callable[[Table, Placed], Any]
    # (the scenario's file, what `read` made, the catalogue's ship classes, the ships the scenario
    # places by id): checked against what other files define.
    check: Callable[[str, Any, Mapping[str, ShipClass], Mapping[str, ShipPlacement]], None]


# The tables a scenario may hold besides the core's: each module registers its own
# (core/hooks.py), so no module's table is named here.
SECTIONS: dict[str, Section] = {}


@dataclass(frozen=True)
class Catalogue:
    ships: Mapping[str, ShipClass]
    decks: Mapping[str, Deck]
    characters: Mapping[str, Character]
    scenarios: Mapping[str, Scenario]

    def cards(self) -> dict[str, Card]:
        """Every card of every Station and Skill deck by its (globally unique) id."""
        found = {card.id: card for deck in self.decks.values() for card in deck.cards}
        found.update((card.id, card) for ch in self.characters.values() for card in ch.skill_cards)
        return found


# --- Parsing -------------------------------------------------------------------------------------


def _track(parent: Table, key: str, min_boxes: int) -> Track:
    table = parent.table(key, required=("boxes",), optional=("red",))
    boxes = table.integer("boxes", low=min_boxes, high=60)
    red = table.integers("red", low=1, default=())
    for index, box in enumerate(red):
        if box > boxes:
            beyond = message("content_red_beyond_track", box=box, boxes=boxes)
            table.report(field_path("red", index), beyond)
    for _, later in duplicates(str(box) for box in red):
        table.report(field_path("red", later), message("content_red_twice", box=red[later]))
    return Track(boxes, tuple(sorted(set(red))))


def _cards(parent: Table, key: str, *, id_prefix: str, source: str) -> tuple[Card, ...]:
    entries = parent.tables(key, required=("name", "value", "kind", "effect"), optional=("copies",))
    if not entries and parent.has(key):
        parent.report(key, message("content_no_cards"))
    cards: list[Card] = []
    for entry in entries:
        name = entry.text("name")
        value = entry.integer("value", low=0, high=CARD_VALUE_MAX)
        kind = entry.choice("kind", CARD_KINDS)
        if kind == "medicine" and source == "station":
            entry.report("kind", message("content_medicine_in_station_deck"))
        effect = entry.text("effect")
        for _ in range(entry.integer("copies", low=1, high=20, default=1)):
            cards.append(
                Card(f"{id_prefix}-{len(cards) + 1:02d}", name, value, kind, effect, source)
            )
    return tuple(cards)


def _unique_ids(table: Table, key: str, ids: list[str]) -> None:
    """Each id of a list once: a later one that repeats an earlier one is named."""
    for first, later in duplicates(ids):
        taken = message("content_id_taken", id=ids[later], row=first + 1)
        table.report(f"{field_path(key, later)}.id", taken)


def parse_ship_class(data: dict[str, Any], source: str) -> ShipClass:
    """rule: G-SHIP-1: a ship sheet is data: hull, shields, crew stations, weapons."""
    sheet = Table(
        data,
        source,
        required=("id", "name", "hull_size", "defence", "hull", "shields", "stations"),
        optional=("systems", "weapons"),
    )
    ship_id = sheet.slug("id")
    name = sheet.text("name")
    hull_size = sheet.integer("hull_size", low=1, high=200)
    defence = sheet.integer("defence", low=0, high=20)
    systems = sheet.choice("systems", SYSTEMS, default="normal")
    hull = _track(sheet, "hull", min_boxes=1)
    shields = _track(sheet, "shields", min_boxes=0)

    stations: list[StationSpec] = []
    for entry in sheet.tables("stations", required=("role", "track", "deck"), optional=("id",)):
        role = entry.choice("role", ROLES)
        station_id = entry.slug("id", default=role)
        stations.append(
            StationSpec(station_id, role, _track(entry, "track", min_boxes=1), entry.slug("deck"))
        )
    _unique_ids(sheet, "stations", [s.id for s in stations])
    if sheet.has("stations") and not any(s.role == "engineering" for s in stations):
        # Engineering allocates damage and repairs (G-DMG-4, G-DMG-8, G-REP-1).
        sheet.report("stations", message("content_needs_engineering"))

    weapons = [
        _weapon(entry)
        for entry in sheet.tables(
            "weapons",
            required=("id", "name", "damage"),
            optional=("kind", "max_range", "magazine"),
            default=(),
        )
    ]
    _unique_ids(sheet, "weapons", [w.id for w in weapons])
    sheet.problems.check()
    return ShipClass(
        ship_id,
        name,
        hull_size,
        defence,
        systems,
        hull,
        shields,
        tuple(stations),
        tuple(weapons),
        source,
    )


def _weapon(entry: Table) -> Weapon:
    kind = entry.slug("kind") if entry.has("kind") else None
    bands = [b.id for b in RANGE_BANDS]
    if entry.has("max_range"):
        max_range = entry.choice("max_range", bands)
    elif kind in KIND_REACH:
        max_range = KIND_REACH[kind]
    else:
        entry.report("max_range", message("content_needs_reach", kinds=list(KIND_REACH)))
        max_range = bands[0]
    magazine = None
    if kind == "torpedo":
        magazine = entry.integer("magazine", low=0, high=99, default=MAGAZINE_DEFAULT)
    elif entry.has("magazine"):
        entry.report("magazine", message("content_magazine_for_torpedoes"))
    return Weapon(
        entry.slug("id"),
        entry.text("name"),
        entry.integer("damage", low=1, high=20),
        max_range,
        kind,
        magazine,
    )


def parse_deck(data: dict[str, Any], source: str) -> Deck:
    """rule: G-CARD-1: a Station deck; `copies` is expanded so every card has its own id."""
    sheet = Table(data, source, required=("id", "name", "role", "cards"), optional=("prefix",))
    deck_id = sheet.slug("id")
    name = sheet.text("name")
    role = sheet.choice("role", ROLES)
    prefix = sheet.slug("prefix", default=deck_id)
    cards = _cards(sheet, "cards", id_prefix=prefix, source="station")
    sheet.problems.check()
    return Deck(deck_id, name, role, cards, source)


def parse_character(data: dict[str, Any], source: str) -> Character:
    """rule: G-CREW-1, G-CARD-1: a character sheet with its Skill deck."""
    sheet = Table(
        data,
        source,
        required=("id", "name", "strength", "dexterity", "endurance", "skill_cards"),
        optional=("armour", "medicine", "blurb"),
    )
    char_id = sheet.slug("id")
    name = sheet.text("name")
    strength = sheet.integer("strength", low=2, high=15)
    dexterity = sheet.integer("dexterity", low=2, high=15)
    endurance = sheet.integer("endurance", low=2, high=15)
    armour = sheet.integer("armour", low=0, high=10, default=0)
    medicine = sheet.integer("medicine", low=0, high=10, default=0)
    blurb = sheet.text("blurb") if sheet.has("blurb") else ""
    cards = _cards(sheet, "skill_cards", id_prefix=f"skill-{char_id}", source="skill")
    sheet.problems.check()
    return Character(
        char_id, name, strength, dexterity, endurance, armour, medicine, cards, blurb, source
    )


def _settings(sheet: Table) -> ScenarioSettings:
    defaults = ScenarioSettings()
    if not sheet.has("settings"):
        return defaults
    table = sheet.table(
        "settings",
        optional=(
            "orders_seconds",
            "allocation_seconds",
            "bonus_table",
            "close_when_all_ready",
            "map_width",
            "map_height",
            "hit_table",
            "zone_move_one",
            "zone_move_two",
            "cover_bonus",
        ),
    )
    hit_table = defaults.hit_table
    if table.has("hit_table"):
        with table.problems.each():
            hit_table = check_hit_table(
                table.file,
                table.at("hit_table"),
                table.array("hit_table"),
                (*ROLES, "hull", "shields"),
            )
    return ScenarioSettings(
        orders_seconds=table.integer(
            "orders_seconds", low=5, high=3600, default=defaults.orders_seconds
        ),
        allocation_seconds=table.integer(
            "allocation_seconds", low=5, high=600, default=defaults.allocation_seconds
        ),
        bonus_table=tuple(table.integers("bonus_table", low=0, high=20, default=())),
        close_when_all_ready=table.flag(
            "close_when_all_ready", default=defaults.close_when_all_ready
        ),
        map_width=table.integer("map_width", low=2, high=100, default=defaults.map_width),
        map_height=table.integer("map_height", low=2, high=100, default=defaults.map_height),
        hit_table=hit_table,
        zone_move_one=table.integer("zone_move_one", low=0, high=20, default=3),
        zone_move_two=table.integer("zone_move_two", low=0, high=40, default=6),
        cover_bonus=table.integer("cover_bonus", low=0, high=10, default=2),
    )


def parse_scenario(data: dict[str, Any], source: str) -> Scenario:
    sheet = Table(
        data,
        source,
        required=("id", "name", "description", "ships"),
        optional=("modules", "settings", "map", "players_side", *SECTIONS),
    )
    scenario_id = sheet.slug("id")
    name = sheet.text("name")
    description = sheet.text("description")
    modules: set[str] = set()
    if sheet.has("modules"):
        switches = sheet.table("modules", optional=MODULES)
        modules = {module for module in MODULES if switches.flag(module, default=False)}
    settings = _settings(sheet)
    zone_map = parse_map(sheet)
    if zone_map is not None and settings.zone_move_two < settings.zone_move_one:
        sheet.report("settings.zone_move_two", message("content_zone_moves"))

    ships: list[ShipPlacement] = []
    where = ("zone",) if zone_map else ("x", "y")
    for entry in sheet.tables(
        "ships",
        required=("id", "name", "ship_class", "crew", "side", *where, "shields_active"),
        optional=("quality",),
    ):
        if zone_map is None:
            # rule: G-MAP-1: positions are squares on a map of map_width x map_height, from 0.
            x = _square(entry, "x", settings.map_width)
            y = _square(entry, "y", settings.map_height)
            zone = None
        else:
            x = y = 0
            zone = _zone_of(entry, zone_map)
        ships.append(
            ShipPlacement(
                entry.slug("id"),
                entry.text("name"),
                entry.slug("ship_class"),
                entry.choice("crew", CREWS),
                entry.slug("side"),
                x,
                y,
                entry.flag("shields_active"),
                zone,
                entry.choice("quality", QUALITIES, default="proficient"),
            )
        )
    if sheet.has("ships") and len(ships) < 2:
        sheet.report("ships", message("content_too_few_ships", count=len(ships)))
    if len(ships) > SHIPS_MAX:
        sheet.report("ships", message("content_too_many_ships", most=SHIPS_MAX, count=len(ships)))
    _unique_ids(sheet, "ships", [s.id for s in ships])
    sides = {s.side for s in ships}
    if len(ships) >= 2 and len(sides) < 2:
        sheet.report("ships", message("content_one_side"))
    players_side = sheet.slug("players_side") if sheet.has("players_side") else None
    if players_side is not None and sides and players_side not in sides:
        no_side = message("content_no_such_side", side=players_side, sides=sorted(sides))
        sheet.report("players_side", no_side)
    placed = Placed(
        {s.id: s.crew for s in ships},
        frozenset(s.name for s in ships),
        settings.map_width,
        settings.map_height,
        zone_map,
        {s.id: s.name for s in ships},
    )
    sections = {}
    for key, section in SECTIONS.items():
        with sheet.problems.each():
            sections[key] = section.read(sheet, placed)
    sheet.problems.check()
    return Scenario(
        scenario_id,
        name,
        description,
        tuple(ships),
        frozenset(modules),
        settings,
        source,
        zone_map=zone_map,
        players_side=players_side,
        sections=sections,
    )


def _zone_of(entry: Table, zone_map: ZoneMap) -> str:
    """rule: G-ZONE-1: on a zone map every ship stands in one of its zones."""
    zone = entry.slug("zone")
    known = zone_map.by_id()
    if entry.has("zone") and zone not in known:
        entry.report("zone", message("content_unknown_zone", zone=zone, zones=zone_names(known)))
    return zone


def _square(entry: Table, key: str, size: int) -> int:
    value = entry.integer(key)
    if entry.has(key) and not 0 <= value < size:
        entry.report(key, message("content_off_the_map", value=value, most=size - 1))
    return value


# --- Cross-checks --------------------------------------------------------------------------------


def build_catalogue(
    ships: Iterable[ShipClass],
    decks: Iterable[Deck],
    characters: Iterable[Character],
    scenarios: Iterable[Scenario],
) -> Catalogue:
    """Index parsed content by id and check what one file cannot see alone: decks named by
    stations, ship classes named by scenarios, and card ids that must be unique game-wide."""
    catalogue = Catalogue(
        index_by_id(ships),
        index_by_id(decks),
        index_by_id(characters),
        index_by_id(scenarios),
    )
    check_cross_references(catalogue)
    return catalogue


def check_cross_references(catalogue: Catalogue) -> None:
    """What no single file can check: references between files and game-wide card ids. Raises
    every problem found."""
    problems = Problems()
    for ship in catalogue.ships.values():
        for index, station in enumerate(ship.stations):
            where = f"stations[{index}].deck"
            deck = catalogue.decks.get(station.deck)
            if deck is None:
                decks = sorted(d.name for d in catalogue.decks.values())
                unknown = message("content_unknown_deck", deck=station.deck, decks=decks)
                problems.add(ContentError(ship.source, where, unknown))
            elif deck.role != station.role:
                wrong = message(
                    "content_deck_of_another_role",
                    deck=deck.name,
                    deck_role=deck.role,
                    station=station.role,
                )
                problems.add(ContentError(ship.source, where, wrong))

    # The engine keys cards by id across the whole game, so a clash anywhere is an error.
    owners: dict[str, str] = {}
    for deck in catalogue.decks.values():
        with problems.each():
            _claim_cards(owners, deck.cards, deck.source, "prefix")
    for character in catalogue.characters.values():
        with problems.each():
            _claim_cards(owners, character.skill_cards, character.source, "id")

    for scenario in catalogue.scenarios.values():
        for index, placement in enumerate(scenario.ships):
            ship_class = catalogue.ships.get(placement.ship_class)
            if ship_class is None:
                unknown = message(
                    "content_unknown_ship_class",
                    ship_class=placement.ship_class,
                    ship_classes=sorted(s.name for s in catalogue.ships.values()),
                )
                problems.add(ContentError(scenario.source, f"ships[{index}].ship_class", unknown))
            elif placement.shields_active and ship_class.shields.boxes == 0:
                no_shields = message("content_no_shields_to_raise", ship_class=ship_class.name)
                problems.add(
                    ContentError(scenario.source, f"ships[{index}].shields_active", no_shields)
                )
        placed = {placement.id: placement for placement in scenario.ships}
        if any(p.ship_class not in catalogue.ships for p in placed.values()):
            continue  # the sections' checks would only repeat it
        for key, section in SECTIONS.items():
            if key in scenario.sections:
                with problems.each():
                    section.check(scenario.source, scenario.sections[key], catalogue.ships, placed)
    problems.check()


def _claim_cards(owners: dict[str, str], cards: Iterable[Card], source: str, key: str) -> None:
    for card in cards:
        if card.id in owners:
            clash = message("content_card_id_clash", card=card.id, file=owners[card.id])
            raise ContentError(source or "(unknown file)", key, clash)
        owners[card.id] = source or "another file"
