"""Module `seats` (M-SEATS-1..3): moving about the bridge, and overriding a station nobody works."""

from __future__ import annotations

from ...core.commands import ChangePosition
from ...core.hooks import Hooks
from . import seats


def register(hooks: Hooks) -> None:
    hooks.commands[ChangePosition] = seats.change_position
    hooks.seat_freed.append(seats.settle)
    # However a station frees (a fall, a leaver, an undo, the GM), a move waiting for it happens
    # once the command that freed it is done.
    hooks.after_command.append(seats.settle_after)
    hooks.override_target.append(seats.override_target)
    hooks.record_override.append(seats.record_override)
    hooks.clear_override.append(seats.clear_override)
