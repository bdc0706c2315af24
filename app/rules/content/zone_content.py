"""A scenario's zone map (G-ZONE-1) as frozen data, and its strict reader.

A scenario without `[map]` (or with `kind = "grid"`) fights on squares (G-MAP-1); with
`kind = "zones"` it lists its zones, each naming the zones it touches, its terrain and where the
screens draw it. Every error names the file and the field, like the rest of the content.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..core.messages import message
from .checks import Table, check_slug, duplicates, field_path

TERRAINS = ("open", "difficult", "hazardous")
MAP_KINDS = ("grid", "zones")
# Zones are drawn on a canvas of this many units; the screens scale it to fit.
CANVAS_WIDTH = 100
CANVAS_HEIGHT = 90
ZONES_MAX = 40


@dataclass(frozen=True)
class Zone:
    id: str
    name: str
    terrain: str  # "open" | "difficult" | "hazardous"
    cost: int  # extra action value to leave it (G-ZONE-4); 0 for open space
    cover: bool
    x: int  # where its centre is drawn, on the CANVAS_WIDTH x CANVAS_HEIGHT canvas
    y: int
    touches: tuple[str, ...]


@dataclass(frozen=True)
class ZoneMap:
    zones: tuple[Zone, ...]

    def by_id(self) -> dict[str, Zone]:
        return {zone.id: zone for zone in self.zones}


def parse_map(sheet: Table) -> ZoneMap | None:
    """The scenario's `[map]` table: None for a grid, else the zone map, checked whole: every
    touch names a known zone, touching is mutual, and every zone can be reached from the first."""
    if not sheet.has("map"):
        return None
    table = sheet.table("map", required=("kind",), optional=("zones",))
    kind = table.choice("kind", MAP_KINDS)
    if kind == "grid":
        if table.has("zones"):
            table.report("zones", message("content_grid_has_no_zones"))
        return None
    entries = table.tables(
        "zones",
        required=("id", "name", "terrain", "x", "y", "touches"),
        optional=("cost", "cover"),
    )
    if table.has("zones") and len(entries) < 2:
        table.report("zones", message("content_too_few_zones", count=len(entries)))
    if len(entries) > ZONES_MAX:
        table.report("zones", message("content_too_many_zones", most=ZONES_MAX, count=len(entries)))
    zones = [_zone(entry) for entry in entries]
    for first, later in duplicates(z.id for z in zones):
        taken = message("content_id_taken", id=zones[later].id, row=first + 1)
        table.report(field_path(table.at("zones"), later) + ".id", taken)
    if zones:
        _check_touches(table, zones)
    return ZoneMap(tuple(zones))


def _zone(entry: Table) -> Zone:
    terrain = entry.choice("terrain", TERRAINS)
    if terrain == "open":
        if entry.has("cost"):
            entry.report("cost", message("content_open_space_costs_nothing"))
        cost = 0
    else:
        # 003's table: 1 dust or debris, 2 dense nebula or stellar gravity well, 3 singularity.
        cost = entry.integer("cost", low=1, high=3)
    names: list[str] = []
    for index, item in enumerate(entry.array("touches")):
        with entry.problems.each():
            names.append(check_slug(entry.file, field_path(entry.at("touches"), index), item))
    for _, later in duplicates(names):
        entry.report("touches", message("content_touch_twice", zone=names[later]))
    return Zone(
        entry.slug("id"),
        entry.text("name"),
        terrain,
        cost,
        entry.flag("cover", default=False),
        entry.integer("x", low=0, high=CANVAS_WIDTH),
        entry.integer("y", low=0, high=CANVAS_HEIGHT),
        tuple(names),
    )


def _check_touches(table: Table, zones: list[Zone]) -> None:
    known = {z.id: i for i, z in enumerate(zones)}
    for index, zone in enumerate(zones):
        where = field_path("zones", index)
        for t, other in enumerate(zone.touches):
            field = f"{where}.touches[{t}]"
            if other == zone.id:
                table.report(field, message("content_zone_touches_itself"))
            elif other not in known:
                names = zone_names({z.id: z for z in zones})
                table.report(field, message("content_unknown_zone", zone=other, zones=names))
            elif zone.id not in zones[known[other]].touches:
                one_way = message(
                    "content_touch_one_way", zone=zone.name, other=zones[known[other]].name
                )
                table.report(field, one_way)
    touches = {z.id: [t for t in z.touches if t in known] for z in zones}
    reached = steps_from(touches, zones[0].id)
    cut_off = [z.name for z in zones if z.id not in reached]
    if cut_off:
        table.report(
            "zones", message("content_map_not_connected", start=zones[0].name, cut_off=cut_off)
        )


def zone_names(zones: Mapping[str, Zone]) -> list[str]:
    """The zones by name, as a problem lists those a reference may name."""
    return [zone.name for zone in zones.values()]


def steps_from(touches: Mapping[str, Iterable[str]], start: str) -> dict[str, int]:
    """G-ZONE-2: the fewest zone steps from `start` to every zone it can reach (breadth first)."""
    steps = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        for there in touches[here]:
            if there not in steps:
                steps[there] = steps[here] + 1
                queue.append(there)
    return steps


def map_data(zone_map: ZoneMap) -> dict[str, Any]:
    """The zone map as game state (plain JSON): every zone, and the steps between every pair,
    worked out once here rather than on every distance asked for."""
    touches = {z.id: z.touches for z in zone_map.zones}
    return {
        "kind": "zones",
        "zones": {
            z.id: {
                "id": z.id,
                "name": z.name,
                "terrain": z.terrain,
                "cost": z.cost,
                "cover": z.cover,
                "x": z.x,
                "y": z.y,
                "touches": list(z.touches),
            }
            for z in zone_map.zones
        },
        "steps": {z.id: steps_from(touches, z.id) for z in zone_map.zones},
    }
