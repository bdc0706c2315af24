"""Module `zones` (G-ZONE-2..6): battles fought across the zones of a map rather than on a grid.

A scenario with a map switches it on: the map is `state["map"]`, and each ship on it has a `zone`.
"""

from __future__ import annotations

from ...core.commands import PlaceInZone, SubmitOrder
from ...core.context import Context
from ...core.hooks import Hooks, Order
from ...core.state import Ship, State, get_ship
from . import zone_views, zones


def move_order(state: State, ship: Ship, cmd: SubmitOrder, value: int, order: Order) -> bool:
    """G-ZONE-3: a Pilot's order on a zone map names a zone, not a square."""
    if "zone" not in ship:
        return False
    order["zone"] = zones.check_move(state, ship, cmd.zone, value)
    return True


def move(ctx: Context, ship: Ship, order: Order, value: int) -> bool:
    if "zone" not in order:
        return False
    zones.manoeuvre(ctx, ship, order["zone"], value)
    return True


def place_in_zone(ctx: Context, cmd: PlaceInZone) -> None:
    zones.place(ctx, get_ship(ctx.state, cmd.ship), cmd.zone)


def register(hooks: Hooks) -> None:
    hooks.commands[PlaceInZone] = place_in_zone
    hooks.move_order.append(move_order)
    hooks.move.append(move)
    hooks.defending.append(zones.cover)
    hooks.map_view.append(zone_views.map_view)
    hooks.ship_view.append(zone_views.ship_zone_view)
    hooks.pick_zone.append(zones.pick_destination)
