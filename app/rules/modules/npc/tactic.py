"""M-NPC-2: the written tactic an NPC ship's crew follows, sharper with each Crew Quality.

When Orders open, every station of an automated NPC ship gets exactly one order (or passes) from
`choose`. Each step below is numbered as in docs/rules.md ("NPC crews and seats"), and
the orders still go through `submit_order`, so a tactic can never give an order a player could
not. The GM sees them all before the reveal and may replace any (M-NPC-2, M-NPC-3).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...content import QUALITIES, RANGE_BANDS, band_index
from ...core.commands import Command, PassOrder, SubmitOrder
from ...core.context import Context
from ...core.errors import RulesError, refuse
from ...core.hooks import HOOKS
from ...core.orders import pass_order, stations_expected, submit_order
from ...core.state import (
    Ship,
    State,
    Station,
    distance,
    get_ship,
    health,
    operational,
    reaching,
    zone_map,
)
from ..weapons.weapons import has_pdc, striking
from ..zones.zones import moves_from, plan_move
from . import npc

BASIC, PROFICIENT, TALENTED, EXCEPTIONAL = 1, 2, 3, 4


def _enemies(state: State, ship: Ship) -> list[Ship]:
    return sorted(
        (s for s in state["ships"].values() if s["side"] != ship["side"] and not s["destroyed"]),
        key=lambda s: s["id"],
    )


def _reaching(state: State, ship: Ship, target: Ship) -> list[str]:
    ready = [w for w in ship["weapons"] if HOOKS.can_fire(state, w)]
    return [w["id"] for w in reaching(ship, target, ready)]


def _nearest(ship: Ship, ships: list[Ship]) -> Ship:
    return min(ships, key=lambda s: (distance(ship, s), s["id"]))


def _weakest(ships: list[Ship]) -> Ship:
    return min(ships, key=lambda s: (health(s["hull"]), s["id"]))


def _hull_low(ship: Ship) -> bool:
    return health(ship["hull"]) * 2 < int(ship["hull"]["boxes"])


def _worst(stations: list[Station]) -> Station | None:
    """The most hurt station: least health left, then most damage, then by id."""
    hurt = [st for st in stations if st["damage"] > 0]
    return min(hurt, key=lambda st: (health(st), -st["damage"], st["id"]), default=None)


def _first(ship: Ship, role: str) -> Station | None:
    return next((st for st in ship["stations"].values() if st["role"] == role), None)


def _targets(state: State, ship: Ship) -> list[Ship]:
    return [e for e in _enemies(state, ship) if _reaching(state, ship, e)]


def _weapons(state: State, ship: Ship, station: Station, rank: int) -> dict[str, Any] | None:
    # W1 (Exceptional): torpedoes striking this turn are shot down first (needs the weapons
    # module); one still a turn or more out is left for the turn it strikes (M-WEAPONS-4).
    if rank >= EXCEPTIONAL and has_pdc(ship) and striking(state, ship["id"]):
        return {"action": "point_defence"}
    # W2: only ships some weapon reaches now; none, and Weapons passes.
    targets = _targets(state, ship)
    if not targets:
        return None
    # W3: the nearest of them; Exceptional focuses the weakest (least Hull left).
    target = _weakest(targets) if rank >= EXCEPTIONAL else _nearest(ship, targets)
    order: dict[str, Any] = {
        "action": "attack",
        "target": target["id"],
        "weapons": tuple(_reaching(state, ship, target)),
    }
    # W4 (Talented+): shields down, aim at its most hurt station that still works.
    if rank >= TALENTED and not target["shields"]["active"]:
        aim = _worst([st for st in target["stations"].values() if operational(st)])
        if aim is not None:
            order["target_station"] = aim["id"]
    return order


def _pilot(state: State, ship: Ship, station: Station, rank: int) -> dict[str, Any] | None:
    # P1 (Proficient+): Hull under half, evade.
    if rank >= PROFICIENT and _hull_low(ship):
        return {"action": "evasive"}
    enemies = _enemies(state, ship)
    if not enemies or not ship["weapons"]:
        return None
    # P2: an enemy already in reach, hold the position (pass).
    if _targets(state, ship):
        return None
    # P3: close in on the nearest enemy (Exceptional: the weakest) until the longest weapon
    # reaches it; the roll at the reveal decides how far the ship gets.
    target = _weakest(enemies) if rank >= EXCEPTIONAL else _nearest(ship, enemies)
    if zone_map(state) is not None:
        return _closer_zone(state, ship, target)
    reach = RANGE_BANDS[max(band_index(w["max_range"]) for w in ship["weapons"])].max_squares
    steps = min(distance(ship, target) - reach, npc.best_roll(ship))
    dx, dy = target["x"] - ship["x"], target["y"] - ship["y"]
    width, height = state["settings"]["map_width"], state["settings"]["map_height"]
    x = min(width - 1, max(0, ship["x"] + max(-steps, min(steps, dx))))
    y = min(height - 1, max(0, ship["y"] + max(-steps, min(steps, dy))))
    return {"action": "manoeuvre", "x": x, "y": y}


def _closer_zone(state: State, ship: Ship, target: Ship) -> dict[str, Any] | None:
    """P3 on a zone map (G-ZONE-3): of the zones the best roll pays for, the one fewest steps from
    the target, then the cheapest, then by id; none nearer than here, and the Pilot passes."""
    zones = zone_map(state)
    assert zones is not None
    best = npc.best_roll(ship)
    here = distance(ship, target)
    choices = [
        (zones["steps"][dest][target["zone"]], move["need"], dest)
        for dest, move in moves_from(state, ship).items()
        if plan_move(state, ship, dest, best) is not None
    ]
    closer = [c for c in choices if c[0] < here]
    if not closer:
        return None
    return {"action": "manoeuvre", "zone": min(closer)[2]}


def _comms(state: State, ship: Ship, station: Station, rank: int) -> dict[str, Any] | None:
    enemies = _enemies(state, ship)
    if not enemies:
        return None
    # C1 (Talented+): lock on first whenever Weapons has something to shoot at.
    if rank >= TALENTED and _targets(state, ship):
        return {"action": "lock"}
    # C2: otherwise jam the nearest enemy.
    return {"action": "jam", "target": _nearest(ship, enemies)["id"]}


def _engineering(state: State, ship: Ship, station: Station, rank: int) -> dict[str, Any] | None:
    # E1: Engineering at zero can only repair itself (G-DMG-8).
    if not operational(station):
        return {"action": "repair", "target_station": station["id"]}
    stations = list(ship["stations"].values())
    # E2 (Proficient+): a station that is down comes first.
    down = _worst([st for st in stations if not operational(st)])
    if rank >= PROFICIENT and down is not None:
        return {"action": "repair", "target_station": down["id"]}
    # E3: shields that are down but still have points go up.
    shields = ship["shields"]
    if shields["boxes"] and health(shields) and not shields["active"]:
        return {"action": "shields_up"}
    # E4 (Proficient+): repair the most hurt station.
    worst = _worst(stations)
    if rank >= PROFICIENT and worst is not None:
        return {"action": "repair", "target_station": worst["id"]}
    return None


def _captain(state: State, ship: Ship, station: Station, rank: int) -> dict[str, Any] | None:
    pilot, weapons = _first(ship, "pilot"), _first(ship, "weapons")
    # K1 (Proficient+): Hull under half, drive the Pilot (the evasion).
    if rank >= PROFICIENT and _hull_low(ship) and pilot is not None and operational(pilot):
        return {"action": "command", "target_station": pilot["id"]}
    # K2: drive Weapons when it has a target, else the Pilot closing in.
    if weapons is not None and operational(weapons) and _targets(state, ship):
        return {"action": "command", "target_station": weapons["id"]}
    if pilot is not None and operational(pilot):
        return {"action": "command", "target_station": pilot["id"]}
    return None


ROLE_TACTICS = {
    "weapons": _weapons,
    "pilot": _pilot,
    "comms": _comms,
    "engineering": _engineering,
    "captain": _captain,
}


def choose(state: State, ship: Ship, station: Station) -> dict[str, Any] | None:
    """The tactic's order for one station, as SubmitOrder fields; None to pass."""
    tactic = ROLE_TACTICS.get(station["role"])
    return tactic(state, ship, station, npc.rating(ship)) if tactic else None


