"""Module `cues`: a prepared evening. A scenario's `[[cues]]` each name a trigger (a
turn, a phase, a ship's Hull, a ship destroyed, fled or surrendered, a torpedo strike, a ship
entering a zone, or only the GM's button or a prop's signal) and the commands to give when it
fires. A scenario with cues switches the module on (`state["cues"]`).

A cue fires inside the command that met its trigger, through the same handlers as the GM's own
commands, so the command log replays it exactly and undoing a resolution undoes the cues that
resolution fired.
"""

from __future__ import annotations

from typing import Any

from ...content import Scenario
from ...core.hooks import Hooks
from ...core.phases import ALL_PHASES
from . import cues
from .cue_content import check_cue_references, cue_state, parse_cues

TABLE = "cues"  # a scenario's [[cues]], and the game's cues (state["cues"])


def cues_kept(scenario: Scenario) -> list[dict[str, Any]] | None:
    """A scenario with cues switches the module on, as a zone map does zones."""
    found = scenario.sections.get(TABLE)
    return cue_state(found) if found else None


def register(hooks: Hooks) -> None:
    hooks.scenario_table(TABLE, parse_cues, check_cue_references)
    hooks.game_parts[TABLE] = cues_kept
    hooks.command(cues.FireCue, cues.fire_cue, ALL_PHASES)
    hooks.command(cues.SkipCue, cues.skip_cue, ALL_PHASES)
    hooks.command(cues.ArmCue, cues.arm_cue, ALL_PHASES)
    hooks.after_command.register(cues.notice)
    hooks.gm_views["cues"] = cues.cues_view
