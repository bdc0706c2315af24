"""The game state: plain JSON-able data built from a scenario, and small readers over it.

Tracks store damage, not health, so a red box is "filled" exactly when damage reaches its number.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..content import Catalogue, RangeBand, Scenario, band_index, range_band_for
from ..content.cue_content import cue_state
from ..content.zone_bands import zone_band_for
from ..content.zone_content import map_data
from . import rng
from .errors import refuse
from .messages import Message, message
from .rng import Dice
from .sheets import build_ship, own_card_id, sheets_of

SCHEMA = 1
Ship = dict[str, Any]
Station = dict[str, Any]
State = dict[str, Any]
ZoneMap = dict[str, Any]


def new_game(scenario: Scenario, catalogue: Catalogue, seed: int | rng.Seed) -> State:
    """A fresh game in Downtime, with decks shuffled by the game's own generator. `seed` is the
    generator's starting state (see rng.py), or a chosen number its key is made from."""
    sheets = sheets_of(catalogue)
    # Every deck card under its deck id, so a ship the GM adds later finds its cards (sheets.py).
    cards: dict[str, dict[str, Any]] = {
        card.id: _card_data(card) for deck in catalogue.decks.values() for card in deck.cards
    }
    ships: dict[str, Ship] = {}
    for placement in scenario.ships:
        ship = build_ship(
            sheets["classes"][placement.ship_class],
            sheets["decks"],
            ship_id=placement.id,
            name=placement.name,
            crew=placement.crew,
            side=placement.side,
            x=placement.x,
            y=placement.y,
            shields_active=placement.shields_active,
            quality=placement.quality,
        )
        for station in ship["stations"].values():
            for deck_card in sheets["decks"][station["deck"]]:
                own = own_card_id(ship["id"], station["id"], deck_card)
                cards[own] = {**cards[deck_card], "id": own}
        ships[placement.id] = ship
    characters: dict[str, dict[str, Any]] = {}
    for ch in catalogue.characters.values():
        for card in ch.skill_cards:
            cards[card.id] = _card_data(card, owner=ch.id)
        characters[ch.id] = {
            "id": ch.id,
            "name": ch.name,
            "armour": ch.armour,
            "medicine": ch.medicine,
            "blurb": ch.blurb,
            "strength": {"max": ch.strength, "value": ch.strength},
            "dexterity": {"max": ch.dexterity, "value": ch.dexterity},
            "endurance": {"max": ch.endurance, "value": ch.endurance},
            "status": "healthy",
            "draw": [c.id for c in ch.skill_cards],
            "discard": [],
        }
    zone_map = map_data(scenario.zone_map) if scenario.zone_map else None
    if zone_map is not None:
        for placement in scenario.ships:
            put_in_zone(zone_map, ships[placement.id], str(placement.zone))
    settings = dataclasses.asdict(scenario.settings)
    settings["bonus_table"] = list(settings["bonus_table"])
    settings["hit_table"] = [list(row) for row in settings["hit_table"]]
    state: State = {
        "schema": SCHEMA,
        "scenario": {"id": scenario.id, "name": scenario.name, "description": scenario.description},
        "modules": sorted(scenario.modules),
        "settings": settings,
        "rng": rng.start(seed),
        "turn": 0,
        "combat": 0,
        "phase": "downtime",
        "deadline": None,
        "paused": None,
        "ships": ships,
        "sheets": sheets,
        "characters": characters,
        "cards": cards,
        "orders": {},
        "revealed": None,
        "modifiers": [],
        "allocation": None,
        "pending": None,
        "log": [],
        "messages": [],
        "red_alert": False,
        "undo": None,
        "next_id": 1,
        "torpedoes": [],  # M-WEAPONS-3: in flight
        "grapples": [],  # M-WEAPONS-2: holds
    }
    if zone_map is not None:  # a grid game's state stays as it was before zone maps
        state["map"] = zone_map
    if scenario.cues:  # module cues: a scenario with cues switches it on, as a map does zones
        state["cues"] = cue_state(scenario.cues)
    dice = Dice(state["rng"])
    for ship in ships.values():
        for station in ship["stations"].values():
            dice.shuffle(station["draw"])
    for character in characters.values():
        dice.shuffle(character["draw"])
    return state


def _card_data(card: Any, owner: str | None = None) -> dict[str, Any]:
    return {
        "id": card.id,
        "name": card.name,
        "value": card.value,
        "kind": card.kind,
        "effect": card.effect,
        "source": card.source,
        "owner": owner,
    }


# --- Readers ------------------------------------------------------------------------------------


def card_of(state: State, card_id: str) -> dict[str, Any]:
    """A card's data. A ship the GM added has its copies of deck cards named only in its piles:
    they read the deck card they copy (see sheets.py)."""
    found: dict[str, Any] | None = state["cards"].get(card_id)
    if found is None:
        deck_card = card_id.split(".", 2)[-1]
        found = {**state["cards"][deck_card], "id": card_id}
    return found


