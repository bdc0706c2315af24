"""Firing cues: by the GM's commands (FireCue, SkipCue, ArmCue) and, after every command, by
their triggers. A cue's actions are commands, run through the engine's own handlers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ...core.commands import Actor, Command, parse_command
from ...core.context import Context
from ...core.engine import check_phase, clone, handle
from ...core.errors import RulesError, refuse
from ...core.messages import Message, message
from ...core.rng import Dice
from ...core.state import State
from .triggers import CONDITIONS, MANUAL, Cue, condition_holds, moment_came


def cues_of(state: State) -> list[Cue]:
    found: list[Cue] = state.get("cues") or []
    return found


def get_cue(state: State, cue_id: str) -> Cue:
    for cue in cues_of(state):
        if cue["id"] == cue_id:
            return cue
    raise refuse("UNKNOWN_CUE", cue=cue_id[:60])


# --- The GM's commands ---------------------------------------------------------------------------


@dataclass(frozen=True)
class FireCue(Command):
    """Fire the scenario's cue `cue` (its id) now. The GM's button fires any cue; a prop's signal
    only a cue whose trigger is the prop's (M-CUES-3)."""

    cue: str
    props_may: ClassVar[bool] = True


@dataclass(frozen=True)
class SkipCue(Command):
    """The cue will not fire (until armed again)."""

    cue: str


@dataclass(frozen=True)
class ArmCue(Command):
    """A fired, skipped or failed cue waits for its trigger again."""

    cue: str


def fire_cue(ctx: Context, cmd: FireCue) -> None:
    """Fire it now, whatever its trigger if the GM asks, a prop's own cue if a prop does; a
    refused action refuses the whole command."""
    cue = get_cue(ctx.state, cmd.cue)
    by = "prop" if cmd.actor.role == "prop" else "gm"
    if by == "prop" and cue["trigger"]["kind"] != "prop":
        # The GM's buttons and the timed cues are the GM's plan: a prop cannot run them early.
        raise refuse("CUE_NOT_PROPS", cue=cue["name"])
    _check_ready(cue)
    fire(ctx, cue, by, ())


def skip_cue(ctx: Context, cmd: SkipCue) -> None:
    cue = get_cue(ctx.state, cmd.cue)
    _check_ready(cue)
    cue["status"] = "skipped"
    _tell_gm(ctx, "CueSkipped", cue)


def arm_cue(ctx: Context, cmd: ArmCue) -> None:
    cue = get_cue(ctx.state, cmd.cue)
    if cue["status"] == "armed":
        raise refuse("CUE_ARMED", cue=cue["name"])
    cue["status"] = "armed"
    cue.pop("failure", None)
    _tell_gm(ctx, "CueArmed", cue)


def _check_ready(cue: Cue) -> None:
    if cue["status"] == "fired":
        raise refuse("CUE_SPENT", cue=cue["name"])
    if cue["status"] == "skipped":
        raise refuse("CUE_SKIPPED", cue=cue["name"])
    if cue["status"] == "failed":
        raise refuse("CUE_FAILED", cue=cue["name"])


def _tell_gm(ctx: Context, type_: str, cue: Cue) -> None:
    # The cues still to come are the GM's plan: skipping or arming one tells the players nothing.
    ctx.emit(type_, None, log=False, cue=cue["id"], secret={"status": cue["status"]})


# --- Firing --------------------------------------------------------------------------------------


def did(action: dict[str, Any], state: State) -> Message:
    """What one action does, for the log."""
    kind = action["type"]
    if kind == "AddShip":
        return message("cue_did_add_ship", ship=action["name"], side=action["side"])
    if kind == "SendMessage":
        return message("cue_did_message")
    if kind == "SetRedAlert":
        return message("cue_did_red_alert_on" if action["on"] else "cue_did_red_alert_off")
    if kind == "SetNpc":
        return message("cue_did_npc", ship=state["ships"][action["ship"]]["name"])
    if kind == "PlaceInZone":
        return message("cue_did_place", ship=state["ships"][action["ship"]]["name"])
    if kind == "EndCombat":
        return message("cue_did_end_combat")
    if kind == "PlaySound":
        return message("cue_did_sound", sound=action["sound"])
    return message("cue_did_fire", cue=get_cue(state, action["cue"])["name"])


def fire(ctx: Context, cue: Cue, by: str, chain: tuple[str, ...]) -> None:
    """The cue's actions, in order, each a command through its handler. A cue fired by another
    (`chain`: the cues firing it) that is spent or already firing is refused (CUE_LOOP)."""
    if cue["id"] in chain:
        raise refuse("CUE_LOOP", cue=cue["name"])
    cue["fired"] += 1
    cue["by"] = by
    if not cue["repeat"]:
        cue["status"] = "fired"
    what = [did(action, ctx.state) for action in cue["actions"]]
    ctx.emit(
        "CueFired",
        message("cue_fired_by_prop" if by == "prop" else "cue_fired", cue=cue["name"], did=what),
        cue=cue["id"],
        by=by,
        did=what,
    )
    for action in cue["actions"]:
        command = parse_command(action, Actor.system(), ctx.now)
        if isinstance(command, FireCue):
            other = get_cue(ctx.state, command.cue)
            _check_ready(other)
            fire(ctx, other, "cue", (*chain, cue["id"]))
            continue
        check_phase(ctx.state["phase"], command)
        handle(ctx, command)


