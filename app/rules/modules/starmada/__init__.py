"""Module `starmada` (M-STARMADA): Hull damage wears systems down by the ship's damage factor."""

from __future__ import annotations

from ...core.hooks import Hooks
from . import starmada


def register(hooks: Hooks) -> None:
    hooks.switch(starmada.MODULE)
    hooks.ship_parts["starmada"] = starmada.no_system_damage
    hooks.hull_box_filled.register(starmada.hull_box_filled)
    hooks.random_allocation.register(starmada.on)
