"""M-SEATS: moving about the bridge. A player changes position (M-SEATS-1), a station gives the
order of one nobody can work (M-SEATS-2), and a fallen character's station is free (M-SEATS-3).

Queued moves live in state["seat_moves"] (seat -> {"ship", "to"}): a move to a taken station
waits there until its occupant leaves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ...core.cards import draw_up, enforce_limit, is_skill, return_skill_cards
from ...core.combat import check_open_to_players
from ...core.commands import Command
from ...core.context import Context
from ...core.errors import refuse
from ...core.messages import message
from ...core.state import (
    Ship,
    State,
    Station,
    get_station,
    manned,
    operational,
    role_label,
    seat_station,
    station_key,
)

OVERRIDE_PENALTY = -2
MODULE = "seats"
MOVES = "seat_moves"  # the key of the queued moves in the state


def on(state: State) -> bool:
    """Whether the module is on: then another of the crew may take a fallen one's station."""
    return MODULE in state["modules"]


def _require_module(state: State) -> None:
    if not on(state):
        raise refuse("MODULE_OFF", "seats_module_off")


def free(state: State, ship: Ship, station: Station) -> bool:
    """Nobody works it: empty, or its character is unconscious or dead (M-SEATS-3). An NPC ship's
    empty station is worked by its crew, so it is never free."""
    if station["crew"] is None:
        return bool(ship["crew"] == "players")
    return not manned(state, station)


@dataclass(frozen=True)
class ChangePosition(Command):
    """M-SEATS-1: the player moves to another station of their ship."""

    gm_only: ClassVar[bool] = False
    ship: str
    station: str


# Between turns and while orders are given; never while Engineering's prompt holds a resolution.
PHASES = frozenset({"downtime", "orders", "turn_end"})


def change_position(ctx: Context, cmd: ChangePosition) -> None:
    """M-SEATS-1: at once to a free station, otherwise queued until its occupant leaves. Asking
    for one's own station again takes back a queued move."""
    state = ctx.state
    _require_module(state)
    found = seat_station(state, cmd.actor.seat or "")
    if found is None:
        raise refuse("NOT_SEATED")
    ship, here = found
    if cmd.ship != ship["id"]:
        raise refuse("OTHER_SHIP")
    there = get_station(ship, cmd.station)
    moves = state.setdefault(MOVES, {})
    seat = here["crew"]["seat"]
    if there is here:
        if moves.pop(seat, None) is None:
            raise refuse("SAME_STATION")
        ctx.emit("PositionKept", None, log=False, secret_for=station_key(ship, here), secret={})
        return
    if ship["destroyed"]:
        raise refuse("SHIP_DESTROYED", "ship_destroyed_refused", ship=ship["name"])
    check_open_to_players(ship)
    if not manned(state, here):
        raise refuse("CREW_INCAPACITATED", "crew_cannot_move")
    if free(state, ship, there):
        moves.pop(seat, None)
        move(ctx, ship, here, there)
        settle(ctx)
        return
    moves[seat] = {"ship": ship["id"], "to": there["id"]}
    ctx.emit(
        "PositionQueued",
        None,
        log=False,
        ship=ship["id"],
        station=here["id"],
        secret_for=station_key(ship, here),
        secret={"to": there["id"]},
    )


def move(ctx: Context, ship: Ship, here: Station, there: Station) -> None:
    """Skill cards go with the character, Station cards stay; the new limit applies at once."""
    state = ctx.state
    if there["crew"] is not None:  # a fallen character is carried off (M-SEATS-3)
        _carry_off(ctx, ship, there)
    crew = here["crew"]
    skill = [c for c in here["hand"] if is_skill(ctx, c)]
    here["hand"] = [c for c in here["hand"] if c not in skill]
    there["hand"] = there["hand"] + skill
    here["crew"], there["crew"] = None, crew
    for station in (here, there):
        clear_override(state, ship, station)
        state["orders"].pop(station_key(ship, station), None)
    ctx.emit(
        "PositionChanged",
        message(
            "position_changed",
            crew=crew["name"],
            station=role_label(here),
            to_station=role_label(there),
            ship=ship["name"],
        ),
        ship=ship["id"],
        seat=crew["seat"],
        station=there["id"],
        left=here["id"],
        skill_cards=len(skill),
    )
    enforce_limit(ctx, ship, there)  # G-CARD-4
    able = operational(there) or there["role"] == "engineering"
    if state["phase"] == "orders" and able and not ship["destroyed"]:
        draw_up(ctx, ship, there)


