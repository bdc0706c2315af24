"""Module `roster` (G-CAMP-1): a game begins from a campaign's roster. Not a switch: its one
command is given by the service when a campaign starts an evening or moves it on."""

from __future__ import annotations

from ...core.hooks import Hooks
from . import roster


def register(hooks: Hooks) -> None:
    hooks.command(roster.TakeRoster, roster.take_roster, roster.PHASES)
