"""Giving orders in the Orders phase: who may order what, with which cards (section 3)."""

from __future__ import annotations

from typing import Any

from .combat import check_in_the_fight
from .commands import Actor, PassOrder, SubmitOrder, WithdrawOrder
from .context import Context
from .errors import refuse
from .hooks import HOOKS
from .messages import message
from .phases import ACTIONS, Action, actions_for
from .state import (
    Ship,
    State,
    Station,
    card_of,
    get_ship,
    get_station,
    health,
    manned,
    operational,
    out_of_the_fight,
    reaching,
    role_label,
    station_key,
)

VALUE_LIMIT = 60


def acting_station(
    ctx: Context, actor: Actor, ship_id: str, station_id: str
) -> tuple[Ship, Station]:
    ship = get_ship(ctx.state, ship_id)
    station = get_station(ship, station_id)
    if actor.role == "seat":
        crew = station["crew"]
        if crew is None or crew["seat"] != actor.seat:
            raise refuse("NOT_YOUR_STATION", "orders_own_station_only")
        if not manned(ctx.state, station):
            raise refuse("CREW_INCAPACITATED")
    check_in_the_fight(ship)
    return ship, station


def submit_order(ctx: Context, cmd: SubmitOrder) -> None:
    ship, hand = acting_station(ctx, cmd.actor, cmd.ship, cmd.station)
    # M-SEATS-2: an override gives another station's order, with cards from this one's hand.
    station = (
        hand if cmd.override is None else _override_target(ctx.state, ship, hand, cmd.override)
    )
    spec = ACTIONS.get(cmd.action)
    if spec is None or spec["role"] != station["role"]:
        allowed = list(actions_for(station["role"]))
        if not allowed:
            raise refuse(
                "ACTION_NOT_FOR_STATION", "station_has_no_actions", station=role_label(station)
            )
        raise refuse("ACTION_NOT_FOR_STATION", station=role_label(station), actions=allowed)
    if cmd.override is None:
        _check_operational(ship, station, cmd)
    rolled = HOOKS.rolled_order(ctx.state, ship, station, cmd)
    cards: tuple[str, ...]
    if rolled:  # M-NPC-1: the checks judge the best the crew's roll can give
        cards, value = (), rolled[0]
    else:
        cards, value = _played_value(ctx, hand, cmd, spec)
    order: dict[str, Any] = {
        "ship": ship["id"],
        "station": station["id"],
        "action": cmd.action,
        "cards": list(cards),
        "value": value,
        "by": "gm" if cmd.actor.is_gm else "seat",
    }
    check = CHECKS.get(cmd.action) or HOOKS.order_checks[cmd.action]
    check(ctx.state, ship, station, cmd, value, order)
    if rolled:
        order.update(rolled[1])
    HOOKS.clear_override(ctx.state, ship, hand)
    if cmd.override is not None:
        HOOKS.record_override(ctx.state, ship, hand, order)
    _give(ctx, ship, station, order)


def pass_order(ctx: Context, cmd: PassOrder) -> None:
    ship, station = acting_station(ctx, cmd.actor, cmd.ship, cmd.station)
    HOOKS.clear_override(ctx.state, ship, station)
    passed = {
        "ship": ship["id"],
        "station": station["id"],
        "action": "pass",
        "cards": [],
        "value": 0,
        "by": "gm" if cmd.actor.is_gm else "seat",
    }
    _give(ctx, ship, station, passed)


def _give(ctx: Context, ship: Ship, station: Station, order: dict[str, Any]) -> None:
    """The station's order for this turn. Until the reveal the room hears the same words for an
    order, a replaced one and a pass; only the station's seats and the GM see the order."""
    key = station_key(ship, station)
    ctx.state["orders"][key] = order
    ctx.emit(
        "OrderGiven",
        message("station_ready", station=role_label(station), ship=ship["name"]),
        log=False,
        ship=ship["id"],
        station=station["id"],
        secret_for=key,
        secret={"order": order},
    )


def withdraw_order(ctx: Context, cmd: WithdrawOrder) -> None:
    ship, station = acting_station(ctx, cmd.actor, cmd.ship, cmd.station)
    key = station_key(ship, station)
    overriding = key in ctx.state["orders"] and ctx.state["orders"][key].get("overriding")
    HOOKS.clear_override(ctx.state, ship, station)  # takes back an override with it
    if ctx.state["orders"].pop(key, None) is None and not overriding:
        raise refuse("NO_ORDER")
    ctx.emit(
        "OrderWithdrawn",
        message("order_withdrawn", station=role_label(station), ship=ship["name"]),
        log=False,
        ship=ship["id"],
        station=station["id"],
    )


def _override_target(state: State, ship: Ship, station: Station, target_id: str) -> Station:
    target = HOOKS.override_target(state, ship, station, target_id)
    if target is None:
        raise refuse("MODULE_OFF", "override_module_off")
    return target


