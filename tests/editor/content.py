"""Content the editor tests build on: copies of built-ins, and a small zone-map scenario."""

from __future__ import annotations

import copy
from typing import Any

from app.content import builtin_files


def builtin(kind: str, item_id: str) -> dict[str, Any]:
    return copy.deepcopy(builtin_files()[kind][item_id][0])


def ship_copy(new_id: str = "gunboat") -> dict[str, Any]:
    ship = builtin("ship", "frigate")
    del ship["translations"]
    return {**ship, "id": new_id, "name": "Gunboat"}


def five_zones() -> list[dict[str, Any]]:
    """A ring of five open zones: each touches its two neighbours."""
    ids = ["dock", "lane", "belt", "rift", "gate"]
    return [
        {
            "id": zone,
            "name": zone.title(),
            "terrain": "open",
            "x": 10 + 20 * i,
            "y": 20 + 10 * (i % 2),
            "touches": [ids[i - 1], ids[(i + 1) % 5]],
        }
        for i, zone in enumerate(ids)
    ]


def zone_scenario(ship_class: str = "gunboat", new_id: str = "ring-fight") -> dict[str, Any]:
    return {
        "id": new_id,
        "name": "Ring Fight",
        "description": "Two ships circle a ring of five zones.",
        "map": {"kind": "zones", "zones": five_zones()},
        "ships": [
            {
                "id": "hawk",
                "name": "Hawk",
                "ship_class": ship_class,
                "crew": "players",
                "side": "players",
                "zone": "dock",
                "shields_active": True,
            },
            {
                "id": "shrike",
                "name": "Shrike",
                "ship_class": "raider",
                "crew": "npc",
                "side": "raiders",
                "zone": "belt",
                "shields_active": False,
            },
        ],
    }