def _carry_off(ctx: Context, ship: Ship, station: Station) -> None:
    crew = station["crew"]
    return_skill_cards(ctx, station)
    station["crew"] = None
    ctx.state.get(MOVES, {}).pop(crew["seat"], None)
    ctx.emit(
        "CrewCarriedOff",
        message(
            "crew_carried_off", crew=crew["name"], station=role_label(station), ship=ship["name"]
        ),
        ship=ship["id"],
        station=station["id"],
        seat=crew["seat"],
    )


def settle(ctx: Context) -> None:
    """Carry out every queued move whose station has come free, as often as moves free more."""
    state = ctx.state
    moves: dict[str, Any] = state.get(MOVES) or {}
    if not on(state) or state["phase"] == "allocation":
        return
    changed = True
    while changed:
        changed = False
        for seat, wish in sorted(moves.items()):
            found = seat_station(state, seat)
            if found is None or found[0]["id"] != wish["ship"] or not manned(state, found[1]):
                del moves[seat]  # left the ship, or fell: the wish lapses
                changed = True
                break
            ship, here = found
            there = ship["stations"][wish["to"]]
            if free(state, ship, there):
                del moves[seat]
                move(ctx, ship, here, there)
                changed = True
                break


def moving_to(state: State, ship: Ship, seat: str, shared: dict[str, Any]) -> str | None:
    """M-SEATS-1, for the player's own view: the station they wait to move to, if any."""
    wish: dict[str, Any] = (state.get(MOVES) or {}).get(seat, {})
    return wish.get("to")


def keep_moves(ctx: Context, before: State) -> None:
    """An undo takes back the dice, not the table: the moves waiting as it came stay waiting."""
    moves = before.get(MOVES)
    if moves is not None:
        ctx.state[MOVES] = moves


def settle_after(ctx: Context, phase_before: str) -> None:
    """`settle` after every command: while Engineering's prompt holds the resolution open, it
    waits for the command that ends it."""
    settle(ctx)


# --- Override (M-SEATS-2) -----------------------------------------------------------------------


def override_target(state: State, ship: Ship, station: Station, target_id: str) -> Station:
    """The station whose order `station` gives instead of its own, checked."""
    _require_module(state)
    target = get_station(ship, target_id)
    if target is station:
        raise refuse("OWN_STATION")
    if target["role"] == "captain":
        raise refuse("OVERRIDE_COMMAND")
    if not free(state, ship, target) and operational(target):
        raise refuse("STATION_MANNED", station=role_label(target))
    if not operational(station):
        raise refuse("STATION_DOWN", "station_down_no_cards", station=role_label(station))
    given = state["orders"].get(station_key(ship, target))
    if given is not None and given.get("from") not in (None, station["id"]):
        raise refuse("ALREADY_OVERRIDDEN", station=role_label(target))
    return target


def record_override(state: State, ship: Ship, station: Station, order: dict[str, Any]) -> None:
    """The order stands at the overridden station, played from `station`'s hand at −2; the
    overriding station gives up its own order (a pass that says why)."""
    order["from"] = station["id"]
    order["adjust"] = [["override", OVERRIDE_PENALTY]]
    state["orders"][station_key(ship, station)] = {
        "ship": ship["id"],
        "station": station["id"],
        "action": "pass",
        "cards": [],
        "value": 0,
        "by": "seat",
        "overriding": order["station"],
    }


def clear_override(state: State, ship: Ship, station: Station) -> None:
    """`station` gives its own order again (or none): the order it gave for another goes."""
    mine = state["orders"].get(station_key(ship, station))
    if mine is None or not mine.get("overriding"):
        return
    other = ship["stations"][mine["overriding"]]
    given = state["orders"].get(station_key(ship, other))
    if given is not None and given.get("from") == station["id"]:
        del state["orders"][station_key(ship, other)]
    del state["orders"][station_key(ship, station)]
