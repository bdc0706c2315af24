"""Module `zones` (G-ZONE-2..6): battles fought across the zones of a map rather than on a grid.

A scenario with a map switches it on: the map is `state["map"]`, and each ship on it has a `zone`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.commands import Command, SubmitOrder
from ...core.context import Context
from ...core.hooks import Hooks, Order
from ...core.phases import ALL_PHASES
from ...core.state import Ship, State, get_ship
from . import zone_views, zones


@dataclass(frozen=True)
class PlaceInZone(Command):
    """The GM's move on a zone map (G-ZONE-1): the ship stands in that zone."""

    ship: str
    zone: str


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
    # G-ZONE-3, G-ZONE-5: the GM may rule moves dearer or cover thinner mid-game.
    hooks.settings.update(zone_move_one=(0, 20), zone_move_two=(0, 40), cover_bonus=(0, 10))
    hooks.placing.register(zones.refuse_squares)
    hooks.arrival.register(zones.arrival)
    hooks.arrived.register(zones.arrived)
    hooks.command(PlaceInZone, place_in_zone, ALL_PHASES)
    hooks.move_order.register(move_order)
    hooks.move.register(move)
    hooks.defending.register(zones.cover)
    hooks.destination.register(zone_views.destination)
    hooks.map_view.register(zone_views.map_view)
    hooks.ship_view.register(zone_views.ship_zone_view)
    hooks.pick_zone.register(zones.pick_destination)