def get_ship(state: State, ship_id: Any) -> Ship:
    ship: Ship | None = state["ships"].get(ship_id) if isinstance(ship_id, str) else None
    if ship is None:
        raise refuse("NO_SUCH_SHIP", ship=str(ship_id))
    return ship


def get_station(ship: Ship, station_id: Any) -> Station:
    station: Station | None = (
        ship["stations"].get(station_id) if isinstance(station_id, str) else None
    )
    if station is None:
        raise refuse("NO_SUCH_STATION", ship=ship["name"], station=str(station_id))
    return station


def get_character(state: State, character_id: Any) -> dict[str, Any]:
    ch: dict[str, Any] | None = (
        state["characters"].get(character_id) if isinstance(character_id, str) else None
    )
    if ch is None:
        raise refuse("NO_SUCH_CHARACTER", character=str(character_id))
    return ch


def station_key(ship: Ship, station: Station) -> str:
    return f"{ship['id']}/{station['id']}"


def health(track: dict[str, Any]) -> int:
    return int(track["boxes"] - track["damage"])


def hand_limit(station: Station) -> int:
    """G-CARD-2: the station's health; G-DMG-8: Engineering never drops below 1."""
    limit = health(station)
    return max(1, limit) if station["role"] == "engineering" else limit


def operational(station: Station) -> bool:
    return health(station) > 0


def manned(state: State, station: Station) -> bool:
    """G-CREW-3: a station whose character is unconscious or dead counts as unmanned."""
    crew = station["crew"]
    if crew is None:
        return False
    character = crew.get("character")
    if character is None:
        return True
    return state["characters"][character]["status"] not in ("unconscious", "dead")


def distance(a: Ship, b: Ship) -> int:
    """G-MAP-1: squares on the grid, the larger of the two axis differences; G-ZONE-2: on a zone
    map, the fewest zone steps between the two ships' zones. Each ship on a zone map carries the
    steps from its zone (`put_in_zone`), so this needs no more than the two ships."""
    if "zone" in a and "zone" in b:
        return int(a["zone_steps"][b["zone"]])
    across: int = abs(a["x"] - b["x"])
    down: int = abs(a["y"] - b["y"])
    return max(across, down)


def range_band(a: Ship, b: Ship) -> RangeBand | None:
    """The range band between two ships, on whichever map they stand (G-HIT-2, G-ZONE-2); None
    when out of range. Use this, not range_band_for(distance(...)), so zone maps are right."""
    if "zone" in a and "zone" in b:
        return zone_band_for(distance(a, b))
    return range_band_for(distance(a, b))


def reaching(ship: Ship, target: Ship, weapons: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Those of `weapons` whose reach covers the range to the target from where both ships stand
    now (G-HIT-3, M-WEAPONS-1, G-ZONE-2)."""
    band = range_band(ship, target)
    if band is None:
        return []
    return [w for w in weapons if band_index(w["max_range"]) >= band_index(band.id)]


def distance_words(a: Ship, b: Ship) -> Message:
    """The distance for people: "5 squares", or "same zone", "1 zone", "2 zones"."""
    steps = distance(a, b)
    if "zone" in a and "zone" in b:
        if steps == 0:
            return message("same_zone")
        return message("zones_away", count=steps)
    return message("squares_away", count=steps)


def zone_map(state: State) -> ZoneMap | None:
    found: ZoneMap | None = state.get("map")
    return found


def get_zone(zones: ZoneMap, zone_id: Any) -> dict[str, Any]:
    zone: dict[str, Any] | None = zones["zones"].get(zone_id) if isinstance(zone_id, str) else None
    if zone is None:
        raise refuse("NO_SUCH_ZONE", zone=zone_id)
    return zone


def put_in_zone(zone_map: dict[str, Any], ship: Ship, zone: str) -> None:
    """Stand a ship in a zone, with the steps from there to every zone (for `distance`)."""
    ship["zone"] = zone
    ship["zone_steps"] = dict(zone_map["steps"][zone])


def seat_station(state: State, seat: str) -> tuple[Ship, Station] | None:
    for ship in state["ships"].values():
        for station in ship["stations"].values():
            crew = station["crew"]
            if crew is not None and crew["seat"] == seat:
                return ship, station
    return None


def seats_at(state: State, owner: str) -> list[str]:
    """The seats holding the station `owner` names ("ship/station"), or every station of the ship
    it names: whom a private event or message is for. Recorded when it happens, so that it stays
    theirs, not the next player's at that station."""
    ship_id, _, station_id = owner.partition("/")
    ship = state["ships"].get(ship_id)
    if ship is None:
        return []
    stations = ship["stations"]
    chosen = [stations.get(station_id)] if station_id else list(stations.values())
    return sorted(st["crew"]["seat"] for st in chosen if st is not None and st["crew"] is not None)


def role_label(station: Station) -> str:
    return str(station["role"]).capitalize() if station["id"] == station["role"] else station["id"]
