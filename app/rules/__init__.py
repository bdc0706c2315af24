"""Bridge Crew's rules engine: pure, deterministic, standard library only.

Everything outside talks to it through `apply`, `new_game`, `parse_command` and the view functions.
"""

from .commands import COMMANDS, Actor, Command, parse_command
from .engine import apply
from .errors import RulesError
from .state import new_game
from .timing import deadlines
from .views import display_view, event_view, gm_view, shared_view, station_view

__all__ = [
    "COMMANDS",
    "Actor",
    "Command",
    "RulesError",
    "apply",
    "deadlines",
    "display_view",
    "event_view",
    "gm_view",
    "new_game",
    "parse_command",
    "shared_view",
    "station_view",
]