def notice(ctx: Context, phase_was: str) -> None:
    """After every command: fire each armed cue whose trigger it met. What the fired cues do may
    meet other triggers, so this looks again, firing each cue at most once per command."""
    if not cues_of(ctx.state):
        return
    looked = 0
    fired: set[str] = set()
    while True:
        events, looked = ctx.events[looked:], len(ctx.events)
        phase = ctx.state["phase"]
        due = [
            cue["id"]
            for cue in cues_of(ctx.state)
            if _met(ctx.state, cue, events, phase_was, phase)
        ]
        due = [cue_id for cue_id in due if cue_id not in fired]
        if not due:
            return
        for cue_id in due:
            fired.add(cue_id)
            cue = get_cue(ctx.state, cue_id)
            if cue["status"] == "armed":  # an earlier one this pass may have fired or failed it
                _fire_on_trigger(ctx, cue_id)
        phase_was = phase


def _met(state: State, cue: Cue, events: list[dict[str, Any]], phase_was: str, phase: str) -> bool:
    trigger = cue["trigger"]
    if trigger["kind"] in MANUAL:
        return False
    if trigger["kind"] in CONDITIONS:
        # Every cue's condition is followed, armed or not, so that arming one again does not fire
        # it for a condition that came to hold long before.
        holds, held = condition_holds(state, trigger), cue["met"]
        if holds != held:
            cue["met"] = holds
        return cue["status"] == "armed" and holds and held is False
    return cue["status"] == "armed" and moment_came(trigger, events, phase_was, phase)


def _fire_on_trigger(ctx: Context, cue_id: str) -> None:
    """A cue its trigger fires. If one of its actions is refused, none of them happen: the cue
    is marked failed with the reason, for the GM, and the command that met the trigger stands."""
    before, count = clone(ctx.state), len(ctx.events)
    try:
        fire(ctx, get_cue(ctx.state, cue_id), "trigger", ())
    except RulesError as error:
        ctx.state = before
        ctx.dice = Dice(ctx.state["rng"])
        del ctx.events[count:]
        cue = get_cue(ctx.state, cue_id)
        cue["status"] = "failed"
        cue["failure"] = {"code": error.code, "words": error.words}
        ctx.emit("CueFailed", None, log=False, cue=cue_id, secret=cue["failure"])


# --- The GM's view -------------------------------------------------------------------------------


def cues_view(state: State) -> dict[str, Any]:
    """`list`: every cue of the game in the scenario's order, its trigger, what it does, whether
    it is still to come. The GM's alone: the players learn of a cue when it fires."""
    return {"list": cue_list(state)}


def cue_list(state: State) -> list[dict[str, Any]]:
    return [
        {
            "id": cue["id"],
            "name": cue["name"],
            "trigger": trigger_words(cue["trigger"], state),
            "manual": cue["trigger"]["kind"] in MANUAL,
            "did": [did(action, state) for action in cue["actions"]],
            "repeat": cue["repeat"],
            "status": cue["status"],
            "fired": cue["fired"],
            "by": cue.get("by"),  # who fired it last: gm, trigger, cue or prop
            "failure": cue.get("failure", {}).get("words"),
        }
        for cue in cues_of(state)
    ]


def trigger_words(trigger: dict[str, Any], state: State) -> Message:
    kind = trigger["kind"]
    ship = state["ships"].get(trigger.get("ship") or "")
    name = ship["name"] if ship else None
    if kind == "turn":
        return message("cue_when_turn", turn=trigger["turns"])
    if kind == "every":
        if trigger["turns"] == 1:
            return message("cue_when_every_turn")
        return message("cue_when_every", turns=trigger["turns"])
    if kind == "phase":
        return message("cue_when_phase", phase=trigger["phase"])
    if kind == "hull":
        return message("cue_when_hull", ship=name, hull=trigger["at_most"])
    if kind == "torpedo":
        return message("cue_when_torpedo", ship=name) if name else message("cue_when_any_torpedo")
    if kind == "enters":
        zone = state["map"]["zones"][trigger["zone"]]["name"]
        if name:
            return message("cue_when_enters", ship=name, zone=zone)
        return message("cue_when_any_enters", zone=zone)
    if kind == "destroyed":
        return message("cue_when_destroyed", ship=name)
    if kind == "fled":
        return message("cue_when_fled", ship=name)
    if kind == "surrendered":
        return message("cue_when_surrendered", ship=name)
    return message("cue_when_prop") if kind == "prop" else message("cue_when_gm")
