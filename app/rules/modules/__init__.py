"""The switchable modules, and the one place that names them: each plugs into the core's hooks
(core/hooks.py) here, once, as `app.rules` is imported. The core never imports a module."""

from __future__ import annotations

from ..core.commands import COMMANDS
from ..core.engine import HANDLERS
from ..core.hooks import HOOKS
from . import cues, npc, seats, starmada, syshit, weapons, zones

MODULES = (weapons, zones, npc, seats, starmada, syshit, cues)

for module in MODULES:
    module.register(HOOKS)

# A module's own commands are parsed like the core's: their names join the one table.
COMMANDS.update({command.__name__: command for command in HOOKS.commands})

if set(HANDLERS) | set(HOOKS.commands) != set(COMMANDS.values()):
    raise RuntimeError("every command needs one handler, in the core or a module")
