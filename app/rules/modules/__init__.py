"""The switchable modules, and the one place that names them: each plugs into the core's hooks
(core/hooks.py) here, once, as `app.rules` is imported. The core never imports a module.

The modules' commands are also here, for callers outside the engine (app/rules/commands.py).
"""

from __future__ import annotations

from ..core.commands import COMMANDS
from ..core.engine import HANDLERS
from ..core.hooks import HOOKS
from . import cues, npc, roster, seats, starmada, syshit, weapons, zones
from .cues.cues import ArmCue, FireCue, SkipCue
from .npc.tactic import SetNpc
from .roster.roster import TakeRoster
from .seats.seats import ChangePosition
from .weapons.weapons import SetMagazine
from .zones import PlaceInZone

__all__ = [
    "MODULES",
    "ArmCue",
    "ChangePosition",
    "FireCue",
    "PlaceInZone",
    "SetMagazine",
    "SetNpc",
    "SkipCue",
    "TakeRoster",
]

# In the order they register: where several plug into one hook, this is the order they run in.
MODULES = (starmada, syshit, weapons, npc, seats, zones, cues, roster)

for module in MODULES:
    module.register(HOOKS)

# A module's own commands are parsed like the core's: their names join the one table.
COMMANDS.update({command.__name__: command for command in HOOKS.commands})

if set(HANDLERS) | set(HOOKS.commands) != set(COMMANDS.values()):
    raise RuntimeError("every command needs one handler, in the core or a module")
