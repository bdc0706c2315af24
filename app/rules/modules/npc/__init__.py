"""Module `npc` (M-NPC-1..3): NPC crews that act by their Crew Quality, and the written tactic
that gives their orders."""

from __future__ import annotations

from ...core.engine import submit_and_maybe_close
from ...core.hooks import Hooks
from ...core.phases import ALL_PHASES
from . import npc, tactic, waiting


def register(hooks: Hooks) -> None:
    hooks.switch(npc.MODULE)
    hooks.ship_parts["npc"] = npc.crew_of
    hooks.command(tactic.SetNpc, tactic.set_npc, ALL_PHASES)
    # The last order the GM's tap gives may be the one the turn waited for, as a player's may.
    hooks.command(
        waiting.GiveNpcOrders,
        submit_and_maybe_close(waiting.give_npc_orders),
        frozenset({"orders"}),
    )
    hooks.orders_open.register(tactic.give_orders)
    hooks.joins_orders.register(tactic.give_arrival_orders)
    hooks.rolled_order.register(npc.rolled_order)
    hooks.at_reveal.register(npc.roll_at_reveal)
    hooks.gm_views["npc"] = npc.gm_view
