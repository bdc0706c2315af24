"""Bridge Crew's rules engine: pure, deterministic, standard library only.

Everything outside talks to it through `apply`, `new_game`, `parse_command` and the view functions.
The core (core/) runs the game; the switchable modules (modules/) plug into its hooks; content/
reads and checks scenario files.
"""

from . import commands
from . import modules as modules  # plugs the switchable modules into the core's hooks
from .core import rng
from .core.commands import COMMANDS, Actor, Command, parse_command
from .core.engine import apply
from .core.errors import RulesError
from .core.opening import new_game
from .core.state import players_side
from .core.timing import deadlines
from .core.views import display_view, event_view, gm_view, shared_view, station_view

__all__ = [
    "COMMANDS",
    "Actor",
    "Command",
    "RulesError",
    "apply",
    "commands",
    "deadlines",
    "display_view",
    "event_view",
    "gm_view",
    "new_game",
    "parse_command",
    "players_side",
    "rng",
    "shared_view",
    "station_view",
]
