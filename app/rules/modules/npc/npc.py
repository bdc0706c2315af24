"""M-NPC-1: an NPC ship's crew acts by its Crew Quality: rating + 1d6, rolled at the reveal.

The tactic that picks those orders is in tactic.py; this module only knows who counts as an NPC
crew and how its action value is made; the core asks it through the hooks it registers.
"""

from __future__ import annotations

from typing import Any

from ...content import QUALITIES, ShipPlacement
from ...core.commands import SubmitOrder
from ...core.context import Context
from ...core.messages import message
from ...core.phases import ACTIONS
from ...core.state import Ship, State, Station, role_label, station_key
from ...core.views import ships_in_order

MODULE = "npc"
DIE = 6


def on(state: State) -> bool:
    return MODULE in state["modules"]


def crew_of(placement: ShipPlacement | None) -> dict[str, Any]:
    """A ship's NPC crew: its Crew Quality (the scenario's, or Proficient for a ship the GM
    adds), and whether its tactic gives its orders (M-NPC-1, M-NPC-2)."""
    return {"quality": placement.quality if placement else "proficient", "auto": True}


def quality(ship: Ship) -> str:
    # States saved before the module existed have no "npc" entry: they get the sheet's default.
    return str((ship.get("npc") or {}).get("quality", "proficient"))


def rating(ship: Ship) -> int:
    """Basic 1, Proficient 2, Talented 3, Exceptional 4."""
    return QUALITIES.index(quality(ship)) + 1


def automated(ship: Ship) -> bool:
    return bool((ship.get("npc") or {}).get("auto", True))


def is_npc_station(state: State, ship: Ship, station: Station) -> bool:
    """A station the Crew Quality works: the module is on, the ship has no player crew and
    nobody sits there."""
    return on(state) and ship["crew"] == "npc" and station["crew"] is None


def rolls_at_reveal(state: State, ship: Ship, station: Station, cmd: SubmitOrder) -> bool:
    """An order for an NPC station given without cards or a number: its value is the crew's
    roll at the reveal. A GM who types a number still replaces the roll with it."""
    return (
        cmd.actor.is_gm
        and cmd.value is None
        and not cmd.cards
        and bool(ACTIONS[cmd.action]["kinds"])
        and is_npc_station(state, ship, station)
    )


def rolled_order(
    state: State, ship: Ship, station: Station, cmd: SubmitOrder
) -> tuple[int, dict[str, Any]] | None:
    """The checks judge the best the crew's roll can give; the order's value waits for the roll."""
    if not rolls_at_reveal(state, ship, station, cmd):
        return None
    return best_roll(ship), {"value": 0, "npc": quality(ship)}


def best_roll(ship: Ship) -> int:
    """The highest value the roll can give: what an order's checks (how far to move) allow."""
    return rating(ship) + DIE


def roll_at_reveal(ctx: Context, ship: Ship, station: Station, order: dict[str, Any]) -> None:
    """Roll rating + 1d6 for an NPC order now revealed, keeping the breakdown on the order."""
    if not order.get("npc") or order["action"] == "pass":
        return
    base = rating(ship)
    roll = ctx.dice.roll(DIE)
    name = f"crew:{quality(ship)}"  # a breakdown label, worded by the web layer
    order["value"] = base + roll
    order["breakdown"] = [[name, base], ["d6", roll]]
    ctx.emit(
        "NpcActionRolled",
        message(
            "npc_action_rolled",
            station=role_label(station),
            ship=ship["name"],
            quality=quality(ship),
            rating=base,
            roll=roll,
            value=base + roll,
        ),
        ship=ship["id"],
        station=station["id"],
        purpose="crew quality",
        roll=roll,
        rating=base,
        value=base + roll,
    )


def gm_view(state: State) -> dict[str, Any]:
    """M-NPC-1/2: each NPC ship's Crew Quality, automation and orders given (by station), for
    the GM only. The orders are also in the GM view's `orders`, with the players'; here they are
    apart, so the GM's NPC panel changes with NPC orders alone."""
    orders = state["orders"]
    return {
        s["id"]: {
            "quality": quality(s),
            "auto": automated(s),
            "orders": {
                st: orders[key]
                for st, station in s["stations"].items()
                if (key := station_key(s, station)) in orders
            },
        }
        for s in ships_in_order(state)
        if s["crew"] == "npc"
    }
