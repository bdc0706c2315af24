"""Ship sheets kept in the game (G-SHIP-1), so the GM can bring in a ship of any class mid-game.

A game keeps every ship class of the catalogue it was made from as plain data (`state["sheets"]`),
with each Station deck as the ids of its cards. The cards themselves sit in the game's card
catalogue (`state["cards"]`, written once when the game is made) under their deck ids; a ship's
own copy of a card is named `ship.station.card`. Ships of the scenario have their copies in the
catalogue too; a ship added later reads its copies from the deck card they copy (`card_of` in
state.py), so adding a ship never rewrites the catalogue.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..content import Catalogue, ShipClass, ShipPlacement
from .hooks import HOOKS

Sheet = dict[str, Any]


def sheets_of(catalogue: Catalogue) -> dict[str, Any]:
    """Every ship class and the card ids of every Station deck, as JSON-able data."""
    return {
        "classes": {cls.id: _class_sheet(cls) for cls in catalogue.ships.values()},
        "decks": {deck.id: [card.id for card in deck.cards] for deck in catalogue.decks.values()},
    }


def _class_sheet(cls: ShipClass) -> Sheet:
    return {
        "id": cls.id,
        "name": cls.name,
        "hull_size": cls.hull_size,
        "defence": cls.defence,
        "systems": cls.systems,
        "hull": {"boxes": cls.hull.boxes, "red": list(cls.hull.red)},
        "shields": {"boxes": cls.shields.boxes, "red": list(cls.shields.red)},
        "stations": [
            {
                "id": s.id,
                "role": s.role,
                "boxes": s.track.boxes,
                "red": list(s.track.red),
                "deck": s.deck,
            }
            for s in cls.stations
        ],
        "weapons": [dataclasses.asdict(w) for w in cls.weapons],
    }


def own_card_id(ship_id: str, station_id: str, deck_card_id: str) -> str:
    """A ship's copy of a deck card: one id names one card in the game, even when two ships of one
    class carry the same deck."""
    return f"{ship_id}.{station_id}.{deck_card_id}"


def build_ship(
    sheet: Sheet,
    decks: dict[str, list[str]],
    *,
    ship_id: str,
    name: str,
    crew: str,
    side: str,
    x: int,
    y: int,
    shields_active: bool,
    placement: ShipPlacement | None = None,
) -> dict[str, Any]:
    """A whole ship of this class: no damage, full decks (unshuffled), nobody aboard, with each
    module's part (`placement`: the scenario's, for a ship it places; None for one the GM adds)."""
    stations = {
        spec["id"]: {
            "id": spec["id"],
            "role": spec["role"],
            "boxes": spec["boxes"],
            "red": list(spec["red"]),
            "damage": 0,
            "suffered": 0,
            "deck": spec["deck"],
            "draw": [own_card_id(ship_id, spec["id"], card) for card in decks[spec["deck"]]],
            "discard": [],
            "hand": [],
            "crew": None,
        }
        for spec in sheet["stations"]
    }
    shields = sheet["shields"]
    ship = {
        "id": ship_id,
        "name": name,
        "class": sheet["id"],
        "class_name": sheet["name"],
        "crew": crew,
        "side": side,
        "x": x,
        "y": y,
        "hull_size": sheet["hull_size"],
        "defence": sheet["defence"],
        "systems": sheet["systems"],
        "hull": {"boxes": sheet["hull"]["boxes"], "red": list(sheet["hull"]["red"]), "damage": 0},
        "shields": {
            "boxes": shields["boxes"],
            "red": list(shields["red"]),
            "damage": 0,
            "suffered": 0,
            "active": bool(shields_active and shields["boxes"] > 0),
        },
        "stations": stations,
        "weapons": [
            {**w, **{key: part(w) for key, part in HOOKS.weapon_parts.items()}}
            for w in sheet["weapons"]
        ],
        "destroyed": False,
    }
    for key, part in HOOKS.ship_parts.items():
        ship[key] = part(placement)
    return ship
