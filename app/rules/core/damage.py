"""Damage to shields, hull and stations, with the cascades it sets off (G-DMG-*, G-SHD-1)."""

from __future__ import annotations

from .cards import enforce_limit
from .context import Context
from .crew import injure
from .hooks import HOOKS
from .messages import Message, message
from .state import Ship, Station, health, manned, role_label


def damage_shields(ctx: Context, ship: Ship, points: int, cause: Message) -> int:
    """G-DMG-1: active shields soak damage box by box; empty shields fail (G-SHD-2)."""
    shields = ship["shields"]
    absorbed = min(points, health(shields))
    if absorbed <= 0:
        return 0
    shields["damage"] += absorbed
    shields["suffered"] += absorbed
    ctx.emit(
        "ShieldsHit",
        message(
            "shields_hit",
            ship=ship["name"],
            points=absorbed,
            cause=cause,
            left=health(shields),
            boxes=shields["boxes"],
        ),
        ship=ship["id"],
        points=absorbed,
        shields=health(shields),
    )
    if health(shields) == 0 and shields["active"]:
        shields["active"] = False
        ctx.emit("ShieldsFailed", message("shields_failed", ship=ship["name"]), ship=ship["id"])
    return absorbed


def damage_station(ctx: Context, ship: Ship, station: Station, points: int, cause: Message) -> int:
    """Fill station boxes (G-DMG-6); a filled red box injures whoever mans it (G-DMG-9)."""
    taken = 0
    for _ in range(points):
        if health(station) == 0:
            break
        station["damage"] += 1
        station["suffered"] += 1
        taken += 1
        if station["damage"] in station["red"]:
            _injure_crew(ctx, ship, station)
    if taken == 0:
        return 0
    label = role_label(station)
    ctx.emit(
        "StationDamaged",
        message(
            "station_damaged",
            station=label,
            ship=ship["name"],
            points=taken,
            cause=cause,
            left=health(station),
            boxes=station["boxes"],
        ),
        ship=ship["id"],
        station=station["id"],
        points=taken,
        health=health(station),
    )
    if health(station) == 0:
        ctx.emit(
            "StationDown",
            message("station_down", station=label, ship=ship["name"]),
            ship=ship["id"],
            station=station["id"],
        )
    enforce_limit(ctx, ship, station)
    return taken


def _injure_crew(ctx: Context, ship: Ship, station: Station) -> None:
    crew = station["crew"]
    label = role_label(station)
    # G-DMG-9 / G-CREW-3: an unconscious or dead character no longer mans the station.
    if crew is None or crew.get("character") is None or not manned(ctx.state, station):
        ctx.emit(
            "RedBoxFilled",
            message("red_box_filled", station=label, ship=ship["name"]),
            ship=ship["id"],
            station=station["id"],
        )
        return
    character = ctx.state["characters"][crew["character"]]
    roll = ctx.dice.roll(6)
    injure(
        ctx, character, roll, message("cause_red_box", station=label, ship=ship["name"], roll=roll)
    )


def damage_hull(ctx: Context, ship: Ship, points: int, cause: Message) -> int:
    """Fill Hull boxes one by one: red boxes hit every station (G-DMG-5); zero destroys
    (G-DMG-2)."""
    hull = ship["hull"]
    taken = 0
    for _ in range(points):
        if health(hull) == 0:
            break
        hull["damage"] += 1
        taken += 1
        box = hull["damage"]
        ctx.emit(
            "HullHit",
            message("hull_hit", ship=ship["name"], box=box, left=health(hull), boxes=hull["boxes"]),
            log=False,
            ship=ship["id"],
            box=box,
            red=box in hull["red"],
            hull=health(hull),
        )
        if box in hull["red"]:
            ctx.emit(
                "RedHullBoxFilled",
                message("red_hull_box_filled", ship=ship["name"]),
                ship=ship["id"],
                box=box,
            )
            for station in ship["stations"].values():
                damage_station(ctx, ship, station, 1, message("cause_red_hull_box"))
        HOOKS.hull_box_filled(ctx, ship)
        if health(hull) == 0:
            destroy(ctx, ship)
            break
    return taken


def destroy(ctx: Context, ship: Ship, by_gm: bool = False) -> None:
    if ship["destroyed"]:
        return
    ship["destroyed"] = True
    ship["shields"]["active"] = False
    ctx.emit(
        "ShipDestroyed",
        message("ship_destroyed_by_gm" if by_gm else "ship_destroyed", ship=ship["name"]),
        ship=ship["id"],
    )


def damage_shields_box(ctx: Context, ship: Ship) -> None:
    """A system hit on the shield generator: one box, whether or not the shields are up."""
    ship["shields"]["damage"] += 1
    ship["shields"]["suffered"] += 1
    ctx.emit(
        "ShieldGeneratorHit",
        message("shield_generator_hit", ship=ship["name"]),
        ship=ship["id"],
        shields=health(ship["shields"]),
    )


def first_station(ship: Ship, role: str) -> Station | None:
    stations: dict[str, Station] = ship["stations"]
    for station in stations.values():
        if station["role"] == role:
            return station
    return None
