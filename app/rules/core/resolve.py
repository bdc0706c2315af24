"""Reveal and resolution: the seven steps of a turn, run from the step table in phases.py."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .cards import discard, draw_up
from .context import Context
from .damage import damage_hull, damage_shields, damage_station, first_station
from .errors import refuse
from .hooks import HOOKS, defending
from .messages import Message, message
from .orders import stations_expected
from .phases import ACTIONS, RESOLVE_STEPS
from .state import (
    Ship,
    card_of,
    distance,
    distance_words,
    hand_limit,
    health,
    manned,
    operational,
    range_band,
    reaching,
    role_label,
)
from .timing import clear_deadline, set_deadline

Order = dict[str, Any]


def reveal_and_resolve(ctx: Context) -> None:
    """Reveal every order at once (unsent ones pass), play the cards, then resolve in order."""
    state = ctx.state
    for key in stations_expected(state):
        if key not in state["orders"]:
            ship_id, station_id = key.split("/", 1)
            state["orders"][key] = {
                "ship": ship_id,
                "station": station_id,
                "action": "pass",
                "cards": [],
                "value": 0,
                "by": "timeout",
            }
    for order in state["orders"].values():
        ship = state["ships"][order["ship"]]
        # M-SEATS-2: an override's cards come from the station that gave it, which must still work.
        station = ship["stations"][order.get("from", order["station"])]
        _recheck(ctx, ship, station, order)
        HOOKS.at_reveal(ctx, ship, station, order)
        for card_id in order["cards"]:
            discard(ctx, station, card_id)
        order["played"] = [dict(card_of(state, c)) for c in order["cards"]]
    state["revealed"] = {"turn": state["turn"], "orders": dict(state["orders"]), "results": []}
    clear_deadline(state)
    ctx.emit(
        "OrdersRevealed",
        message("orders_revealed", turn=state["turn"]),
        orders=[_public_order(state, o) for o in state["orders"].values()],
    )
    state["pending"] = {"hits": [], "next_step": 0}
    run_steps(ctx)


def _recheck(ctx: Context, ship: Ship, station: dict[str, Any], order: Order) -> None:
    """An order given earlier may no longer stand: the GM may have taken the station down or the
    cards out of the hand since. Count only cards still held; a station now down passes."""
    held = [c for c in order["cards"] if c in station["hand"]]
    if held != order["cards"]:
        order["cards"] = held
        order["value"] = sum(card_of(ctx.state, c)["value"] for c in held)
    repairing_itself = order["action"] == "repair" and order.get("target_station") == station["id"]
    down = not operational(station) and not (station["role"] == "engineering" and repairing_itself)
    if order["action"] != "pass" and (down or ship["destroyed"]):
        order.update(action="pass", cards=[], value=0)
        ctx.emit(
            "OrderVoided",
            message("order_voided", station=role_label(station), ship=ship["name"]),
            ship=ship["id"],
            station=station["id"],
        )


def _public_order(state: dict[str, Any], order: Order) -> dict[str, Any]:
    ship = state["ships"][order["ship"]]
    station = ship["stations"][order["station"]]
    return {**order, **describe_order(state, ship, station, order)}


def describe_order(
    state: dict[str, Any], ship: Ship, station: dict[str, Any], order: Order
) -> dict[str, Message]:
    """A revealed order in words: `who` gave it, and the whole line (`words`)."""
    if order.get("from"):
        who = message(
            "station_of_ship_overridden",
            station=role_label(station),
            ship=ship["name"],
            by=role_label(ship["stations"][order["from"]]),
        )
    else:
        who = message("station_of_ship", station=role_label(station), ship=ship["name"])
    action = order["action"]
    if action == "pass":
        if order.get("overriding"):
            other = role_label(ship["stations"][order["overriding"]])
            return {"who": who, "words": message("order_gave_other", who=who, station=other)}
        return {"who": who, "words": message("order_passed", who=who)}
    target: str | Message | None = None
    if order.get("target"):
        target = state["ships"][order["target"]]["name"]
        if order.get("target_station"):
            target = message("ship_and_station", ship=target, station=order["target_station"])
    elif order.get("target_station"):
        target = message("station_name", station=order["target_station"])
    elif action == "manoeuvre":
        target = HOOKS.destination(state, order) or message("square", x=order["x"], y=order["y"])
    valued = bool(ACTIONS[action]["kinds"])
    if target is None and valued:
        words = message("order_valued", who=who, action=action, value=order["value"])
    elif target is None:
        words = message("order_plain", who=who, action=action)
    elif valued:
        words = message(
            "order_valued_at", who=who, action=action, value=order["value"], target=target
        )
    else:
        words = message("order_at", who=who, action=action, target=target)
    return {"who": who, "words": words}


def run_steps(ctx: Context) -> None:
    """Run the remaining steps; stop (and keep the place) when damage waits for Engineering."""
    pending = ctx.state["pending"]
    while pending["next_step"] < len(RESOLVE_STEPS):
        step, role = RESOLVE_STEPS[pending["next_step"]]
        pending["next_step"] += 1
        waiting = STEP_HANDLERS[step](ctx, _orders_of(ctx, role))
        if waiting:
            return
    ctx.state["pending"] = None


def _orders_of(ctx: Context, role: str | None) -> list[Order]:
    if role is None:
        return []
    state = ctx.state
    found = []
    for order in state["orders"].values():
        ship = state["ships"][order["ship"]]
        station = ship["stations"][order["station"]]
        if station["role"] == role and order["action"] != "pass" and not ship["destroyed"]:
            found.append(order)
    return found


# --- Modifiers ---------------------------------------------------------------------------------


def add_modifier(
    ctx: Context,
    ship: str,
    applies: str,
    value: int,
    reason: str,
    until: dict[str, Any] | None,
    station: str | None = None,
) -> dict[str, Any]:
    modifier = {
        "id": ctx.next_id(),
        "ship": ship,
        "applies": applies,
        "station": station,
        "value": value,
        "reason": reason,
        "until": until,
    }
    ctx.state["modifiers"].append(modifier)
    return modifier


def modifiers_for(
    ctx: Context, ship: str, applies: str, station: str | None = None
) -> list[list[Any]]:
    """[reason, value] pairs (lists, not tuples, so they survive a JSON round trip)."""
    return [
        [m["reason"], m["value"]]
        for m in ctx.state["modifiers"]
        if m["ship"] == ship
        and m["applies"] == applies
        and (station is None or m["station"] == station)
    ]


def expire_modifiers(ctx: Context, step: str) -> None:
    turn = ctx.state["turn"]
    ctx.state["modifiers"] = [
        m
        for m in ctx.state["modifiers"]
        if not (m["until"] and m["until"]["step"] == step and m["until"]["turn"] <= turn)
    ]


def bonus_from(ctx: Context, value: int) -> int:
    """Comms and Captain bonuses: the scenario's table, else the value halved, rounded up."""
    value = max(0, value)  # a GM penalty can push the value below 0: that earns no bonus
    table = ctx.state["settings"]["bonus_table"]
    if table:
        return int(table[min(value, len(table) - 1)])
    return math.ceil(value / 2)


