"""The end of a combat and the start of the next (G-END-1, G-END-3)."""

from __future__ import annotations

from typing import Any

from . import commands as c
from . import timing
from .cards import joins_orders
from .context import Context
from .errors import refuse
from .hooks import HOOKS
from .messages import Message, message
from .state import State, get_ship, out_of_the_fight, station_key

OUT_REASONS = {"fled": "fled", "surrendered": "surrendered"}


def check_open_to_players(ship: dict[str, Any]) -> None:
    """Players sit only on players' ships that can still fight, whichever way they ask: the GM
    crews an NPC ship, and nobody boards a ship that is out of the fight."""
    if ship["crew"] != "players":
        raise refuse("NOT_A_PLAYERS_SHIP", ship=ship["name"])
    check_in_the_fight(ship)


def check_in_the_fight(ship: dict[str, Any]) -> None:
    """G-END-1: a ship that is destroyed, fled or surrendered takes no orders and no new crew."""
    why = out_of_the_fight(ship)
    if why == "destroyed":
        raise refuse("SHIP_DESTROYED", "ship_destroyed_refused", ship=ship["name"])
    if why is not None:
        raise refuse(
            "SHIP_OUT",
            "ship_out_fled_refused" if why == "fled" else "ship_out_surrendered_refused",
            ship=ship["name"],
        )


def can_end(state: State) -> dict[str, Any] | None:
    """G-END-1: during a combat, a side none of whose ships can fight any more, and why."""
    if state["phase"] == "downtime":
        return None
    sides, beaten = _sides(state)
    if not beaten:
        return None
    side = beaten[0]
    why = [[s["name"], out_of_the_fight(s)] for s in sides[side]]
    standing = sorted(set(sides) - set(beaten))
    return {
        "side": side,
        "why": why,
        "standing": standing,
        "words": message(
            "side_cannot_fight",
            side=side,
            out=[_out_words(name, out) for name, out in why],
        ),
    }


def _sides(state: State) -> tuple[dict[str, list[dict[str, Any]]], list[str]]:
    """The ships of each side, and the sides none of whose ships can fight (none while there are
    fewer than two sides: nobody to fight)."""
    sides: dict[str, list[dict[str, Any]]] = {}
    for ship in sorted(state["ships"].values(), key=lambda s: s["id"]):
        sides.setdefault(ship["side"], []).append(ship)
    if len(sides) < 2:
        return sides, []
    beaten = [
        side for side, ships in sorted(sides.items()) if all(out_of_the_fight(s) for s in ships)
    ]
    return sides, beaten


def check_both_sides_can_fight(state: State) -> None:
    """G-END-3: the next combat needs a ship on each side that can still fight (docs/rules.md)."""
    _, beaten = _sides(state)
    if beaten:
        raise refuse("NOTHING_TO_FIGHT", side=beaten[0])


def notice_end(ctx: Context, before: dict[str, Any] | None) -> None:
    """Tell everyone once, when a command leaves a side unable to fight."""
    now = can_end(ctx.state)
    if now is not None and (before is None or before["side"] != now["side"]):
        ctx.emit("CombatCanEnd", now["words"], side=now["side"], why=now["why"])


def _out_words(ship: str, out: str | None) -> Message:
    if out == "fled":
        return message("ship_out_fled", ship=ship)
    if out == "surrendered":
        return message("ship_out_surrendered", ship=ship)
    return message("ship_out_destroyed", ship=ship)


def set_ship_out(ctx: Context, cmd: c.SetShipOut) -> None:
    """G-END-1: a ship that flees or surrenders can no longer fight: the orders its stations gave
    this turn end with it and the turn no longer waits for them. One put back into the fight
    during Orders is in this turn again, as a ship that arrives is."""
    ship = get_ship(ctx.state, cmd.ship)
    if cmd.out and cmd.out not in OUT_REASONS:
        raise refuse("BAD_VALUE", "bad_out_reason")
    was_out = out_of_the_fight(ship)
    ship["out"] = cmd.out or None
    if ship["out"] is not None and ctx.state["phase"] == "orders":
        for station in ship["stations"].values():
            ctx.state["orders"].pop(station_key(ship, station), None)
    if cmd.out == "fled":
        words = message("ship_fled", ship=ship["name"])
    elif cmd.out == "surrendered":
        words = message("ship_surrendered", ship=ship["name"])
    else:
        words = message("ship_back_in_fight", ship=ship["name"])
    ctx.emit("ShipOut", words, ship=ship["id"], out=ship["out"])
    if was_out:
        joins_orders(ctx, ship)


def _clear_between_combats(state: State) -> None:
    state["red_alert"] = False
    state["messages"] = []
    HOOKS.between_combats(state)


def end_combat(ctx: Context, cmd: c.EndCombat) -> None:
    """Back to Downtime; the combat's bonuses, red alert and messages go with it."""
    state = ctx.state
    if state["phase"] == "downtime":
        raise refuse("WRONG_PHASE", "no_combat_to_end")
    state.update(
        phase="downtime", orders={}, allocation=None, pending=None, undo=None, modifiers=[]
    )
    timing.clear_deadline(state)
    _clear_between_combats(state)
    ctx.emit("CombatEnded", message("combat_ended", combat=state["combat"]), combat=state["combat"])


def prepare_next_combat(state: State) -> None:
    """G-END-3: ships keep their damage; what belonged to the last fight is cleared. Bonuses the
    GM set in Downtime are meant for the coming combat and stay."""
    _clear_between_combats(state)
    state["revealed"] = None
    for ship in state["ships"].values():
        ship["out"] = None
