"""Zone maps in play (G-ZONE-2..5): what a move between zones costs, moving, hazards, cover.

The map itself is `state["map"]` (zone_content.map_data), absent on a grid; each ship on it has a
`zone` (state.put_in_zone). Distance and range bands are in state.py, for every caller alike.
"""

from __future__ import annotations

import random
from typing import Any

from ...core.commands import AddShip
from ...core.context import Context
from ...core.damage import damage_hull
from ...core.errors import refuse
from ...core.messages import message
from ...core.state import Ship, State, ZoneMap, distance, get_zone, put_in_zone, zone_map

Plan = dict[str, Any]
MAX_MOVE = 2  # 003: impulse moves up to two zones


def _paths(zones: ZoneMap, start: str, dest: str) -> list[list[str]]:
    """Every shortest way from one zone to another at most two steps away, in a fixed order."""
    steps = zones["steps"][start].get(dest)
    if steps == 1:
        return [[start, dest]]
    if steps == 2:
        return [
            [start, middle, dest]
            for middle in sorted(zones["zones"][start]["touches"])
            if dest in zones["zones"][middle]["touches"]
        ]
    return []


def _costs(zones: ZoneMap, settings: dict[str, Any], path: list[str]) -> Plan:
    """G-ZONE-3/4: the move's own value, plus the cost of each zone left on the way: difficult
    zones must be paid; hazardous ones may go unpaid, a Hull point for each point short."""
    left = [zones["zones"][zone] for zone in path[:-1]]
    base = int(settings["zone_move_one"] if len(path) == 2 else settings["zone_move_two"])
    must = sum(z["cost"] for z in left if z["terrain"] == "difficult")
    hazard = sum(z["cost"] for z in left if z["terrain"] == "hazardous")
    # Why it costs that, for the screens: the move itself, then each zone left that adds to it.
    terrain = [
        {"zone": z["name"], "terrain": z["terrain"], "cost": z["cost"]}
        for z in left
        if z["terrain"] != "open" and z["cost"]
    ]
    return {
        "path": path,
        "need": base + must,
        "full": base + must + hazard,
        "base": base,
        "terrain": terrain,
    }


def plan_move(state: State, ship: Ship, dest: str, value: int) -> Plan | None:
    """The best way to `dest` for this action value: the one that leaves the fewest hazard
    points unpaid, then the cheapest; None when no way is paid for. The plan's `unpaid` is the
    Hull damage the hazards will deal."""
    zones = zone_map(state)
    assert zones is not None
    best: Plan | None = None
    for path in _paths(zones, ship["zone"], dest):
        plan = _costs(zones, state["settings"], path)
        if value < plan["need"]:
            continue
        plan["unpaid"] = max(0, plan["full"] - value)
        if best is None or (plan["unpaid"], plan["full"]) < (best["unpaid"], best["full"]):
            best = plan
    return best


def moves_from(state: State, ship: Ship) -> dict[str, dict[str, Any]]:
    """For the screens: every zone one or two steps away, with the least value that gets there
    (`need`), the value that leaves no hazard unpaid (`full`), and why, along the cheapest way:
    the move's own cost (`base`) and the difficult or hazardous zones it leaves (`terrain`)."""
    zones = zone_map(state)
    assert zones is not None
    out: dict[str, dict[str, int]] = {}
    for dest, steps in ship["zone_steps"].items():
        if not 0 < steps <= MAX_MOVE:
            continue
        costs = [_costs(zones, state["settings"], p) for p in _paths(zones, ship["zone"], dest)]
        cheapest = min(costs, key=lambda c: (c["need"], c["full"]))
        out[dest] = {
            "steps": steps,
            "need": min(c["need"] for c in costs),
            "full": min(c["full"] for c in costs),
            "base": cheapest["base"],
            "terrain": cheapest["terrain"],
        }
    return out


def check_move(state: State, ship: Ship, dest: Any, value: int) -> str:
    """A Pilot's zone order, judged when it is given: the zone must exist, be one or two steps
    away, and the cards must pay for the move and any difficult terrain left on the way."""
    zones = zone_map(state)
    assert zones is not None
    if dest is None:
        raise refuse("NO_DESTINATION", "no_destination_zone")
    zone = get_zone(zones, dest)
    steps = ship["zone_steps"][zone["id"]]
    if steps == 0:
        raise refuse("SAME_ZONE", "same_zone_refused", ship=ship["name"], zone=zone["name"])
    if steps > MAX_MOVE:
        raise refuse("TOO_FAR", "zone_too_far", zone=zone["name"], steps=steps)
    if plan_move(state, ship, zone["id"], value) is None:
        need = moves_from(state, ship)[zone["id"]]["need"]
        raise refuse("TOO_FAR", "zone_needs_value", zone=zone["name"], need=need, value=value)
    return str(zone["id"])