def action_value(ctx: Context, order: Order) -> tuple[int, list[list[Any]]]:
    """Cards played plus any Command or GM bonus given to that station this turn (G-TURN-1)."""
    # An NPC crew's value is its rating and die (M-NPC-1), kept on the order at the reveal.
    parts: list[list[Any]] = [list(p) for p in order.get("breakdown", [["cards", order["value"]]])]
    parts += [list(p) for p in order.get("adjust", ())]  # M-SEATS-2: an override's −2
    parts += modifiers_for(ctx, order["ship"], "station", order["station"])
    return sum(v for _, v in parts), parts


def _this_turn(ctx: Context) -> dict[str, Any]:
    return {"turn": ctx.state["turn"], "step": "end"}


# --- Steps ---------------------------------------------------------------------------------------


def step_command(ctx: Context, orders: list[Order]) -> bool:
    for order in orders:
        ship = ctx.state["ships"][order["ship"]]
        value, _ = action_value(ctx, order)
        bonus = bonus_from(ctx, value)
        target = ship["stations"][order["target_station"]]
        add_modifier(
            ctx, ship["id"], "station", bonus, "command", _this_turn(ctx), station=target["id"]
        )
        ctx.emit(
            "CommandGiven",
            message("command_given", ship=ship["name"], station=role_label(target), bonus=bonus),
            ship=ship["id"],
            station=target["id"],
            bonus=bonus,
        )
    return False