def npc_order(state: State, ship_id: str, station_id: str) -> SubmitOrder | PassOrder | None:
    """The tactic's order for one NPC station as a command (for the GM's "let the NPCs choose"
    when automation is off); None for a station the Crew Quality does not work."""
    ship = get_ship(state, ship_id)
    station = ship["stations"][station_id]
    if not npc.is_npc_station(state, ship, station):
        return None
    fields = choose(state, ship, station)
    if fields is None:
        return PassOrder(ship=ship_id, station=station_id)
    return SubmitOrder(ship=ship_id, station=station_id, **fields)


def give_orders(ctx: Context, only: str | None = None) -> None:
    """When Orders open: one order (or a pass) for every waiting station of each automated NPC
    ship (or of the ship `only`)."""
    state = ctx.state
    if not npc.on(state):
        return
    for key in stations_expected(state):
        ship_id, station_id = key.split("/", 1)
        ship = state["ships"][ship_id]
        station = ship["stations"][station_id]
        if key in state["orders"] or not npc.is_npc_station(state, ship, station):
            continue
        if not npc.automated(ship) or only not in (None, ship_id):
            continue
        fields = choose(state, ship, station)
        if fields is not None:
            try:
                submit_order(ctx, SubmitOrder(ship=ship_id, station=station_id, **fields))
            except RulesError:
                fields = None  # a choice the rules refuse (it should not happen) passes instead
        if fields is None:
            pass_order(ctx, PassOrder(ship=ship_id, station=station_id))
        state["orders"][key]["by"] = "npc"


@dataclass(frozen=True)
class SetNpc(Command):
    """M-NPC-1/2: an NPC ship's Crew Quality and whether its tactic gives its orders."""

    ship: str
    quality: str | None = None
    auto: bool | None = None


def set_npc(ctx: Context, cmd: SetNpc) -> None:
    """GM: a ship's Crew Quality and whether the tactic gives its orders (M-NPC-1, M-NPC-2).
    Switching automation on during Orders gives the ship's missing orders at once."""
    ship = get_ship(ctx.state, cmd.ship)
    if ship["crew"] != "npc":
        raise refuse("NOT_AN_NPC_SHIP", ship=ship["name"])
    if cmd.quality is not None and cmd.quality not in QUALITIES:
        raise refuse("UNKNOWN_QUALITY", quality=cmd.quality, known=list(QUALITIES))
    settings = dict(ship.get("npc") or {"quality": npc.quality(ship), "auto": True})
    if cmd.quality is not None:
        settings["quality"] = cmd.quality
    if cmd.auto is not None:
        settings["auto"] = cmd.auto
    ship["npc"] = settings
    # Crew Quality and automation are the GM's (M-NPC-1/2): the event says nothing to anyone else.
    ctx.emit(
        "NpcCrewSet",
        None,
        log=False,
        ship=ship["id"],
        secret={"quality": settings["quality"], "auto": settings["auto"]},
    )
    if ctx.state["phase"] == "orders" and settings["auto"]:
        give_orders(ctx, only=ship["id"])