def _check_operational(ship: Ship, station: Station, cmd: SubmitOrder) -> None:
    if operational(station):
        return
    if station["role"] == "engineering":
        if cmd.action != "repair" or cmd.target_station != station["id"]:
            raise refuse("ENGINEERING_REPAIR_ONLY")
        return
    raise refuse("STATION_DOWN", "station_down_refused", station=role_label(station))


def _played_value(
    ctx: Context, station: Station, cmd: SubmitOrder, spec: Action
) -> tuple[tuple[str, ...], int]:
    kinds = spec["kinds"]
    if not kinds:
        if cmd.cards:
            raise refuse("NO_CARDS_NEEDED", action=cmd.action)
        return (), 0
    if cmd.value is not None:
        if not cmd.actor.is_gm:
            raise refuse("CARDS_REQUIRED")
        if cmd.cards:
            raise refuse("BAD_COMMAND", "cards_or_value")
        if not 0 <= cmd.value <= VALUE_LIMIT:
            raise refuse("BAD_VALUE", "bad_action_value", most=VALUE_LIMIT)
        return (), cmd.value
    if not cmd.cards:
        raise refuse("NO_CARDS", action=cmd.action)
    if len(set(cmd.cards)) != len(cmd.cards):
        raise refuse("DUPLICATE_CARD")
    total = 0
    for card_id in cmd.cards:
        if card_id not in station["hand"]:
            raise refuse("CARD_NOT_IN_HAND")
        card = card_of(ctx.state, card_id)
        if card["kind"] not in kinds and not _any_card_counts(station, cmd):
            raise refuse("CARD_WRONG_KIND", card=card["name"], action=cmd.action)
        total += card["value"]
    return cmd.cards, total


def _any_card_counts(station: Station, cmd: SubmitOrder) -> bool:
    """G-DMG-8: Engineering at zero repairing itself may play any card, whatever its kind."""
    return (
        station["role"] == "engineering"
        and not operational(station)
        and cmd.action == "repair"
        and cmd.target_station == station["id"]
    )


def _enemy(state: State, ship: Ship, target_id: str | None, what: str) -> Ship:
    if target_id is None:
        raise refuse("NO_TARGET", "no_target_to_jam" if what == "jam" else "no_target_to_attack")
    target = get_ship(state, target_id)
    if target["id"] == ship["id"]:
        raise refuse("OWN_SHIP", "own_ship_jam" if what == "jam" else "own_ship_attack")
    if target["destroyed"]:
        raise refuse("TARGET_DESTROYED", ship=target["name"])
    return target


def _check_attack(
    state: State, ship: Ship, station: Station, cmd: SubmitOrder, value: int, order: dict[str, Any]
) -> None:
    target = _enemy(state, ship, cmd.target, "attack")
    weapons = {w["id"]: w for w in ship["weapons"]}
    if not weapons:
        raise refuse("NO_WEAPONS", ship=ship["name"])
    chosen = list(cmd.weapons)
    for weapon_id in chosen:
        if weapon_id not in weapons:
            raise refuse("NO_SUCH_WEAPON", ship=ship["name"], weapon=weapon_id)
    if len(set(chosen)) != len(chosen):
        raise refuse("DUPLICATE_WEAPON")
    if chosen:
        chosen = HOOKS.ready_weapons(chosen, state, ship, True)
    else:
        chosen = default_weapons(state, ship, target)
        if not chosen:
            raise refuse("NO_WEAPON_CHOSEN", ship=ship["name"])
    # G-TURN-4: range is judged when the attack resolves, after this turn's manoeuvres, so a
    # target out of reach now is accepted; the order carries the warning the phone shows.
    order["out_of_reach_now"] = out_of_reach_now(ship, target, chosen)
    if cmd.target_station is not None:
        get_station(target, cmd.target_station)
        if target["shields"]["active"]:
            raise refuse("SHIELDS_BLOCK_TARGETING", ship=target["name"])
    order.update(target=target["id"], weapons=chosen, target_station=cmd.target_station)


def default_weapons(state: State, ship: Ship, target: Ship) -> list[str]:
    """What an attack naming no weapons fires (G-HIT-4): the guns that reach the target now, or
    every gun when none does yet (range is judged after the Manoeuvre step, G-TURN-4). A weapon
    whose firing is a decision of its own (a module's: a torpedo, a grapple) is left to the
    player, as is one that cannot fire (an empty launcher)."""
    chosen = [w["id"] for w in ship["weapons"]]
    chosen = HOOKS.ready_weapons(chosen, state, ship, False)
    guns = [w for w in ship["weapons"] if w["id"] in chosen]
    return [w["id"] for w in reaching(ship, target, guns) or guns]


