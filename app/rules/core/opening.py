"""A new game: a scenario's opening, built into the state, with what each switchable module keeps
in it (its parts, core/hooks.py)."""

from __future__ import annotations

import dataclasses
from typing import Any

from ..content import Catalogue, Scenario
from ..content.zone_content import map_data
from . import rng
from .hooks import HOOKS
from .rng import Dice
from .sheets import build_ship, own_card_id, sheets_of
from .state import SCHEMA, Ship, State, put_in_zone, side_of_players


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
            placement=placement,
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
        "scenario": {
            "id": scenario.id,
            "name": scenario.name,
            "description": scenario.description,
            "players_side": scenario.players_side or side_of_players(ships.values()),
        },
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
    }
    if zone_map is not None:  # a grid game's state stays as it was before zone maps
        state["map"] = zone_map
    for key, part in HOOKS.game_parts.items():
        kept = part(scenario)
        if kept is not None:
            state[key] = kept
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
