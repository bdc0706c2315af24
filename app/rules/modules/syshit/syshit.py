"""Module `syshit` (M-SYSHIT): a d20 on the scenario's hit table sends part of each hit's Hull
damage to the system it names, and Engineering is not asked where Hull damage goes."""

from __future__ import annotations

from ...core.context import Context
from ...core.damage import damage_shields_box, damage_station, first_station
from ...core.messages import Message, message
from ...core.state import Ship, State, health

MODULE = "syshit"


def on(state: State) -> bool:
    return MODULE in state["modules"]


def hull_left(points: int, ctx: Context, ship: Ship, cause: Message) -> int:
    """Of one hit's Hull damage, what did not go to a system instead."""
    return points - system_hit(ctx, ship, points, cause) if on(ctx.state) else points


def system_hit(ctx: Context, ship: Ship, points: int, cause: Message) -> int:
    """M-SYSHIT: a d20 on the scenario's table picks the system; a station hit takes half the
    Hull damage (rounded down), and at least 1 point always stays on the Hull."""
    roll = ctx.dice.roll(20)
    system = next(
        (name for low, high, name in ctx.state["settings"]["hit_table"] if low <= roll <= high),
        "hull",
    )
    station = first_station(ship, system) if system not in ("hull", "shields") else None
    if system == "shields":  # the shield generator (G-SHIP-2), as far as it has boxes left
        share = min(points // 2, health(ship["shields"]))
    else:
        share = points // 2 if station is not None else 0
    ctx.emit(
        "SystemHitRolled",
        message("system_hit_diverted", ship=ship["name"], roll=roll, system=system, points=share)
        if share
        else message("system_hit", ship=ship["name"], roll=roll, system=system),
        ship=ship["id"],
        purpose="system hit",
        roll=roll,
        system=system,
        points=share,
    )
    if share and station is not None:
        return damage_station(ctx, ship, station, share, cause)
    if share:
        for _ in range(share):
            damage_shields_box(ctx, ship)
    return share