def out_of_reach_now(ship: Ship, target: Ship, weapon_ids: list[str]) -> bool:
    """Whether none of these weapons reaches the target from where both ships stand now."""
    return not reaching(ship, target, [w for w in ship["weapons"] if w["id"] in weapon_ids])


def _check_manoeuvre(
    state: State, ship: Ship, station: Station, cmd: SubmitOrder, value: int, order: dict[str, Any]
) -> None:
    if HOOKS.move_order(state, ship, cmd, value, order):
        return
    if cmd.zone is not None:
        raise refuse("NOT_A_ZONE_MAP", "squares_choose_square")
    if cmd.x is None or cmd.y is None:
        raise refuse("NO_DESTINATION", "no_destination_square")
    settings = state["settings"]
    if not (0 <= cmd.x < settings["map_width"] and 0 <= cmd.y < settings["map_height"]):
        raise refuse("OFF_MAP")
    steps = max(abs(cmd.x - ship["x"]), abs(cmd.y - ship["y"]))
    # G-TURN-4: a Captain's Command, still secret, may add to the move; the Manoeuvre step then
    # goes as far towards the square as the value with bonuses reaches.
    if steps > value and not _captain_can_command(state, ship):
        raise refuse("TOO_FAR", "square_too_far", steps=steps, value=value)
    order.update(x=cmd.x, y=cmd.y)


def _captain_can_command(state: State, ship: Ship) -> bool:
    """Whether this ship has a Captain who could give a Command this turn."""
    return any(
        st["role"] == "captain"
        and operational(st)
        and (manned(state, st) or (ship["crew"] == "npc" and st["crew"] is None))
        for st in ship["stations"].values()
    )


def _check_nothing(
    state: State, ship: Ship, station: Station, cmd: SubmitOrder, value: int, order: dict[str, Any]
) -> None:
    return None


def _check_jam(
    state: State, ship: Ship, station: Station, cmd: SubmitOrder, value: int, order: dict[str, Any]
) -> None:
    target = _enemy(state, ship, cmd.target, "jam")
    if target["side"] == ship["side"]:
        raise refuse("NOT_AN_ENEMY", ship=target["name"])
    order["target"] = target["id"]


def _check_repair(
    state: State, ship: Ship, station: Station, cmd: SubmitOrder, value: int, order: dict[str, Any]
) -> None:
    target = cmd.target_station
    if target is None:
        raise refuse("NO_TARGET", "no_target_to_repair")
    if target == "shields":
        if ship["shields"]["boxes"] == 0:
            raise refuse("NO_SHIELDS", ship=ship["name"])
        track = ship["shields"]
    else:
        track = get_station(ship, target)
    if track["damage"] == 0:
        raise refuse("NOTHING_TO_REPAIR")
    order["target_station"] = target


def _check_shields_up(
    state: State, ship: Ship, station: Station, cmd: SubmitOrder, value: int, order: dict[str, Any]
) -> None:
    shields = ship["shields"]
    if shields["boxes"] == 0:
        raise refuse("NO_SHIELDS", ship=ship["name"])
    if health(shields) == 0:
        raise refuse("SHIELDS_EMPTY")
    if shields["active"]:
        raise refuse("SHIELDS_ALREADY_UP")


def _check_shields_down(
    state: State, ship: Ship, station: Station, cmd: SubmitOrder, value: int, order: dict[str, Any]
) -> None:
    if not ship["shields"]["active"]:
        raise refuse("SHIELDS_ALREADY_DOWN")


def _check_command(
    state: State, ship: Ship, station: Station, cmd: SubmitOrder, value: int, order: dict[str, Any]
) -> None:
    if cmd.target_station is None:
        raise refuse("NO_TARGET", "no_target_to_command")
    if cmd.target_station == station["id"]:
        raise refuse("OWN_STATION", "command_own_station")
    get_station(ship, cmd.target_station)
    order["target_station"] = cmd.target_station


CHECKS = {
    "attack": _check_attack,
    "manoeuvre": _check_manoeuvre,
    "evasive": _check_nothing,
    "lock": _check_nothing,
    "jam": _check_jam,
    "repair": _check_repair,
    "shields_up": _check_shields_up,
    "shields_down": _check_shields_down,
    "command": _check_command,
}


def stations_expected(state: State) -> list[str]:
    """Stations whose order the turn waits for: every manned station that can act, plus every
    operational station of an NPC ship (the GM orders or passes for those), aboard ships still
    in the fight (G-END-1)."""
    keys = []
    for ship in state["ships"].values():
        if out_of_the_fight(ship):
            continue
        for station in ship["stations"].values():
            able = operational(station) or station["role"] == "engineering"
            if not able:
                continue
            if manned(state, station) or (ship["crew"] == "npc" and station["crew"] is None):
                keys.append(station_key(ship, station))
    return keys


def all_ready(state: State) -> bool:
    expected = stations_expected(state)
    return bool(expected) and all(key in state["orders"] for key in expected)
