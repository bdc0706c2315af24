"""Module `weapons` (M-WEAPONS-1..6, seed 002): grapplers that hold, torpedoes in flight, point
defence and magazines.

It plugs into the turn through the core's hooks (registered in this package's __init__.py): order
checks, the Manoeuvre and Weapon attacks steps, a settling pass after every command and the
views. All it
keeps lives in the state (`torpedoes`, `grapples`, each launcher's `loaded`), so undo and replay
cover it. Guns still resolve through resolve.attack (G-HIT); this module only splits launchers off
and adds what happens around them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...content import MAGAZINE_DEFAULT, band_index
from ...core import hooks, resolve
from ...core.commands import Command, SubmitOrder
from ...core.context import Context
from ...core.errors import refuse
from ...core.messages import Message, message, term
from ...core.state import (
    Ship,
    State,
    Station,
    distance_words,
    get_ship,
    out_of_the_fight,
    put_in_zone,
    range_band,
    zone_map,
)

MODULE = "weapons"
GRAPPLER, PDC, LAUNCHER = "grappler", "pdc", "torpedo"
HOLD_REACH = "close"  # M-WEAPONS-2: a held ship stays within Close of its holder
STRIKE_SCORE = 2  # M-WEAPONS-5
MAGAZINE_LIMIT = 99
Order = dict[str, Any]


def on(state: State) -> bool:
    return MODULE in state["modules"]


def torpedoes(state: State) -> list[dict[str, Any]]:
    return list(state.get("torpedoes") or [])


def grapples(state: State) -> list[dict[str, Any]]:
    return list(state.get("grapples") or [])


def gone(ship: Ship) -> bool:
    """Destroyed, or fled (the GM's SetShipOut, G-END-1): no torpedo can follow it and no
    grapple hold it any more. A ship that surrendered is still on the field, so a torpedo
    already in flight strikes it and a hold on it stays (docs/rules.md, M-WEAPONS-3)."""
    return bool(ship["destroyed"] or out_of_the_fight(ship) == "fled")


def is_launcher(weapon: dict[str, Any]) -> bool:
    return weapon.get("kind") == LAUNCHER


def loaded(weapon: dict[str, Any]) -> int:
    count = weapon.get("loaded", weapon.get("magazine"))
    return int(count or 0)


def has_pdc(ship: Ship) -> bool:
    return any(w.get("kind") == PDC for w in ship["weapons"])


def flight_turns(band_id: str) -> int:
    """M-WEAPONS-3: Point Blank and Close strike this turn, Medium next turn, Long in two; each
    band further adds a turn (Very Long: three)."""
    return max(0, band_index(band_id) - band_index("close"))


def _beyond(band_id: str | None, reach: str) -> bool:
    return band_id is None or band_index(band_id) > band_index(reach)


# --- Orders --------------------------------------------------------------------------------------


def offers(state: State, ship: Ship, action: str) -> bool:
    """Whether a station's phone offers this action at all."""
    if action == "point_defence":
        return on(state) and has_pdc(ship)
    if action == "release":
        return on(state) and any(g["holder"] == ship["id"] for g in grapples(state))
    return True


def can_fire(state: State, weapon: dict[str, Any]) -> bool:
    """M-WEAPONS-6: an empty launcher cannot fire."""
    return not (on(state) and is_launcher(weapon) and loaded(weapon) <= 0)


def is_decision(weapon: dict[str, Any]) -> bool:
    """A launcher or a grappler: firing one is a choice of its own (a torpedo spent, a ship
    held), so an attack fires it only when the player names it."""
    return is_launcher(weapon) or weapon.get("kind") == GRAPPLER


def ready_to_fire(chosen: list[str], state: State, ship: Ship, named: bool) -> list[str]:
    """A named empty launcher is refused; unnamed, launchers and grapplers stay silent."""
    if not on(state):
        return chosen
    weapons = {w["id"]: w for w in ship["weapons"]}
    if not named:
        return [w for w in chosen if not is_decision(weapons[w])]
    empty = [w for w in chosen if not can_fire(state, weapons[w])]
    if empty:
        raise refuse("LAUNCHER_EMPTY", weapon=weapons[empty[0]]["name"])
    return chosen


def check_point_defence(
    state: State, ship: Ship, station: Station, cmd: SubmitOrder, value: int, order: Order
) -> None:
    if not on(state):
        raise refuse("MODULE_OFF", "point_defence_module_off")
    if not has_pdc(ship):
        raise refuse("NO_PDC", ship=ship["name"])


def check_release(
    state: State, ship: Ship, station: Station, cmd: SubmitOrder, value: int, order: Order
) -> None:
    if not on(state):
        raise refuse("MODULE_OFF", "grapples_module_off")
    held = [g["target"] for g in grapples(state) if g["holder"] == ship["id"]]
    if not held:
        raise refuse("NOT_HOLDING", "holds_no_ship", ship=ship["name"])
    target = cmd.target
    if target is None and len(held) == 1:
        target = held[0]
    if target is None:
        raise refuse("NO_TARGET", "no_target_to_release")
    if target not in held:
        raise refuse("NOT_HOLDING", ship=ship["name"], target=get_ship(state, target)["name"])
    order["target"] = target


# --- Manoeuvre: grapples (M-WEAPONS-2) -----------------------------------------------------------


def before_manoeuvre(ctx: Context, pilot_orders: list[Order]) -> None:
    """Releases first (the holder's Weapons lets go before anyone moves, so the freed ship may
    fly off this turn), then Pilots try to break free."""
    if not grapples(ctx.state):
        return
    state = ctx.state
    for order in state["orders"].values():
        if order["action"] != "release" or state["ships"][order["ship"]]["destroyed"]:
            continue
        holder = state["ships"][order["ship"]]
        target = state["ships"][order["target"]]
        kept = [
            g
            for g in grapples(state)
            if not (g["holder"] == holder["id"] and g["target"] == target["id"])
        ]
        if len(kept) != len(grapples(state)):
            state["grapples"] = kept
            ctx.emit(
                "GrappleReleased",
                message("grapple_released", ship=holder["name"], target=target["name"]),
                ship=holder["id"],
                target=target["id"],
            )
    for order in pilot_orders:
        if order["action"] != "manoeuvre":
            continue
        ship = state["ships"][order["ship"]]
        value, _ = resolve.action_value(ctx, order)
        for hold in grapples(state):
            if hold["target"] != ship["id"]:
                continue
            holder = state["ships"][hold["holder"]]
            broke = value > hold["score"]
            ctx.emit(
                "GrappleBroken" if broke else "GrappleHeld",
                message(
                    "grapple_broken" if broke else "grapple_held",
                    ship=ship["name"],
                    holder=holder["name"],
                    value=value,
                    hold=hold["score"],
                ),
                ship=ship["id"],
                holder=holder["id"],
                value=value,
                needed=hold["score"] + 1,
            )
            if broke:
                state["grapples"] = [g for g in grapples(state) if g["id"] != hold["id"]]


def after_manoeuvre(ctx: Context) -> None:
    """A held ship that ended beyond Close of its holder is pulled back along the line."""
    state = ctx.state
    for hold in grapples(state):
        holder, ship = state["ships"][hold["holder"]], state["ships"][hold["target"]]
        if gone(holder) or gone(ship):
            continue
        zones = zone_map(state)
        if zones is not None:  # G-ZONE-2: Close on a zone map is the holder's own zone
            if _beyond(_band(holder, ship), HOLD_REACH):
                start = ship["zone"]
                put_in_zone(zones, ship, holder["zone"])
                _pulled(
                    ctx, holder, ship, start, ship["zone"], zones["zones"][ship["zone"]]["name"]
                )
            continue
        before = [ship["x"], ship["y"]]
        steps = state["settings"]["map_width"] + state["settings"]["map_height"]
        while _beyond(_band(holder, ship), HOLD_REACH) and steps:
            steps -= 1
            ship["x"] += _sign(holder["x"] - ship["x"])
            ship["y"] += _sign(holder["y"] - ship["y"])
        after = [ship["x"], ship["y"]]
        if before != after:
            _pulled(ctx, holder, ship, before, after, message("square", x=ship["x"], y=ship["y"]))


def _pulled(
    ctx: Context, holder: Ship, ship: Ship, before: Any, after: Any, where: str | Message
) -> None:
    route: dict[str, Any] = {"from": before, "to": after}  # "from" is a keyword
    ctx.emit(
        "GrapplePulled",
        message("grapple_pulled", holder=holder["name"], ship=ship["name"], where=where),
        ship=ship["id"],
        holder=holder["id"],
        **route,
    )


def _band(a: Ship, b: Ship) -> str | None:
    band = range_band(a, b)
    return band.id if band else None


def _sign(value: int) -> int:
    return (value > 0) - (value < 0)


# --- Weapon attacks: launches, point defence, strikes --------------------------------------------


def step_attacks(ctx: Context, orders: list[Order]) -> None:
    """M-WEAPONS-3..5, in order: every attack (guns by G-HIT, launchers put torpedoes in flight),
    then point defence against what strikes this turn, then the strikes."""
    for order in orders:
        if order["action"] == "attack":
            fire(ctx, order)
    for order in orders:
        if order["action"] == "point_defence":
            point_defence(ctx, order)
    strike(ctx)


def fire(ctx: Context, order: Order) -> None:
    state = ctx.state
    ship = state["ships"][order["ship"]]
    target = state["ships"][order["target"]]
    chosen = [w for w in ship["weapons"] if w["id"] in order["weapons"]]
    guns = [w for w in chosen if not is_launcher(w)]
    if guns or gone(target):
        event = resolve.attack(
            ctx, {**order, "weapons": [w["id"] for w in guns]}, damage_of=_gun_damage
        )
        if event is not None and event["hit"]:
            grappling = [w for w in guns if w.get("kind") == GRAPPLER]
            if any(not _beyond(event["band"], w["max_range"]) for w in grappling):
                _hold(ctx, ship, target, event["score"])
    if gone(target):
        return
    for launcher in chosen:
        if is_launcher(launcher):
            launch(ctx, order, ship, target, launcher)


def _gun_damage(weapon: dict[str, Any]) -> int:
    return 0 if weapon.get("kind") == GRAPPLER else int(weapon["damage"])  # M-WEAPONS-2


def _hold(ctx: Context, holder: Ship, target: Ship, score: int) -> None:
    kept = [
        g
        for g in grapples(ctx.state)
        if not (g["holder"] == holder["id"] and g["target"] == target["id"])
    ]
    hold = {"id": ctx.next_id(), "holder": holder["id"], "target": target["id"], "score": score}
    ctx.state["grapples"] = [*kept, hold]
    ctx.emit(
        "GrappleCaught",
        message("grapple_caught", holder=holder["name"], target=target["name"], hold=score),
        ship=holder["id"],
        target=target["id"],
        score=score,
    )


def launch(ctx: Context, order: Order, ship: Ship, target: Ship, launcher: dict[str, Any]) -> None:
    state = ctx.state
    far = distance_words(ship, target)
    band = range_band(ship, target)
    who = message("ship_weapon", ship=ship["name"], weapon=launcher["name"])
    if band is None or _beyond(band.id, launcher["max_range"]):
        ctx.emit(
            "TorpedoNotLaunched",
            message("torpedo_out_of_reach", who=who, target=target["name"], distance=far),
            ship=ship["id"],
            target=target["id"],
            weapon=launcher["id"],
            reason="out of range",
        )
        return
    if loaded(launcher) <= 0:
        ctx.emit(
            "TorpedoNotLaunched",
            message("torpedo_launcher_empty", who=who),
            ship=ship["id"],
            target=target["id"],
            weapon=launcher["id"],
            reason="empty",
        )
        return
    launcher["loaded"] = loaded(launcher) - 1
    value, parts = resolve.action_value(ctx, order)
    attacking = resolve.modifiers_for(ctx, ship["id"], "attack")
    guidance = value + sum(v for _, v in attacking)
    turns = flight_turns(band.id)
    torpedo = {
        "id": ctx.next_id(),
        "ship": ship["id"],
        "weapon": launcher["id"],
        "name": launcher["name"],
        "target": target["id"],
        "guidance": guidance,
        "damage": launcher["damage"],
        "band": band.id,
        "launched": state["turn"],
        "strikes": state["turn"] + turns,
        "breakdown": {"value": parts, "attack": attacking},
    }
    state["torpedoes"] = [*torpedoes(state), torpedo]
    when = strikes_when(turns)
    ctx.emit(
        "TorpedoLaunched",
        message(
            "torpedo_launched",
            who=who,
            target=target["name"],
            band=band.label,
            distance=far,
            value=parts + attacking,
            guidance=guidance,
            when=when,
            count=launcher["loaded"],
        ),
        ship=ship["id"],
        target=target["id"],
        torpedo=torpedo["id"],
        weapon=launcher["id"],
        guidance=guidance,
        band=band.id,
        strikes=torpedo["strikes"],
        when=when,
        loaded=launcher["loaded"],
        breakdown=torpedo["breakdown"],
        head=message("torpedo_launched_head", who=who, target=target["name"]),
    )


def strikes_when(turns: int) -> Message:
    if turns == 0:
        return message("strikes_this_turn")
    if turns == 1:
        return message("strikes_next_turn")
    return message("strikes_in_turns", count=turns)


def striking(state: State, ship_id: str | None = None) -> list[dict[str, Any]]:
    """Torpedoes due to strike in this turn's Weapon attacks step (at `ship_id`, or at anyone):
    the only ones point defence can shoot at (M-WEAPONS-4), so the NPC tactic asks too."""
    return [
        t
        for t in torpedoes(state)
        if t["strikes"] <= state["turn"] and (ship_id is None or t["target"] == ship_id)
    ]


def point_defence(ctx: Context, order: Order) -> None:
    """M-WEAPONS-4: d6 + the order's value ≥ guidance shoots a torpedo down, one roll each."""
    state = ctx.state
    ship = state["ships"][order["ship"]]
    value, parts = resolve.action_value(ctx, order)
    incoming = striking(state, ship["id"])
    if not incoming:
        ctx.emit(
            "PointDefenceIdle",
            message("point_defence_idle", ship=ship["name"]),
            ship=ship["id"],
        )
        return
    for torpedo in incoming:
        roll = ctx.dice.roll(6)
        total = value + roll
        down = total >= torpedo["guidance"]
        fired = {
            "ship": ship["name"],
            "torpedo": _from(state, torpedo),
            "value": parts,
            "roll": roll,
            "score": total,
            "guidance": torpedo["guidance"],
        }
        ctx.emit(
            "TorpedoIntercepted" if down else "PointDefenceMissed",
            message("torpedo_shot_down" if down else "point_defence_missed", **fired),
            ship=ship["id"],
            torpedo=torpedo["id"],
            attacker=torpedo["ship"],
            roll=roll,
            score=total,
            needed=torpedo["guidance"],
            hit=down,
            purpose="point defence",
            breakdown={"value": parts, "d6": roll},
            head=message("point_defence_fired", ship=ship["name"], torpedo=fired["torpedo"]),
        )
        if down:
            state["torpedoes"] = [t for t in torpedoes(state) if t["id"] != torpedo["id"]]


def strike(ctx: Context) -> None:
    """M-WEAPONS-5: guidance + d6 − (Defence + Defending) ≥ 2; from Long or beyond the target's
    Evasive bonus does not count. The damage is a hit on the Hull (never at a station)."""
    state = ctx.state
    for torpedo in striking(state):
        state["torpedoes"] = [t for t in torpedoes(state) if t["id"] != torpedo["id"]]
        target = state["ships"][torpedo["target"]]
        if gone(target):
            _lost(ctx, torpedo, target)
            continue
        defending = resolve.modifiers_for(ctx, target["id"], "defence")
        shooter = state["ships"].get(torpedo["ship"])
        if shooter is not None:  # G-ZONE-5: cover counts against the launching ship's zone
            defending += hooks.defending(state, shooter, target)
        near = not _beyond(torpedo["band"], "medium")  # launched from Medium or nearer
        ignored = [] if near else [m for m in defending if m[0] == "evasive"]
        defending = [m for m in defending if m not in ignored]
        roll = ctx.dice.roll(6)
        defence = target["defence"]
        score = torpedo["guidance"] + roll - (defence + sum(v for _, v in defending))
        hit = score >= STRIKE_SCORE
        struck = {
            "torpedo": _from(state, torpedo),
            "target": target["name"],
            "guidance": torpedo["guidance"],
            "roll": roll,
            "defence": [["defence", defence], *defending],
            "score": score,
            "needed": STRIKE_SCORE,
        }
        if hit:
            struck["damage"] = torpedo["damage"]
        ctx.emit(
            "TorpedoStruck" if hit else "TorpedoMissed",
            message(_STRIKE_WORDS[hit, bool(ignored)], **struck),
            ship=torpedo["ship"],
            target=target["id"],
            torpedo=torpedo["id"],
            hit=hit,
            roll=roll,
            score=score,
            needed=STRIKE_SCORE,
            damage=torpedo["damage"] if hit else 0,
            purpose="torpedo strike",
            breakdown={
                "guidance": torpedo["guidance"],
                "d6": roll,
                "defence": defence,
                "defending": defending,
                "ignored": ignored,
            },
            head=message("torpedo_closed_on", torpedo=struck["torpedo"], target=target["name"]),
        )
        if hit:
            state["pending"]["hits"].append(
                {
                    "attacker": torpedo["ship"],
                    "target": target["id"],
                    "damage": torpedo["damage"],
                    "target_station": None,
                    "cause": _from(state, torpedo),
                }
            )


# Whether it hit, and whether the target's Evasive was left out (launched from Long).
_STRIKE_WORDS = {
    (True, False): "torpedo_struck",
    (True, True): "torpedo_struck_from_long",
    (False, False): "torpedo_missed",
    (False, True): "torpedo_missed_from_long",
}


def _from(state: State, torpedo: dict[str, Any]) -> Message:
    return message("torpedo_of", ship=state["ships"][torpedo["ship"]]["name"])


def _lost(ctx: Context, torpedo: dict[str, Any], target: Ship) -> None:
    ctx.emit(
        "TorpedoLost",
        message(
            "torpedo_lost_destroyed" if target["destroyed"] else "torpedo_lost_gone",
            torpedo=_from(ctx.state, torpedo),
            target=target["name"],
        ),
        ship=torpedo["ship"],
        target=target["id"],
        torpedo=torpedo["id"],
    )


# --- After every command -------------------------------------------------------------------------


def settle(ctx: Context, phase_before: str) -> None:
    """Torpedoes and holds never outlive their ships, nor the combat; Downtime reloads launchers
    (M-WEAPONS-3, -2, -6). Run after every command, so no command leaves one behind."""
    state = ctx.state
    ships = state["ships"]
    if on(state):
        _fill_in(state)
    ended = phase_before != "downtime" and state["phase"] == "downtime"
    for torpedo in torpedoes(state):
        target = ships[torpedo["target"]]
        if ended or gone(target):
            state["torpedoes"] = [t for t in torpedoes(state) if t["id"] != torpedo["id"]]
            if ended and not gone(target):
                ctx.emit(
                    "TorpedoLost",
                    message("torpedo_ran_dry", torpedo=_from(state, torpedo)),
                    ship=torpedo["ship"],
                    target=target["id"],
                    torpedo=torpedo["id"],
                )
            else:
                _lost(ctx, torpedo, target)
    for hold in grapples(state):
        holder, target = ships[hold["holder"]], ships[hold["target"]]
        if ended or gone(holder) or gone(target):
            state["grapples"] = [g for g in grapples(state) if g["id"] != hold["id"]]
            ctx.emit(
                "GrappleReleased",
                message("grapple_came_loose", holder=holder["name"], target=target["name"]),
                ship=holder["id"],
                target=target["id"],
            )
    if ended and on(state):
        _reload(ctx)


def _fill_in(state: State) -> None:
    """A game made before this module has no magazines or flights yet: they start full and empty.
    Such a game can only switch the module on by a command, which this runs after."""
    state.setdefault("torpedoes", [])
    state.setdefault("grapples", [])
    for ship in state["ships"].values():
        for weapon in ship["weapons"]:
            weapon.setdefault("magazine", MAGAZINE_DEFAULT if is_launcher(weapon) else None)
            weapon.setdefault("loaded", weapon["magazine"])


def _reload(ctx: Context) -> None:
    for ship in ctx.state["ships"].values():
        for weapon in ship["weapons"]:
            if is_launcher(weapon) and loaded(weapon) < int(weapon["magazine"] or 0):
                weapon["loaded"] = weapon["magazine"]
                ctx.emit(
                    "LauncherReloaded",
                    message(
                        "launcher_reloaded",
                        ship=ship["name"],
                        weapon=weapon["name"],
                        count=weapon["loaded"],
                    ),
                    ship=ship["id"],
                    weapon=weapon["id"],
                    loaded=weapon["loaded"],
                )


@dataclass(frozen=True)
class SetMagazine(Command):
    """M-WEAPONS-6: how many torpedoes a launcher holds now."""

    ship: str
    weapon: str
    count: int


def set_magazine(ctx: Context, cmd: SetMagazine) -> None:
    """M-WEAPONS-6: the GM sets how many torpedoes a launcher holds now."""
    if not on(ctx.state):
        raise refuse("MODULE_OFF", "magazines_module_off")
    ship = get_ship(ctx.state, cmd.ship)
    weapon = next((w for w in ship["weapons"] if w["id"] == cmd.weapon), None)
    if weapon is None:
        raise refuse("NO_SUCH_WEAPON", ship=ship["name"], weapon=cmd.weapon)
    if not is_launcher(weapon):
        raise refuse("NOT_A_LAUNCHER", weapon=weapon["name"])
    if not 0 <= cmd.count <= MAGAZINE_LIMIT:
        raise refuse("BAD_VALUE", "bad_magazine", most=MAGAZINE_LIMIT)
    weapon["loaded"] = cmd.count
    ctx.emit(
        "MagazineSet",
        message("magazine_set", ship=ship["name"], weapon=weapon["name"], count=cmd.count),
        ship=ship["id"],
        weapon=weapon["id"],
        loaded=cmd.count,
    )


# --- Views ---------------------------------------------------------------------------------------


def public_view(state: State) -> dict[str, Any]:
    """What every screen shows: torpedoes in flight with their target and when they strike, and
    who holds whom. Guidance comes from revealed cards, so it is public."""
    ships = state["ships"]
    flying = []
    for t in sorted(torpedoes(state), key=lambda t: (t["strikes"], t["id"])):
        # Torpedoes due this turn strike in its Weapon attacks step, so after that step none is
        # left with this turn's number: `ahead` is 0 only while this turn's orders are open.
        ahead = max(0, t["strikes"] - state["turn"])
        flying.append(
            {
                "id": t["id"],
                "ship": t["ship"],
                "ship_name": ships[t["ship"]]["name"],
                "name": t["name"],
                "target": t["target"],
                "target_name": ships[t["target"]]["name"],
                "x": ships[t["target"]]["x"],
                "y": ships[t["target"]]["y"],
                "guidance": t["guidance"],
                "strikes": t["strikes"],
                "turns": ahead,
                "when": strikes_when(ahead),
                "band": term("band", t["band"]),
            }
        )
    holds = [
        {
            "holder": g["holder"],
            "holder_name": ships[g["holder"]]["name"],
            "target": g["target"],
            "target_name": ships[g["target"]]["name"],
            "score": g["score"],
        }
        for g in grapples(state)
    ]
    return {"on": on(state), "torpedoes": flying, "grapples": holds}


def station_part(state: State, ship: Ship, seat: str, shared: dict[str, Any]) -> dict[str, Any]:
    """A station's own view: torpedoes coming at its ship, holds on it, its launchers."""
    public = shared["weapons"]
    return {
        "incoming": [t for t in public["torpedoes"] if t["target"] == ship["id"]],
        "held_by": [g for g in public["grapples"] if g["target"] == ship["id"]],
        "holding": [g for g in public["grapples"] if g["holder"] == ship["id"]],
        "launchers": [
            {"id": w["id"], "name": w["name"], "loaded": loaded(w), "magazine": w.get("magazine")}
            for w in ship["weapons"]
            if is_launcher(w)
        ],
        "has_pdc": has_pdc(ship),
    }
