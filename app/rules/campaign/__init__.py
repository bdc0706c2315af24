"""Campaigns (G-CAMP-*): a crew's story over several games, as a pure engine of its own.

The same contract as the game's: plain JSON-able state (`new_campaign`), one entry point
`apply(state, command) -> (state, events)`, commands parsed from JSON
(`parse_campaign_command`), typed errors with stable codes (`RulesError`), and views the only way
state leaves (`campaign_view`, `campaign_story`). `roster` reads what a game starts from and what
its end writes back; the module `roster` puts a campaign's ships and characters aboard a game.
"""

from . import commands, roster
from .commands import (
    CAMPAIGN_COMMANDS,
    CampaignCommand,
    command_data,
    parse_campaign_command,
    player,
)
from .engine import apply
from .state import DAYS_MAX, dm, new_campaign
from .views import campaign_story, campaign_view

__all__ = [
    "CAMPAIGN_COMMANDS",
    "DAYS_MAX",
    "CampaignCommand",
    "apply",
    "campaign_story",
    "campaign_view",
    "command_data",
    "commands",
    "dm",
    "new_campaign",
    "parse_campaign_command",
    "player",
    "roster",
]
