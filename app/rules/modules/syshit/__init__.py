"""Module `syshit` (M-SYSHIT): a d20 sends part of each hit to the system it names."""

from __future__ import annotations

from ...core.hooks import Hooks
from . import syshit


def register(hooks: Hooks) -> None:
    hooks.switch(syshit.MODULE)
    hooks.hull_hit.register(syshit.hull_left)
    hooks.random_allocation.register(syshit.on)
