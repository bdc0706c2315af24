"""Module `starmada` (M-STARMADA): each filled Hull box rolls on a d6 chart that wears the
ship's systems down by its damage factor, and Engineering is not asked where Hull damage goes."""

from __future__ import annotations

from ...content import ShipPlacement
from ...core.context import Context
from ...core.damage import damage_shields_box, damage_station, first_station
from ...core.messages import message
from ...core.state import Ship, State, health

MODULE = "starmada"

# M-STARMADA's d6 chart: what one filled Hull box adds to each system's running total.
STARMADA_CHART = {
    1: {"thrust": 1, "weapons": 3, "ecm": 0, "shields": 0},
    2: {"thrust": 2, "weapons": 0, "ecm": 2, "shields": 0},
    3: {"thrust": 3, "weapons": 0, "ecm": 0, "shields": 1},
    4: {"thrust": 0, "weapons": 1, "ecm": 3, "shields": 0},
    5: {"thrust": 0, "weapons": 2, "ecm": 0, "shields": 2},
    6: {"thrust": 0, "weapons": 0, "ecm": 1, "shields": 3},
}
STARMADA_SYSTEM_ROLE = {"thrust": "pilot", "weapons": "weapons", "ecm": "comms"}
STARMADA_PERCENT = {"normal": 29, "fragile": 17, "reinforced": 67}


def no_system_damage(placement: ShipPlacement | None) -> dict[str, int]:
    """Each system's running total, as a ship starts (or comes in) undamaged."""
    return {"thrust": 0, "weapons": 0, "ecm": 0, "shields": 0}


def damage_factor(hull_size: int, systems: str) -> int:
    """Hull size times 29% (17% fragile, 67% reinforced), rounded to the nearest whole number."""
    hundredths = hull_size * STARMADA_PERCENT[systems]
    return max(1, (hundredths + 50) // 100)


def starmada_check(ctx: Context, ship: Ship) -> None:
    """M-STARMADA: one d6 per filled Hull box feeds four running totals; each multiple of the damage
    factor costs that system a box, but never its last one."""
    factor = damage_factor(ship["hull_size"], ship["systems"])
    roll = ctx.dice.roll(6)
    totals = ship["starmada"]
    crossed: list[str] = []
    for system, add in STARMADA_CHART[roll].items():
        before = totals[system]
        totals[system] = before + add
        for _ in range(totals[system] // factor - before // factor):
            crossed.append(system)
    ctx.emit(
        "SystemDamageRolled",
        message(
            "system_damage_rolled",
            ship=ship["name"],
            roll=roll,
            thrust=totals["thrust"],
            weapons=totals["weapons"],
            ecm=totals["ecm"],
            shields=totals["shields"],
            factor=factor,
        ),
        log=False,
        ship=ship["id"],
        purpose="starmada",
        roll=roll,
        totals=dict(totals),
        factor=factor,
        systems_hit=crossed,
    )
    for system in crossed:
        if system == "shields":
            if health(ship["shields"]) > 1:
                damage_shields_box(ctx, ship)
            continue
        station = first_station(ship, STARMADA_SYSTEM_ROLE[system])
        if station is not None and health(station) > 1:
            damage_station(ctx, ship, station, 1, message("cause_system_hit", system=system))


def on(state: State) -> bool:
    return MODULE in state["modules"]


def hull_box_filled(ctx: Context, ship: Ship) -> None:
    if on(ctx.state):
        starmada_check(ctx, ship)