def step_manoeuvre(ctx: Context, orders: list[Order]) -> bool:
    expire_modifiers(ctx, "manoeuvre")  # last turn's evasive ends here
    HOOKS.before_manoeuvre(ctx, orders)  # M-WEAPONS-2: releases and breaking free
    for order in orders:
        ship = ctx.state["ships"][order["ship"]]
        value, _ = action_value(ctx, order)
        if order["action"] == "evasive":
            value = max(0, value)  # a penalty can spoil the dodge, not make the ship easier to hit
            add_modifier(
                ctx,
                ship["id"],
                "defence",
                value,
                "evasive",
                {"turn": ctx.state["turn"] + 1, "step": "manoeuvre"},
            )
            ctx.emit(
                "EvasiveManoeuvre",
                message("evasive_manoeuvre", ship=ship["name"], value=value),
                ship=ship["id"],
                value=value,
            )
            continue
        if HOOKS.move(ctx, ship, order, value):
            continue
        x, y = _towards(ship, order["x"], order["y"], value)
        before = (ship["x"], ship["y"])
        ship["x"], ship["y"] = x, y
        route: dict[str, Any] = {"from": list(before), "to": [x, y]}  # "from" is a keyword
        words = message(
            "ship_moved", ship=ship["name"], from_x=before[0], from_y=before[1], x=x, y=y
        )
        ctx.emit("ShipMoved", words, ship=ship["id"], **route)
    HOOKS.after_manoeuvre(ctx)  # M-WEAPONS-2: grapples hold
    return False


def _towards(ship: Ship, x: int, y: int, reach: int) -> tuple[int, int]:
    """Move as far as the value allows towards the chosen square (a GM penalty can shorten it)."""
    dx, dy = x - ship["x"], y - ship["y"]
    steps = max(abs(dx), abs(dy))
    if steps <= reach:
        return x, y
    reach = max(0, reach)
    return (ship["x"] + max(-reach, min(reach, dx)), ship["y"] + max(-reach, min(reach, dy)))


def step_ewar(ctx: Context, orders: list[Order]) -> bool:
    for order in orders:
        ship = ctx.state["ships"][order["ship"]]
        value, _ = action_value(ctx, order)
        bonus = bonus_from(ctx, value)
        if order["action"] == "lock":
            add_modifier(ctx, ship["id"], "attack", bonus, "lock", _this_turn(ctx))
            ctx.emit(
                "TargetLocked",
                message("target_locked", ship=ship["name"], bonus=bonus),
                ship=ship["id"],
                bonus=bonus,
            )
        else:
            target = ctx.state["ships"][order["target"]]
            add_modifier(ctx, target["id"], "attack", -bonus, "jammed", _this_turn(ctx))
            ctx.emit(
                "ShipJammed",
                message("ship_jammed", ship=ship["name"], target=target["name"], penalty=bonus),
                ship=ship["id"],
                target=target["id"],
                penalty=bonus,
            )
    return False


def step_repairs(ctx: Context, orders: list[Order]) -> bool:
    for order in orders:
        ship = ctx.state["ships"][order["ship"]]
        shields = ship["shields"]
        if order["action"] == "shields_up":
            if health(shields) == 0:
                ctx.emit(
                    "ShieldsFailedToRise",
                    message("shields_failed_to_rise", ship=ship["name"]),
                    ship=ship["id"],
                )
            elif not shields["active"]:
                shields["active"] = True
                ctx.emit(
                    "ShieldsRaised", message("shields_raised", ship=ship["name"]), ship=ship["id"]
                )
            continue
        if order["action"] == "shields_down":
            if shields["active"]:
                shields["active"] = False
                ctx.emit(
                    "ShieldsLowered", message("shields_lowered", ship=ship["name"]), ship=ship["id"]
                )
            continue
        repair(ctx, ship, order)
    return False


