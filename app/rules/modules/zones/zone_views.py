"""What the screens are shown of a zone map: the zones, where each ship stands, and what each
move would cost its Pilot (G-ZONE-6). On a grid, the core draws the map."""

from __future__ import annotations

from typing import Any

from ...content.zone_content import CANVAS_HEIGHT, CANVAS_WIDTH
from ...core.state import Ship, State, zone_map
from .zones import moves_from

View = dict[str, Any]


def destination(state: State, order: dict[str, Any]) -> str | None:
    """A revealed Pilot's order names the zone it goes to (G-ZONE-3)."""
    if "zone" not in order:
        return None
    zones = zone_map(state)
    assert zones is not None
    return str(zones["zones"][order["zone"]]["name"])


def map_view(state: State) -> View | None:
    zones = zone_map(state)
    if zones is None:
        return None
    drawn = []
    for zone in zones["zones"].values():
        drawn.append(
            {
                **{k: zone[k] for k in ("id", "name", "terrain", "cost", "cover", "x", "y")},
                "touches": list(zone["touches"]),
            }
        )
    drawn.sort(key=lambda z: z["id"])  # JSONB keeps no key order; screens must not reshuffle
    return {
        "kind": "zones",
        "width": CANVAS_WIDTH,
        "height": CANVAS_HEIGHT,
        "zones": drawn,
        "links": [
            list(pair)
            for pair in sorted({tuple(sorted((z["id"], t))) for z in drawn for t in z["touches"]})
        ],
        "cover_bonus": state["settings"]["cover_bonus"],
    }


def ship_zone_view(state: State, ship: Ship) -> View:
    if "zone" not in ship:
        return {"zone": None}
    zones = zone_map(state)
    assert zones is not None
    return {
        "zone": ship["zone"],
        "zone_name": zones["zones"][ship["zone"]]["name"],
        "moves": moves_from(state, ship),
    }
