"""A crew that plays legal random orders: the property tests, the benchmarks and the GM's
"let the NPCs act" all use it. It only proposes commands; `apply` still judges them."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from .content import band_index
from .core.commands import (
    Actor,
    AllocateDamage,
    CloseOrders,
    Command,
    EndCombat,
    PassOrder,
    SeatCrew,
    SendMessage,
    StartTurn,
    SubmitOrder,
)
from .core.engine import apply
from .core.errors import RulesError
from .core.hooks import HOOKS
from .core.phases import ACTIONS, actions_for
from .core.state import (
    State,
    card_of,
    distance,
    health,
    manned,
    operational,
    range_band,
    station_key,
)


def propose(
    state: State, ship_id: str, station_id: str, rng: random.Random, actor: Actor, now: float = 0.0
) -> Command:
    """A plausible order for one station; falls back to passing when nothing fits."""
    ship = state["ships"][ship_id]
    station = ship["stations"][station_id]
    choices = list(actions_for(station["role"]))
    rng.shuffle(choices)
    for action in choices:
        params = _params(state, ship, station, action, rng)
        if params is None:
            continue
        kinds = ACTIONS[action]["kinds"]
        if kinds:
            playable = [c for c in station["hand"] if card_of(state, c)["kind"] in kinds]
            if actor.role == "gm" and station["crew"] is None:
                params["value"] = rng.randint(1, 6)
            elif not playable:
                continue
            else:
                params["cards"] = tuple(rng.sample(playable, rng.randint(1, len(playable))))
        if action == "manoeuvre":
            reach = params.get("value") or sum(card_of(state, c)["value"] for c in params["cards"])
            if "zone" in ship:
                params["zone"] = HOOKS.pick_zone(state, ship, reach, rng)
                if params["zone"] is None:
                    continue
            else:
                params["x"], params["y"] = _square_within(state, ship, reach, rng)
        command = SubmitOrder(
            ship=ship_id, station=station_id, action=action, actor=actor, now=now, **params
        )
        try:
            apply(state, command)
        except RulesError:
            continue
        return command
    return PassOrder(ship=ship_id, station=station_id, actor=actor, now=now)


def _params(
    state: State, ship: dict[str, Any], station: dict[str, Any], action: str, rng: random.Random
) -> dict[str, Any] | None:
    enemies = [
        s for s in state["ships"].values() if s["side"] != ship["side"] and not s["destroyed"]
    ]
    if not operational(station) and action != "repair":
        return None
    if action == "attack":
        if not enemies or not ship["weapons"]:
            return None
        target = min(enemies, key=lambda s: distance(ship, s))
        band = range_band(ship, target)
        reaching = [
            w["id"]
            for w in ship["weapons"]
            if band is not None
            and band_index(w["max_range"]) >= band_index(band.id)
            and HOOKS.can_fire(state, w)
        ]
        if not reaching:
            return None
        params: dict[str, Any] = {"target": target["id"], "weapons": tuple(reaching)}
        if not target["shields"]["active"] and rng.random() < 0.3:
            params["target_station"] = rng.choice(list(target["stations"]))
        return params
    if action == "jam":
        return {"target": rng.choice(enemies)["id"]} if enemies else None
    if action == "repair":
        damaged = [s["id"] for s in ship["stations"].values() if s["damage"] > 0]
        if ship["shields"]["damage"] > 0:
            damaged.append("shields")
        if not operational(station):
            damaged = [station["id"]]
        return {"target_station": rng.choice(damaged)} if damaged else None
    if action == "shields_up":
        shields = ship["shields"]
        return {} if shields["boxes"] and health(shields) and not shields["active"] else None
    if action == "shields_down":
        return {} if ship["shields"]["active"] and rng.random() < 0.2 else None
    if action == "command":
        others = [s for s in ship["stations"] if s != station["id"]]
        return {"target_station": rng.choice(others)} if others else None
    return {}


def _square_within(
    state: State, ship: dict[str, Any], reach: int, rng: random.Random
) -> tuple[int, int]:
    width, height = state["settings"]["map_width"], state["settings"]["map_height"]
    x = min(width - 1, max(0, ship["x"] + rng.randint(-reach, reach)))
    y = min(height - 1, max(0, ship["y"] + rng.randint(-reach, reach)))
    return x, y


def stations_to_order(state: State) -> list[tuple[str, str, Actor]]:
    """Every station that can still order this turn, with who gives its order."""
    out = []
    for ship in state["ships"].values():
        if ship["destroyed"]:
            continue
        for station in ship["stations"].values():
            if station_key(ship, station) in state["orders"]:
                continue
            if manned(state, station):
                out.append((ship["id"], station["id"], Actor.for_seat(station["crew"]["seat"])))
            elif ship["crew"] == "npc" and station["crew"] is None:
                out.append((ship["id"], station["id"], Actor.gm()))
    return out


def table_command(state: State, rng: random.Random, step: int) -> Command:
    """What a table of bots does next, whatever the phase: the GM starts turns (and now and then
    hails everyone), each station gives the bot's order, the GM closes orders when none are left,
    Engineering's allocation is left to the engine, a lost ship ends the combat. Benchmarks and
    tests play whole games with it."""
    phase = state["phase"]
    if any(s["destroyed"] for s in state["ships"].values()) and phase != "downtime":
        return EndCombat()
    if phase in ("downtime", "turn_end"):
        return StartTurn() if step % 7 else SendMessage(text=f"Hail {step}")
    if phase == "orders":
        todo = stations_to_order(state)
        if not todo:
            return CloseOrders()
        ship, station, actor = todo[0]
        return propose(state, ship, station, rng, actor)
    ship = next(k for k, p in state["allocation"]["ships"].items() if not p["answered"])
    return AllocateDamage(ship=ship, allocations={}, actor=Actor.gm())


def seat_table(
    state: State,
    ship_id: str,
    count: int,
    characters: list[str],
    settle: Callable[[State], State] = lambda state: state,
) -> tuple[State, list[str]]:
    """Seat players seat-0, seat-1, ... at the first `count` stations of one ship, each with the
    next of `characters`. `settle` is applied to each state in between (the service's
    `canonical`, so the states are those a server would hold). Returns the state and seat ids."""
    seats = []
    for i, station in enumerate(list(state["ships"][ship_id]["stations"])[:count]):
        seat = f"seat-{i}"
        command = SeatCrew(
            ship=ship_id, station=station, seat=seat, name=f"P{i}", character=characters[i]
        )
        state = settle(apply(state, command)[0])
        seats.append(seat)
    return state, seats
