"""Module `weapons` (M-WEAPONS-1..6): grapplers, torpedoes, point defence and magazines."""

from __future__ import annotations

from ...core.context import Context
from ...core.hooks import Hooks, Order
from ...core.phases import ALL_PHASES
from . import weapons


def attacks(ctx: Context, orders: list[Order]) -> bool:
    """The Weapon attacks step with launchers, point defence and strikes around G-HIT."""
    if not weapons.on(ctx.state):
        return False
    weapons.step_attacks(ctx, orders)
    return True


def register(hooks: Hooks) -> None:
    hooks.switch(weapons.MODULE)
    hooks.game_parts["torpedoes"] = lambda scenario: []  # M-WEAPONS-3: in flight
    hooks.game_parts["grapples"] = lambda scenario: []  # M-WEAPONS-2: holds
    # M-WEAPONS-6: torpedoes left in a launcher; None for other weapons.
    hooks.weapon_parts["loaded"] = lambda weapon: weapon.get("magazine")
    hooks.command(weapons.SetMagazine, weapons.set_magazine, ALL_PHASES)
    hooks.after_command.register(weapons.settle)
    # M-WEAPONS-4 and -2; `offers` says when a phone shows them.
    hooks.action(
        "point_defence",
        {"role": "weapons", "kinds": frozenset({"attack", "any"}), "step": "attacks"},
        weapons.check_point_defence,
    )
    # Resolved as the Manoeuvre step begins, so the freed ship may fly off this turn.
    hooks.action(
        "release",
        {"role": "weapons", "kinds": frozenset(), "step": "manoeuvre"},
        weapons.check_release,
    )
    hooks.offers.register(weapons.offers)
    hooks.can_fire.register(weapons.can_fire)
    hooks.ready_weapons.register(weapons.ready_to_fire)
    hooks.before_manoeuvre.register(weapons.before_manoeuvre)
    hooks.after_manoeuvre.register(weapons.after_manoeuvre)
    hooks.attacks.register(attacks)
    hooks.shared_views["weapons"] = weapons.public_view
    hooks.station_views["weapons"] = weapons.station_part
    # The report counts launches by the launcher and kills by the ship whose point defence shot
    # the torpedo down (M-WEAPONS-3, -4); a strike or miss is its launcher's attack, while one
    # shot down or lost never reached its target.
    hooks.report_counts["TorpedoLaunched"] = "torpedoes_launched"
    hooks.report_counts["TorpedoIntercepted"] = "torpedoes_shot_down"
    hooks.report_attacks.update({"TorpedoStruck", "TorpedoMissed"})