def manoeuvre(ctx: Context, ship: Ship, dest: str, value: int) -> None:
    """Resolve a zone move with the value the Pilot has now (a GM penalty may have cut it): to
    the chosen zone if paid for, else one step on its way if that is, else nowhere."""
    state = ctx.state
    zones = zone_map(state)
    assert zones is not None
    plan = plan_move(state, ship, dest, value)
    if plan is None:
        first_steps = {path[1] for path in _paths(zones, ship["zone"], dest) if len(path) == 3}
        plans = [plan_move(state, ship, step, value) for step in sorted(first_steps)]
        found = [p for p in plans if p is not None]
        plan = min(found, key=lambda p: (p["unpaid"], p["full"])) if found else None
    start = zones["zones"][ship["zone"]]
    if plan is None:
        ctx.emit(
            "ShipHeld",
            message("ship_held", ship=ship["name"], zone=start["name"], value=value),
            ship=ship["id"],
            zone=start["id"],
            value=value,
        )
        return
    end = zones["zones"][plan["path"][-1]]
    put_in_zone(zones, ship, end["id"])
    route: dict[str, Any] = {"from": start["id"], "to": end["id"]}  # "from" is a keyword
    ctx.emit(
        "ShipMoved",
        message("ship_moved_zone", ship=ship["name"], zone=start["name"], to_zone=end["name"]),
        ship=ship["id"],
        path=plan["path"],
        **route,
    )
    if plan["unpaid"]:
        hazard = [
            zones["zones"][z]["name"]
            for z in plan["path"][:-1]
            if zones["zones"][z]["terrain"] == "hazardous"
        ]
        ctx.emit(
            "HazardDamage",
            message("hazard_damage", ship=ship["name"], zones=hazard, damage=plan["unpaid"]),
            ship=ship["id"],
            damage=plan["unpaid"],
        )
        damage_hull(ctx, ship, plan["unpaid"], message("cause_hazard", zones=hazard))


def cover(state: State, attacker: Ship, target: Ship) -> list[list[Any]]:
    """G-ZONE-5: the target's cover as a Defending bonus ([reason, value], like a modifier), only
    against an attack from another zone."""
    zones = zone_map(state)
    if zones is None or distance(attacker, target) == 0:
        return []
    bonus = int(state["settings"]["cover_bonus"])
    if not zones["zones"][target["zone"]]["cover"] or bonus == 0:
        return []
    return [["cover", bonus]]


def place(ctx: Context, ship: Ship, dest: Any) -> None:
    """The GM stands a ship in any zone, whatever the distance or terrain."""
    zones = zone_map(ctx.state)
    if zones is None:
        raise refuse("NOT_A_ZONE_MAP", "squares_give_square")
    zone = get_zone(zones, dest)
    put_in_zone(zones, ship, zone["id"])
    ctx.emit(
        "ShipPlaced",
        message("ship_placed_in_zone", ship=ship["name"], zone=zone["name"]),
        ship=ship["id"],
        zone=zone["id"],
    )


def refuse_squares(state: State, ship: Ship) -> None:
    """A ship on a zone map stands in a zone, never on a square (G-ZONE-1)."""
    if "zone" in ship:
        raise refuse("ZONE_MAP", "zone_map_place")


def arrival(state: State, cmd: AddShip) -> tuple[str, str] | None:
    """On a zone map a ship the GM adds arrives in a zone (G-ZONE-1): its name for the log, and
    its id."""
    zones = zone_map(state)
    if zones is None:
        return None
    if cmd.zone is None:
        raise refuse("ZONE_MAP", "zone_map_give_zone")
    zone = get_zone(zones, cmd.zone)
    return zone["name"], zone["id"]


def arrived(state: State, ship: Ship, zone: Any) -> None:
    zones = zone_map(state)
    if zones is not None:
        put_in_zone(zones, ship, str(zone))


def pick_destination(state: State, ship: Ship, value: int, rng: random.Random) -> str | None:
    """For the bot: any zone this value pays for, or None."""
    affordable = [d for d in sorted(moves_from(state, ship)) if plan_move(state, ship, d, value)]
    return rng.choice(affordable) if affordable else None
