"""Module `seats` (M-SEATS-1..3): moving about the bridge, and overriding a station nobody works."""

from __future__ import annotations

from ...core.hooks import Hooks
from . import seats


def register(hooks: Hooks) -> None:
    hooks.switch(seats.MODULE)
    hooks.command(seats.ChangePosition, seats.change_position, seats.PHASES)
    hooks.seat_freed.register(seats.settle)
    # However a station frees (a fall, a leaver, an undo, the GM), a move waiting for it happens
    # once the command that freed it is done.
    hooks.after_command.register(seats.settle_after)
    hooks.override_target.register(seats.override_target)
    hooks.record_override.register(seats.record_override)
    hooks.clear_override.register(seats.clear_override)
    hooks.state_keys.add(seats.MOVES)
    hooks.undone.register(seats.keep_moves)
    hooks.station_views["moving_to"] = seats.moving_to
    hooks.others_may_take.register(seats.on)
