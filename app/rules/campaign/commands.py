"""A campaign's commands: small frozen dataclasses named as verbs, built from JSON by
`parse_campaign_command`, which checks every field as the game's parser does.

Who gives one is an `Actor`, as in a game: the GM, the server (`system`: the evening's start and
end, which the service reads from the game), or a player, whose `seat` is the id of the character
they play in the campaign (the service finds it from the phone the campaign remembers).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, cast

from ..core.commands import Actor, Command, parse_command


def player(character: str) -> Actor:
    """The player of `character`, acting on the phone the campaign knows them by."""
    return Actor.for_seat(character)


@dataclass(frozen=True)
class CampaignCommand(Command):
    """A campaign command. `system_only`: only the server gives it (it carries what the server
    read from a game)."""

    system_only: ClassVar[bool] = False


@dataclass(frozen=True)
class BeginEvening(CampaignCommand):
    """G-CAMP-1: a game starts from the roster. `ships` maps each of the game's players' ships to
    the roster ship it is (the rest of the game's players' ships are new to the campaign)."""

    system_only: ClassVar[bool] = True
    game: str
    scenario: str
    ships: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class EndEvening(CampaignCommand):
    """G-CAMP-1: the evening's end writes the roster back. `roster` and `story` are what
    `roster.evening_from_game` read from the game, so a replay needs no game."""

    system_only: ClassVar[bool] = True
    game: str
    roster: dict[str, Any]
    story: dict[str, Any]


@dataclass(frozen=True)
class StartDowntime(CampaignCommand):
    """G-CAMP-2: `days` pass; `plans` says what each character does: {"care": rest | active |
    medical | surgery, "doctor": id, "first_aid": medic id}. Characters left out lead an active
    life."""

    days: int
    plans: dict[str, dict[str, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class PlaceRecovery(CampaignCommand):
    """G-CAMP-4: where a character's restored points go, by characteristic."""

    gm_only: ClassVar[bool] = False
    character: str
    points: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class PlaceAsSuggested(CampaignCommand):
    """The GM places for an absent player as the screens suggest: one character (or everyone
    waiting), and with `rest` on every later day of this Downtime too."""

    character: str | None = None
    rest: bool = False


@dataclass(frozen=True)
class UndoDowntime(CampaignCommand):
    """The last Downtime is taken back whole, dice included, until the next evening begins."""


@dataclass(frozen=True)
class SetRepairs(CampaignCommand):
    """G-CAMP-2: how many boxes a day of Downtime mends on the Hull and on each station."""

    hull_per_day: int
    station_per_day: int


CAMPAIGN_COMMANDS: dict[str, type[CampaignCommand]] = {
    cls.__name__: cls
    for cls in (
        BeginEvening,
        EndEvening,
        StartDowntime,
        PlaceRecovery,
        PlaceAsSuggested,
        UndoDowntime,
        SetRepairs,
    )
}


def parse_campaign_command(data: Any, actor: Actor, now: float = 0.0) -> CampaignCommand:
    """A campaign command from JSON-like data, checked field by field as a game's command is
    (BAD_COMMAND, UNKNOWN_COMMAND)."""
    return cast(CampaignCommand, parse_command(data, actor, now, table=CAMPAIGN_COMMANDS))


def command_data(command: CampaignCommand) -> dict[str, Any]:
    """A command as data that `parse_campaign_command` reads back into the same command."""
    fields = {
        f.name: getattr(command, f.name)
        for f in dataclasses.fields(command)
        if f.name not in ("actor", "now")
    }
    return {"type": command.type, **fields}
