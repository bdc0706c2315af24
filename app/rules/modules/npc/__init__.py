"""Module `npc` (M-NPC-1..3): NPC crews that act by their Crew Quality, and the written tactic
that gives their orders."""

from __future__ import annotations

from ...core.commands import SetNpc
from ...core.engine import submit_and_maybe_close
from ...core.hooks import Hooks
from . import npc, tactic, waiting


def register(hooks: Hooks) -> None:
    hooks.commands[SetNpc] = tactic.set_npc
    # The last order the GM's tap gives may be the one the turn waited for, as a player's may.
    hooks.commands[waiting.GiveNpcOrders] = submit_and_maybe_close(waiting.give_npc_orders)
    hooks.orders_open.append(tactic.give_orders)
    hooks.rolled_order.append(npc.rolled_order)
    hooks.at_reveal.append(npc.roll_at_reveal)
    hooks.gm_views["npc"] = npc.gm_view
