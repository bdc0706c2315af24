"""One table for the evening (E-EVENING-1 in docs/rules.md): the GM moves the same game, with its
seats, names, characters and projector, on to the next battle of any scenario.

The new battle is the scenario's opening, built as a new game would be but with this game's dice
going on (so a replay of the same commands gives the same cards), and the crew carried over
station by station. It is not an `apply` command: the engine holds no scenarios, so the service
reads the scenario and hands it here, in the same unit of work as any command, and `replay_state`
does the same when it meets the stored `NextBattle`.
"""

from __future__ import annotations

from typing import Any

from ..content import Catalogue, Scenario
from . import commands as c
from .cards import return_skill_cards
from .context import Context
from .errors import refuse
from .messages import message
from .opening import new_game
from .state import State, role_label, station_key

Events = list[dict[str, Any]]

# The room's own settings, which belong to the evening rather than to a scenario.
ROOM_SETTINGS = ("display_language", "sound", "sound_volume")


def next_battle(state: State, scenario: Scenario, catalogue: Catalogue) -> tuple[State, Events]:
    """The game moved on to `scenario`'s opening, with its crew carried over, and what happened.
    `state` is left as it was."""
    if state["phase"] != "downtime":
        raise refuse("WRONG_PHASE", "battle_needs_downtime")
    finished = roster(state)
    crews = _leaving_crews(state)
    opening = new_game(scenario, catalogue, seed=state["rng"])
    # Characters carry their wounds and their own cards through the evening (E-EVENING-1).
    opening["characters"] = {**opening["characters"], **crews["characters"]}
    for name in ROOM_SETTINGS:
        if name in state["settings"]:
            opening["settings"][name] = state["settings"][name]
    # Combat numbers and ids count on through the evening, so each names one thing in the report.
    opening["combat"] = state["combat"]
    opening["next_id"] = max(int(state["next_id"]), int(opening["next_id"]))
    moved, opening["bench"] = _seat(opening, crews["seats"], state.get("bench") or [])
    # The combats fought before this battle: its screens speak of none of them (E-EVENING-1).
    opening["combats_before"] = state["combat"]
    ctx = Context(opening, 0.0)
    ctx.emit(
        "BattleStarted",
        message("battle_started", scenario=scenario.name),
        scenario={"id": scenario.id, "name": scenario.name},
        finished=finished,
        moved=moved,
    )
    for seat in moved:
        if seat["to"] is None:
            ctx.emit(
                "CrewStandsBy",
                message("crew_stands_by", crew=seat["name"]),
                seat=seat["seat"],
                name=seat["name"],
            )
    return ctx.state, ctx.events


def leave_roster(ctx: Context, cmd: c.LeaveRoster) -> None:
    entry = standing_by(ctx.state, cmd.seat)
    if entry is None:
        raise refuse("NOT_ON_ROSTER")
    ctx.state["bench"] = [e for e in ctx.state["bench"] if e["seat"] != cmd.seat]
    ctx.emit(
        "CrewLeftRoster",
        message("crew_left_roster", crew=entry["name"]),
        seat=cmd.seat,
        name=entry["name"],
    )


def standing_by(state: State, seat: str) -> dict[str, Any] | None:
    """The table's roster entry of a seat this battle has no station for (E-EVENING-1)."""
    return next((entry for entry in state.get("bench") or [] if entry["seat"] == seat), None)


def needs_scenario(ctx: Context, cmd: c.NextBattle) -> None:
    """`apply`'s answer to a NextBattle: only the service, which reads scenarios, can start one."""
    raise refuse("NEEDS_SCENARIO", "battle_needs_server", scenario=cmd.scenario)


def roster(state: State) -> dict[str, Any]:
    """What the report needs of a battle once its ships are gone: names, sides, tracks, crews."""
    ships = {}
    for ship in state["ships"].values():
        ships[ship["id"]] = {
            "name": ship["name"],
            "side": ship["side"],
            "crew": ship["crew"],
            "hull": ship["hull"]["boxes"],
            "shields": ship["shields"]["boxes"],
            "stations": {
                st["id"]: {
                    "label": role_label(st),
                    "role": st["role"],
                    "crew": None if st["crew"] is None else _crew_names(state, st["crew"]),
                }
                for st in ship["stations"].values()
            },
        }
    return {"scenario": state["scenario"], "ships": ships}