def repair(ctx: Context, ship: Ship, order: Order) -> None:
    """G-REP-1: (value + repair bonus) − (3 + damage suffered this combat), within 0..damage."""
    target_id = order["target_station"]
    if target_id == "shields":
        track = ship["shields"]
        if track["active"]:  # G-SHD-4: the generator must be off to be worked on
            track["active"] = False
            ctx.emit(
                "ShieldsLowered",
                message("shields_dropped_for_repairs", ship=ship["name"]),
                ship=ship["id"],
            )
    else:
        track = ship["stations"][target_id]
    value, parts = action_value(ctx, order)
    repair_mods = modifiers_for(ctx, ship["id"], "repair")
    parts += repair_mods
    total = value + sum(v for _, v in repair_mods)
    difficulty = 3 + track["suffered"]
    restored = max(0, min(track["damage"], total - difficulty))
    old_limit = hand_limit(track) if target_id != "shields" else 0
    track["damage"] -= restored
    repaired = {
        "ship": ship["name"],
        "value": parts,
        "suffered": track["suffered"],
        "score": total - difficulty,
        "restored": restored,
    }
    words = (
        message("shields_repaired", **repaired)
        if target_id == "shields"
        else message("station_repaired", station=role_label(track), **repaired)
    )
    ctx.emit(
        "RepairResolved",
        words,
        ship=ship["id"],
        station=target_id,
        value=total,
        difficulty=difficulty,
        restored=restored,
        health=health(track),
    )
    if target_id != "shields" and restored and manned(ctx.state, track):
        gained = hand_limit(track) - old_limit
        if gained > 0:  # G-REP-2: a larger limit is filled at once
            draw_up(ctx, ship, track, most=gained)


def step_attacks(ctx: Context, orders: list[Order]) -> bool:
    if HOOKS.attacks(ctx, orders):  # M-WEAPONS: launchers around G-HIT
        return False
    for order in orders:
        attack(ctx, order)
    return False


def _damage(weapon: dict[str, Any]) -> int:
    return int(weapon["damage"])


