"""A campaign's one entry point: `apply(state, command) -> (new_state, events)`, as a game's.

`apply` works on a private copy, so a refused command (a `RulesError`) leaves the caller's state
exactly as it was.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

from ..core.crew import CHARACTERISTICS
from ..core.errors import refuse
from ..core.messages import message
from ..core.names import CREW_NAME_LENGTH, SHIP_NAME_LENGTH, name_problem
from . import commands as c
from .context import CampaignContext
from .downtime import check_placing, first_aid, place, run_days, suggested
from .state import (
    CARE,
    DAYS_MAX,
    NEEDS_DOCTOR,
    State,
    able,
    alive,
    damaged,
    get_character,
    restatus,
    seriously_wounded,
)

Events = list[dict[str, Any]]
REPAIRS_MAX = 20


def copy(state: State) -> State:
    """A deep copy of plain data, through pickle (cheaper than copy.deepcopy)."""
    # Our own bytes, made the line before: nothing untrusted is unpickled.
    copied: State = pickle.loads(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL))  # noqa: S301
    return copied


def apply(state: State, command: c.CampaignCommand) -> tuple[State, Events]:
    """The campaign after the command, and what happened; the state given is left as it was."""
    actor = command.actor
    if command.system_only and actor.role != "system":
        raise refuse("SERVER_ONLY", "campaign_server_only")
    if command.gm_only and not actor.is_gm:
        raise refuse("GM_ONLY")
    ctx = CampaignContext(copy(state), command.now)
    HANDLERS[type(command)](ctx, command)
    return ctx.state, ctx.events


# --- Evenings (G-CAMP-1) --------------------------------------------------------------------------


def begin_evening(ctx: CampaignContext, cmd: c.BeginEvening) -> None:
    state = ctx.state
    if state["evening"] is not None:
        raise refuse("EVENING_RUNNING", number=state["evening"]["number"])
    if state["downtime"] is not None:
        raise refuse("DOWNTIME_RUNNING")
    roster_ids = list(cmd.ships.values())
    for roster_id in roster_ids:
        ship = state["ships"].get(roster_id)
        if ship is None or ship["destroyed"] or roster_ids.count(roster_id) > 1:
            raise refuse("NO_SUCH_SHIP", "no_such_roster_ship", ship=roster_id[:60])
    number = len(state["evenings"]) + 1
    state["evening"] = {
        "number": number,
        "game": cmd.game,
        "scenario": cmd.scenario,
        "ships": dict(cmd.ships),
        "began_day": state["day"],
        "hull_began": {rid: _hull(state["ships"][rid]) for rid in sorted(roster_ids)},
    }
    state["undo"] = None  # the Downtime before is history once the next evening begins
    ctx.emit(
        "EveningBegan",
        message("evening_began", number=number, scenario=cmd.scenario),
        number=number,
        game=cmd.game,
    )


def _hull(ship: dict[str, Any]) -> dict[str, int]:
    return {"left": ship["hull"]["boxes"] - ship["hull"]["damage"], "boxes": ship["hull"]["boxes"]}


def end_evening(ctx: CampaignContext, cmd: c.EndEvening) -> None:
    state = ctx.state
    evening = state["evening"]
    if evening is None or evening["game"] != cmd.game:
        raise refuse("NO_EVENING_RUNNING")
    number = evening["number"]
    ships = _records(cmd.roster, "ships", _check_ship)
    characters = _records(cmd.roster, "characters", _check_character)
    players = cmd.roster.get("players", {})
    if not isinstance(players, dict) or not all(
        isinstance(v, str) and name_problem(v, CREW_NAME_LENGTH) is None for v in players.values()
    ):
        raise refuse("BAD_ROSTER", part="players")
    if not _check_story(cmd.story):
        raise refuse("BAD_ROSTER", part="story")
    for ship_id, record in ships.items():
        known = state["ships"].get(ship_id)
        evenings = [*(known["evenings"] if known else []), number]
        state["ships"][ship_id] = {**record, "id": ship_id, "evenings": evenings}
    for character_id, record in characters.items():
        known = state["characters"].get(character_id) or {"evenings": [], "player": None}
        character = {
            **known,
            **record,
            "id": character_id,
            "player": players.get(character_id, known["player"]),
            "evenings": [*known["evenings"], number]
            if character_id in players
            else known["evenings"],
        }
        was = known.get("status")
        restatus(character)
        state["characters"][character_id] = character
        if character["status"] == "dead" and was != "dead":
            character["died"] = {"evening": number}
            ctx.emit(
                "CharacterDied",
                message("character_died_in_evening", character=character["name"], number=number),
                character=character_id,
            )
    state["evenings"].append(
        {
            **evening,
            "ended_day": state["day"],
            "hull_ended": {sid: _hull(state["ships"][sid]) for sid in sorted(ships)},
            "story": cmd.story,
        }
    )
    state["evening"] = None
    ctx.emit(
        "EveningEnded",
        message(
            "evening_written_back", number=number, ships=len(ships), characters=len(characters)
        ),
        number=number,
        game=cmd.game,
    )


def _records(
    roster: dict[str, Any], part: str, check: Callable[[Any], bool]
) -> dict[str, dict[str, Any]]:
    found = roster.get(part, {})
    if not isinstance(found, dict) or not all(
        isinstance(k, str) and 0 < len(k) <= 100 and check(v) for k, v in found.items()
    ):
        raise refuse("BAD_ROSTER", part=part)
    return found


def _is_message(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("msg"), str)


def _list_of(value: Any, check: Callable[[Any], bool]) -> bool:
    return isinstance(value, list) and all(check(item) for item in value)


def _by_character(value: Any, check: Callable[[Any], bool]) -> bool:
    return isinstance(value, dict) and all(_list_of(items, check) for items in value.values())


def _outcome_ok(outcome: Any) -> bool:
    return (
        isinstance(outcome, dict)
        and _count(outcome.get("combat"))
        and isinstance(outcome.get("ended"), bool)
        and _list_of(outcome.get("winners"), lambda w: isinstance(w, str))
        and (outcome.get("beaten") is None or isinstance(outcome["beaten"], str))
        and (outcome.get("words") is None or _is_message(outcome["words"]))
    )


def _check_story(story: dict[str, Any]) -> bool:
    """An evening's story has the shape `roster.evening_from_game` gives it: what the campaign's
    screens read of it."""
    return (
        _list_of(story.get("scenarios"), lambda n: isinstance(n, str))
        and _list_of(story.get("outcomes"), _outcome_ok)
        and _by_character(
            story.get("injuries"),
            lambda i: _is_message(i.get("words")) if isinstance(i, dict) else False,
        )
        and _by_character(story.get("deeds"), _is_message)
    )


def _count(value: Any, top: int = 1000) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= top


def _check_track(track: Any) -> bool:
    return (
        isinstance(track, dict)
        and _count(track.get("boxes"))
        and _count(track.get("damage"))
        and track["damage"] <= track["boxes"]
    )


def _check_ship(ship: Any) -> bool:
    return (
        isinstance(ship, dict)
        and all(isinstance(ship.get(k), str) for k in ("name", "class", "class_name"))
        and name_problem(ship["name"], SHIP_NAME_LENGTH) is None
        and _check_track(ship.get("hull"))
        and _check_track(ship.get("shields"))
        and isinstance(ship.get("stations"), dict)
        and all(
            _check_track(st) and isinstance(st.get("role"), str) for st in ship["stations"].values()
        )
        and isinstance(ship.get("counts"), dict)
        and all(isinstance(v, int) and not isinstance(v, bool) for v in ship["counts"].values())
        and isinstance(ship.get("destroyed"), bool)
    )


def _check_character(character: Any) -> bool:
    return (
        isinstance(character, dict)
        and isinstance(character.get("name"), str)
        and name_problem(character["name"], SHIP_NAME_LENGTH) is None
        and _count(character.get("armour"), 20)
        and _count(character.get("medicine"), 20)
        and all(
            isinstance(character.get(ch), dict)
            and _count(character[ch].get("max"), 30)
            and _count(character[ch].get("value"), 30)
            and character[ch]["value"] <= character[ch]["max"]
            for ch in CHARACTERISTICS
        )
    )


# --- Downtime (G-CAMP-2 to G-CAMP-8) --------------------------------------------------------------


def start_downtime(ctx: CampaignContext, cmd: c.StartDowntime) -> None:
    state = ctx.state
    if state["evening"] is not None:
        raise refuse("EVENING_RUNNING", number=state["evening"]["number"])
    if state["downtime"] is not None:
        raise refuse("DOWNTIME_RUNNING")
    if not 1 <= cmd.days <= DAYS_MAX:
        raise refuse("BAD_DAYS", most=DAYS_MAX)
    plans = {cid: _plan(state, cid, plan) for cid, plan in sorted(cmd.plans.items())}
    for cid, character in sorted(state["characters"].items()):
        if cid not in plans and alive(character):
            plans[cid] = {"care": "active"}
    number = state["downtimes"] + 1
    state["undo"] = {"number": number, "state": copy({**state, "undo": None})}
    state["downtimes"] = number
    state["downtime"] = {
        "number": number,
        "days": cmd.days,
        "day": 0,
        "from_day": state["day"],
        "plans": plans,
        "waiting": {},
        "auto": [],
    }
    ctx.emit(
        "DowntimeStarted",
        message("downtime_started", number=number, count=cmd.days),
        number=number,
        days=cmd.days,
        plans=plans,
    )
    for cid, plan in sorted(plans.items()):
        if plan.get("first_aid"):
            first_aid(ctx, state["characters"][cid], state["characters"][plan["first_aid"]])
    run_days(ctx)


def _plan(state: State, character_id: str, plan: dict[str, str]) -> dict[str, str]:
    character = get_character(state, character_id)
    if not alive(character):
        raise refuse("CHARACTER_DEAD", "dead_have_no_downtime", character=character["name"])
    if set(plan) - {"care", "doctor", "first_aid"}:
        raise refuse("BAD_VALUE", "bad_plan")
    care = plan.get("care") or "active"
    if care not in CARE:
        raise refuse("BAD_VALUE", "bad_care")
    kept = {"care": care}
    doctor_id = plan.get("doctor") or None
    if care in NEEDS_DOCTOR:
        if doctor_id is None:
            raise refuse("NO_DOCTOR", character=character["name"])
        doctor = get_character(state, doctor_id)
        if not able(doctor):
            raise refuse("DOCTOR_UNFIT", character=doctor["name"])
        kept["doctor"] = doctor_id
    if care == "medical" and seriously_wounded(character):
        raise refuse("NEEDS_SURGERY", character=character["name"])
    medic_id = plan.get("first_aid") or None
    if medic_id is not None:
        medic = get_character(state, medic_id)
        if not able(medic):
            raise refuse("DOCTOR_UNFIT", character=medic["name"])
        if not damaged(character):
            raise refuse("NOT_INJURED", character=character["name"])
        kept["first_aid"] = medic_id
    return kept


def _waiting(ctx: CampaignContext) -> dict[str, Any]:
    downtime = ctx.state["downtime"]
    if downtime is None:
        raise refuse("NO_DOWNTIME")
    ctx.day = downtime["day"]
    waiting: dict[str, Any] = downtime["waiting"]
    return waiting


def place_recovery(ctx: CampaignContext, cmd: c.PlaceRecovery) -> None:
    waiting = _waiting(ctx)
    character = get_character(ctx.state, cmd.character)
    if cmd.actor.role == "seat" and cmd.actor.seat != cmd.character:
        raise refuse("NOT_YOUR_CHARACTER", character=character["name"])
    owed = waiting.get(cmd.character)
    if owed is None:
        raise refuse("NOTHING_TO_PLACE", character=character["name"])
    placed = check_placing(character, cmd.points, owed["points"])
    del waiting[cmd.character]
    place(ctx, character, placed, owed["how"], by_gm=cmd.actor.is_gm)
    run_days(ctx)


def place_as_suggested(ctx: CampaignContext, cmd: c.PlaceAsSuggested) -> None:
    waiting = _waiting(ctx)
    if cmd.character is None:
        chosen = sorted(waiting)
    else:
        character = get_character(ctx.state, cmd.character)
        if cmd.character not in waiting and not cmd.rest:
            raise refuse("NOTHING_TO_PLACE", character=character["name"])
        chosen = [cmd.character]
    if cmd.rest:
        auto = ctx.state["downtime"]["auto"]
        auto += [cid for cid in chosen if cid not in auto]
    for cid in chosen:
        owed = waiting.pop(cid, None)
        if owed is not None:
            character = ctx.state["characters"][cid]
            place(ctx, character, suggested(character, owed["points"]), owed["how"], by_gm=True)
    run_days(ctx)


def undo_downtime(ctx: CampaignContext, cmd: c.UndoDowntime) -> None:
    """The campaign as it was before the last Downtime began, its dice too: the same Downtime
    given again rolls the same (no fishing for better dice)."""
    undo = ctx.state["undo"]
    if undo is None:
        raise refuse("NOTHING_TO_UNDO", "no_downtime_to_undo")
    ctx.state = copy(undo["state"])
    ctx.state["undo"] = None
    ctx.emit(
        "DowntimeUndone",
        message("downtime_undone", number=undo["number"]),
        number=undo["number"],
    )


def set_repairs(ctx: CampaignContext, cmd: c.SetRepairs) -> None:
    for value in (cmd.hull_per_day, cmd.station_per_day):
        if not 0 <= value <= REPAIRS_MAX:
            raise refuse("BAD_VALUE", "bad_repairs", most=REPAIRS_MAX)
    ctx.state["settings"].update(hull_per_day=cmd.hull_per_day, station_per_day=cmd.station_per_day)
    ctx.emit(
        "RepairsSet",
        message("repairs_set", hull=cmd.hull_per_day, station=cmd.station_per_day),
        hull_per_day=cmd.hull_per_day,
        station_per_day=cmd.station_per_day,
    )


HANDLERS: dict[type[c.CampaignCommand], Callable[[CampaignContext, Any], None]] = {
    c.BeginEvening: begin_evening,
    c.EndEvening: end_evening,
    c.StartDowntime: start_downtime,
    c.PlaceRecovery: place_recovery,
    c.PlaceAsSuggested: place_as_suggested,
    c.UndoDowntime: undo_downtime,
    c.SetRepairs: set_repairs,
}