def _crew_names(state: State, crew: dict[str, Any]) -> dict[str, Any]:
    character = crew.get("character")
    found = state["characters"].get(character) if character else None
    return {"name": crew["name"], "character": found["name"] if found else None}


def _leaving_crews(state: State) -> dict[str, Any]:
    """The players' crews in the order they sit (players' ships by id, stations by id), with the
    characters as they leave: their Skill cards back out of the station hands."""
    ctx = Context(_characters_copy(state), 0.0)
    seats = []
    for ship_id in sorted(state["ships"]):
        ship = ctx.state["ships"][ship_id]
        if ship["crew"] != "players":
            continue
        for station_id in sorted(ship["stations"]):
            station = ship["stations"][station_id]
            if station["crew"] is None:
                continue
            return_skill_cards(ctx, station)
            seats.append(
                {
                    "from": station_key(ship, station),
                    "role": station["role"],
                    "crew": dict(station["crew"]),
                }
            )
    return {"seats": seats, "characters": ctx.state["characters"]}


def _characters_copy(state: State) -> State:
    """Enough of the state to take the Skill cards back without touching the caller's: the ships'
    hands and piles and the characters are copied, the rest shared."""
    ships = {
        sid: {
            **ship,
            "stations": {
                st_id: {**st, "hand": list(st["hand"]), "discard": list(st["discard"])}
                for st_id, st in ship["stations"].items()
            },
        }
        for sid, ship in state["ships"].items()
    }
    characters = {
        cid: {**ch, "draw": list(ch["draw"]), "discard": list(ch["discard"])}
        for cid, ch in state["characters"].items()
    }
    return {
        **state,
        "ships": ships,
        "characters": characters,
        "log": [],
        "revealed": None,
        "pending": None,
    }


def _seat(
    opening: State, seats: list[dict[str, Any]], bench: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Put each carried seat on the new players' ships: the n-th crewed old ship's crew on the
    n-th new one at the station of the same id; anyone left over, then those the last battles had
    no station for (`bench`), at the first free station of the same role, then at any free
    station. Anyone with no station left stays on the table's roster, the new bench, with name,
    character and role, for the next battle that has a station for them."""
    ships = [s for s in opening["ships"].values() if s["crew"] == "players"]
    old_ships = sorted({seat["from"].split("/")[0] for seat in seats})
    placed: list[tuple[dict[str, Any], str | None]] = []
    waiting = []
    for seat in seats:
        old_ship, _, station_id = seat["from"].partition("/")
        index = old_ships.index(old_ship)
        station = ships[index]["stations"].get(station_id) if index < len(ships) else None
        if station is not None and station["crew"] is None:
            station["crew"] = seat["crew"]
            placed.append((seat, station_key(ships[index], station)))
        else:
            waiting.append(seat)
    for entry in bench:
        crew = {k: v for k, v in entry.items() if k not in ("role", "from")}
        waiting.append({"from": entry["from"], "role": entry["role"], "crew": crew})
    stations = [(ship, st) for ship in ships for st in ship["stations"].values()]
    for same_role in (True, False):  # every station of a waiting seat's own role goes first
        still = []
        for seat in waiting:
            free = [
                (ship, st)
                for ship, st in stations
                if st["crew"] is None and (st["role"] == seat["role"] or not same_role)
            ]
            if not free:
                still.append(seat)
                continue
            ship, station = free[0]
            station["crew"] = seat["crew"]
            placed.append((seat, station_key(ship, station)))
        waiting = still
    placed += [(seat, None) for seat in waiting]
    moved = [
        {"seat": seat["crew"]["seat"], "name": seat["crew"]["name"], "from": seat["from"], "to": to}
        for seat, to in sorted(placed, key=lambda p: p[0]["from"])
    ]
    kept = [
        {**seat["crew"], "role": seat["role"], "from": seat["from"]}
        for seat in sorted(waiting, key=lambda seat: seat["from"])
    ]
    return moved, kept