def attack(
    ctx: Context, order: Order, damage_of: Callable[[dict[str, Any]], int] = _damage
) -> dict[str, Any] | None:
    """G-HIT-1..4: one roll per attack; every weapon in range deals its damage on a hit. The
    event, or None when the target was already gone."""
    state = ctx.state
    ship = state["ships"][order["ship"]]
    target = state["ships"][order["target"]]
    station = ship["stations"][order["station"]]
    who = message("station_of_ship", station=role_label(station), ship=ship["name"])
    if target["destroyed"]:
        ctx.emit(
            "AttackCancelled",
            message("attack_cancelled", who=who, target=target["name"]),
            ship=ship["id"],
            target=target["id"],
        )
        return None
    squares = distance(ship, target)
    band = range_band(ship, target)
    far = distance_words(ship, target)
    weapons = [w for w in ship["weapons"] if w["id"] in order["weapons"]]
    in_range = reaching(ship, target, weapons)
    if not in_range:  # G-HIT-3: no roll at all
        return ctx.emit(
            "AttackResolved",
            message(
                "attack_out_of_range",
                who=who,
                weapons=[w["name"] for w in weapons],
                target=target["name"],
                distance=far,
            ),
            ship=ship["id"],
            station=station["id"],
            target=target["id"],
            hit=False,
            out_of_range=True,
            distance=squares,
            roll=None,
        )
    assert band is not None
    value, value_parts = action_value(ctx, order)
    attack_mods = modifiers_for(ctx, ship["id"], "attack")
    defence_mods = modifiers_for(ctx, target["id"], "defence") + defending(state, ship, target)
    roll = ctx.dice.roll(6)
    defence = target["defence"]
    score = (
        value + sum(v for _, v in attack_mods) + roll - (defence + sum(v for _, v in defence_mods))
    )
    hit = score >= band.to_hit
    damage = sum(damage_of(w) for w in in_range) if hit else 0
    aimed = order.get("target_station")
    if aimed and target["shields"]["active"]:
        aimed = None  # G-SHD-1: shields raised this turn protect the stations
    left_out = [w["name"] for w in weapons if w not in in_range]
    fired = {
        "who": who,
        "weapons": [w["name"] for w in in_range],
        "target": target["name"]
        if not aimed
        else message("ship_and_station", ship=target["name"], station=aimed),
        "value": value_parts + attack_mods,
        "roll": roll,
        "defence": [["defence", defence], *defence_mods],
        "score": score,
        "needed": band.to_hit,
        "band": band.label,
        "distance": far,
    }
    if left_out:
        fired["left_out"] = left_out
    if hit:
        words = message("attack_hit_partly" if left_out else "attack_hit", damage=damage, **fired)
    else:
        words = message("attack_missed_partly" if left_out else "attack_missed", **fired)
    event = ctx.emit(
        "AttackResolved",
        words,
        ship=ship["id"],
        station=station["id"],
        target=target["id"],
        target_station=aimed,
        hit=hit,
        out_of_range=False,
        distance=squares,
        band=band.id,
        needed=band.to_hit,
        roll=roll,
        score=score,
        damage=damage,
        purpose="to hit",
        breakdown={
            "value": value_parts,
            "attack": attack_mods,
            "d6": roll,
            "defence": defence,
            "defending": defence_mods,
        },
        # The dice's heading on the screens, without the sums the breakdown shows term by term.
        head=message("attack_fired", who=who, weapons=fired["weapons"], target=fired["target"]),
    )
    if hit and damage:
        ctx.state["pending"]["hits"].append(
            {
                "attacker": ship["id"],
                "target": target["id"],
                "damage": damage,
                "target_station": aimed,
                "cause": message("cause_attack", ship=ship["name"]),
            }
        )
    return event


def step_damage(ctx: Context, orders: list[Order]) -> bool:
    """G-DMG-1/3 per hit, then Hull damage per ship, waiting for Engineering where it may divert."""
    state = ctx.state
    hull_damage: dict[str, int] = {}
    for hit in state["pending"]["hits"]:
        target = state["ships"][hit["target"]]
        if target["destroyed"]:
            continue
        points = hit["damage"]
        if target["shields"]["active"]:
            points -= damage_shields(ctx, target, points, hit["cause"])
        if points <= 0:
            continue
        if hit["target_station"] and not target["shields"]["active"]:
            share = math.ceil(points / 2)
            # What the station cannot take (it is already low) stays on the Hull.
            points -= damage_station(
                ctx, target, target["stations"][hit["target_station"]], share, hit["cause"]
            )
        points = HOOKS.hull_hit(points, ctx, target, hit["cause"])
        if points > 0:
            hull_damage[target["id"]] = hull_damage.get(target["id"], 0) + points
    prompts: dict[str, dict[str, Any]] = {}
    for ship_id, points in hull_damage.items():
        ship = state["ships"][ship_id]
        engineering = first_station(ship, "engineering")
        random_allocation = HOOKS.random_allocation(state)
        if points >= 2 and engineering and manned(state, engineering) and not random_allocation:
            prompts[ship_id] = {"hull_damage": points, "answered": False, "allocations": {}}
        else:
            damage_hull(ctx, ship, points, message("cause_enemy_fire"))
    if not prompts:
        return False
    seconds = int(state["settings"]["allocation_seconds"])
    state["allocation"] = {"ships": prompts}
    state["phase"] = "allocation"
    set_deadline(state, "allocation", ctx.now + seconds)
    for ship_id, prompt in prompts.items():
        ctx.emit(
            "AllocationRequested",
            message(
                "allocation_requested",
                ship=state["ships"][ship_id]["name"],
                most=prompt["hull_damage"] - 1,
                damage=prompt["hull_damage"],
                seconds=seconds,
            ),
            ship=ship_id,
            hull_damage=prompt["hull_damage"],
            deadline=ctx.now + seconds,
        )
    return True


