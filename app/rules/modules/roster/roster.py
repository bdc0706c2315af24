"""Module `roster` (G-CAMP-1): a game begins from a campaign's roster.

`TakeRoster` puts a campaign's ships and characters aboard a game at a battle's opening: each
named players' ship becomes the campaign's (its class, rebuilt from the game's sheets when the
scenario had another, its name, every track's damage and the counts modules keep), each
character takes the roster's values, and the dead leave the game. The campaign builds the
command (app/rules/campaign/roster.py); it is an ordinary stored command, so a game replays it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...core.commands import Command
from ...core.context import Context
from ...core.crew import CHARACTERISTICS, status_of
from ...core.errors import refuse
from ...core.hooks import HOOKS
from ...core.messages import message
from ...core.names import SHIP_NAME_LENGTH, checked_name
from ...core.sheets import build_ship
from ...core.state import Ship, get_character, get_ship, get_station, role_label, station_key

PHASES = frozenset({"downtime"})
VALUE_MAX = 30  # a characteristic (G-CREW-1 goes to 15; a campaign may raise a maximum)
NUMBER_MAX = 20  # armour, Medicine
COUNT_MAX = 1000


@dataclass(frozen=True)
class TakeRoster(Command):
    """G-CAMP-1: `ships` by the game's ship id, each a campaign ship's counts ("hull", "shields",
    "station.<id>", "weapon.<id>.<part>", "part.<key>.<name>"), with its `names` and `classes`;
    `characters` by id ("strength", "strength_max", ..., "armour", "medicine"); `absent`: the
    characters who are not in this game (the dead)."""

    ships: dict[str, dict[str, int]] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    classes: dict[str, str] = field(default_factory=dict)
    characters: dict[str, dict[str, int]] = field(default_factory=dict)
    absent: tuple[str, ...] = ()


def take_roster(ctx: Context, cmd: TakeRoster) -> None:
    state = ctx.state
    if state["turn"] != 0:
        raise refuse("WRONG_PHASE", "roster_at_opening")
    taken = []
    for ship_id in sorted(cmd.ships):
        ship = get_ship(state, ship_id)
        if ship["crew"] != "players":
            raise refuse("NOT_A_PLAYERS_SHIP", ship=ship["name"])
        ship_class = str(cmd.classes.get(ship_id, ship["class"]))
        if ship_class != ship["class"]:
            ship = _rebuilt(ctx, ship, ship_class)
        if ship_id in cmd.names:
            ship["name"] = checked_name(cmd.names[ship_id], SHIP_NAME_LENGTH)
        _set_counts(ship, cmd.ships[ship_id])
        taken.append(ship["name"])
    for character_id, numbers in sorted(cmd.characters.items()):
        _set_character(get_character(state, character_id), numbers)
    for character_id in cmd.absent:
        character = get_character(state, character_id)
        if _aboard(state, character_id):
            raise refuse("CHARACTER_TAKEN", character=character["name"])
        del state["characters"][character_id]
    ctx.emit(
        "RosterTaken",
        message("roster_taken", ships=taken, count=len(cmd.characters)),
        ships=sorted(cmd.ships),
        characters=sorted(cmd.characters),
        absent=list(cmd.absent),
    )


def _aboard(state: dict[str, Any], character_id: str) -> bool:
    return any(
        st["crew"] and st["crew"].get("character") == character_id
        for ship in state["ships"].values()
        for st in ship["stations"].values()
    )


def _bounded(value: int, top: int) -> int:
    if not 0 <= value <= top:
        raise refuse("BAD_VALUE", "bad_roster_value", most=top)
    return value


def _set_counts(ship: Ship, counts: dict[str, int]) -> None:
    for key, value in sorted(counts.items()):
        kind, _, rest = key.partition(".")
        if kind in ("hull", "shields") and not rest:
            track = ship[kind]
            track["damage"] = _bounded(value, track["boxes"])
        elif kind == "station":
            station = get_station(ship, rest)
            station["damage"] = _bounded(value, station["boxes"])
        elif kind == "weapon":
            weapon_id, _, part = rest.rpartition(".")
            weapon = next((w for w in ship["weapons"] if w["id"] == weapon_id), None)
            if weapon is None or part not in HOOKS.weapon_parts:
                raise refuse("BAD_VALUE", "bad_roster_count", key=key[:80])
            weapon[part] = _bounded(value, COUNT_MAX)
        elif kind == "part":
            part, _, name = rest.partition(".")
            kept = ship.get(part)
            if part not in HOOKS.ship_parts or not isinstance(kept, dict) or name not in kept:
                raise refuse("BAD_VALUE", "bad_roster_count", key=key[:80])
            kept[name] = _bounded(value, COUNT_MAX)
        else:
            raise refuse("BAD_VALUE", "bad_roster_count", key=key[:80])
    if ship["shields"]["damage"] >= ship["shields"]["boxes"]:
        ship["shields"]["active"] = False  # G-SHD-2: an empty generator raises nothing


def _set_character(character: dict[str, Any], numbers: dict[str, int]) -> None:
    known = {*CHARACTERISTICS, *(f"{c}_max" for c in CHARACTERISTICS), "armour", "medicine"}
    if set(numbers) - known:
        raise refuse("BAD_VALUE", "bad_characteristic_field")
    for c in CHARACTERISTICS:
        top = _bounded(numbers.get(f"{c}_max", character[c]["max"]), VALUE_MAX)
        character[c] = {"max": top, "value": _bounded(numbers.get(c, character[c]["value"]), top)}
    for name in ("armour", "medicine"):
        character[name] = _bounded(numbers.get(name, character[name]), NUMBER_MAX)
    character["status"] = status_of(character)


def _rebuilt(ctx: Context, old: Ship, ship_class: str) -> Ship:
    """The campaign's ship of its own class in the place of the scenario's: where the old one
    stood, on its side, with its crews at the stations of the same id (else of the same role,
    else any free one; with none free a crew member stands down, as at the next battle)."""
    sheets = ctx.state["sheets"]
    sheet = sheets["classes"].get(ship_class)
    if sheet is None:
        raise refuse("NO_SUCH_CLASS", ship_class=ship_class[:60], known=sorted(sheets["classes"]))
    ship = build_ship(
        sheet,
        sheets["decks"],
        ship_id=old["id"],
        name=old["name"],
        crew=old["crew"],
        side=old["side"],
        x=old["x"],
        y=old["y"],
        shields_active=old["shields"]["active"],
    )
    for key in HOOKS.ship_parts:  # the scenario's own placement of the ship stays
        if key in old:
            ship[key] = old[key]
    for key in ("zone", "zone_steps", "out"):
        if key in old:
            ship[key] = old[key]
    for station in ship["stations"].values():
        ctx.dice.shuffle(station["draw"])
    ctx.state["ships"][old["id"]] = ship
    for station in sorted(old["stations"].values(), key=lambda st: st["id"]):
        if station["crew"] is not None:
            _reseat(ctx, ship, station)
    return ship


def _reseat(ctx: Context, ship: Ship, old_station: dict[str, Any]) -> None:
    stations = sorted(ship["stations"].values(), key=lambda st: st["id"])
    same = ship["stations"].get(old_station["id"])
    free = [st for st in stations if st["crew"] is None]
    choices = [same] if same is not None and same["crew"] is None else []
    choices += [st for st in free if st["role"] == old_station["role"]] + free
    crew = old_station["crew"]
    if choices:
        choices[0]["crew"] = crew
        ctx.emit(
            "CrewMovedAboard",
            message(
                "crew_moved_aboard",
                crew=crew["name"],
                station=role_label(choices[0]),
                ship=ship["name"],
            ),
            seat=crew["seat"],
            to=station_key(ship, choices[0]),
        )
        return
    ctx.emit(
        "CrewStoodDown",
        message("crew_stood_down", crew=crew["name"]),
        seat=crew["seat"],
        name=crew["name"],
    )
