"""Module `npc` (M-NPC-1..3): NPC crews that act by their Crew Quality, and the written tactic
that gives their orders."""

from __future__ import annotations

from ...core.hooks import Hooks
from ...core.phases import ALL_PHASES
from . import npc, tactic


def register(hooks: Hooks) -> None:
    hooks.switch(npc.MODULE)
    hooks.ship_parts["npc"] = npc.crew_of
    hooks.command(tactic.SetNpc, tactic.set_npc, ALL_PHASES)
    hooks.orders_open.register(tactic.give_orders)
    hooks.rolled_order.register(npc.rolled_order)
    hooks.at_reveal.register(npc.roll_at_reveal)
    hooks.gm_views["npc"] = npc.gm_view