def allocate(ctx: Context, ship_id: str, allocations: dict[str, int], seat: str | None) -> None:
    """G-DMG-4: Engineering (or the GM) routes part of the Hull damage; 1 point stays on the
    Hull."""
    state = ctx.state
    prompt = (state["allocation"] or {}).get("ships", {}).get(ship_id)
    if prompt is None or prompt["answered"]:
        raise refuse("NO_ALLOCATION_PENDING")
    ship = state["ships"][ship_id]
    if seat is not None:
        engineering = first_station(ship, "engineering")
        crew = engineering["crew"] if engineering else None
        if crew is None or crew["seat"] != seat:
            raise refuse("NOT_YOUR_STATION", "divert_engineering_only")
    total = 0
    for station_id, points in allocations.items():
        if station_id not in ship["stations"]:
            raise refuse("NO_SUCH_STATION", ship=ship["name"], station=station_id)
        if points < 0:
            raise refuse("BAD_ALLOCATION", "negative_allocation")
        if points > health(ship["stations"][station_id]):
            raise refuse(
                "BAD_ALLOCATION",
                station=role_label(ship["stations"][station_id]),
                left=health(ship["stations"][station_id]),
            )
        total += points
    if total > prompt["hull_damage"] - 1:
        raise refuse(
            "HULL_MUST_TAKE_ONE", most=prompt["hull_damage"] - 1, damage=prompt["hull_damage"]
        )
    prompt["answered"] = True
    prompt["allocations"] = {k: v for k, v in allocations.items() if v}
    ctx.emit(
        "DamageAllocated",
        message(
            "damage_diverted",
            ship=ship["name"],
            points=total,
            stations=list(prompt["allocations"]),
        )
        if total
        else message("damage_not_diverted", ship=ship["name"]),
        ship=ship_id,
        allocations=prompt["allocations"],
    )
    if all(p["answered"] for p in state["allocation"]["ships"].values()):
        finish_allocation(ctx)


def finish_allocation(ctx: Context) -> None:
    """Apply every answered (or expired) allocation, then carry on with the turn's last steps."""
    state = ctx.state
    for ship_id, prompt in state["allocation"]["ships"].items():
        ship = state["ships"][ship_id]
        if not prompt["answered"]:
            ctx.emit(
                "AllocationExpired",
                message("allocation_expired", ship=ship["name"]),
                ship=ship_id,
            )
        diverted = 0
        for station_id, points in prompt["allocations"].items():
            diverted += damage_station(
                ctx, ship, ship["stations"][station_id], points, message("cause_diverted")
            )
        damage_hull(ctx, ship, prompt["hull_damage"] - diverted, message("cause_enemy_fire"))
    state["allocation"] = None
    clear_deadline(state)
    run_steps(ctx)


def step_effects(ctx: Context, orders: list[Order]) -> bool:
    """End of turn: orders are spent, this turn's bonuses lapse, the summary is recorded."""
    state = ctx.state
    expire_modifiers(ctx, "end")
    summary = []
    for ship in state["ships"].values():
        shields = ship["shields"]
        summary.append(
            {
                "ship": ship["id"],
                "hull": health(ship["hull"]),
                "shields": health(shields),
                "shields_active": shields["active"],
                "destroyed": ship["destroyed"],
                "stations": {s["id"]: health(s) for s in ship["stations"].values()},
            }
        )
    state["orders"] = {}
    state["phase"] = "turn_end"
    ctx.emit("TurnResolved", message("turn_resolved", turn=state["turn"]), summary=summary)
    return False


STEP_HANDLERS: dict[str, Callable[[Context, list[Order]], bool]] = {
    "command": step_command,
    "manoeuvre": step_manoeuvre,
    "ewar": step_ewar,
    "repairs": step_repairs,
    "attacks": step_attacks,
    "damage": step_damage,
    "effects": step_effects,
}
