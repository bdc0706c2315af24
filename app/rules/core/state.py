"""The game state, plain JSON-able data (built from a scenario in opening.py), and small readers
over it.

Tracks store damage, not health, so a red box is "filled" exactly when damage reaches its number.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..content import RangeBand, band_index, range_band_for
from ..content.zone_bands import zone_band_for
from .errors import refuse
from .messages import Message, message

SCHEMA = 1
Ship = dict[str, Any]
Station = dict[str, Any]
State = dict[str, Any]
ZoneMap = dict[str, Any]


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


def players_side(state: State) -> str | None:
    """G-SHIP-1: the side the players crew. A scenario may name it; one that does not (and a game
    stored before scenarios could) has the side called `players`, else the side of the first
    ship crewed by players; None when no ship is either."""
    named: str | None = state["scenario"].get("players_side")
    return named or side_of_players(state["ships"].values())


def side_of_players(ships: Iterable[Ship]) -> str | None:
    """The players' side of ships whose scenario names none (see players_side)."""
    in_order = sorted(ships, key=lambda s: s["id"])
    if any(ship["side"] == "players" for ship in in_order):
        return "players"
    return next((str(s["side"]) for s in in_order if s["crew"] == "players"), None)


def out_of_the_fight(ship: Ship) -> str | None:
    """Why a ship can no longer fight: destroyed, or fled or surrendered (the GM's call)."""
    if ship["destroyed"]:
        return "destroyed"
    out: str | None = ship.get("out")
    return out


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
