"""Module `weapons` (M-WEAPONS-1..6): grapplers, torpedoes, point defence and magazines."""

from __future__ import annotations

from ...core.commands import SetMagazine
from ...core.context import Context
from ...core.hooks import Hooks, Order
from . import weapons


def attacks(ctx: Context, orders: list[Order]) -> bool:
    """The Weapon attacks step with launchers, point defence and strikes around G-HIT."""
    if not weapons.on(ctx.state):
        return False
    weapons.step_attacks(ctx, orders)
    return True


def register(hooks: Hooks) -> None:
    hooks.commands[SetMagazine] = weapons.set_magazine
    hooks.after_command.append(weapons.settle)
    hooks.order_checks["point_defence"] = weapons.check_point_defence
    hooks.order_checks["release"] = weapons.check_release
    hooks.offers.append(weapons.offers)
    hooks.can_fire.append(weapons.can_fire)
    hooks.ready_weapons.append(weapons.ready_to_fire)
    hooks.before_manoeuvre.append(weapons.before_manoeuvre)
    hooks.after_manoeuvre.append(weapons.after_manoeuvre)
    hooks.attacks.append(attacks)
    hooks.shared_views["weapons"] = weapons.public_view
    hooks.station_views["weapons"] = weapons.station_part
