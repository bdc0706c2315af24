"""Between a game and its campaign (G-CAMP-1): what a game starts from, and what its end writes
back, both as plain data read from states and events only.

A campaign ship takes the place of one of the game's players' ships: the n-th live roster ship
(by roster id) the n-th players' ship of the game (by ship id), as the evening's crews move
(E-EVENING-1). The module `roster` (app/rules/modules/roster) puts it aboard the game through the
`TakeRoster` command, whose fields `take_roster` builds here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..core.crew import CHARACTERISTICS
from ..core.hooks import HOOKS
from ..core.messages import Message, message
from .state import State, live_ships

Counts = dict[str, int]
GameState = dict[str, Any]
Event = dict[str, Any]


def players_ships(game: GameState) -> list[dict[str, Any]]:
    return [ship for _, ship in sorted(game["ships"].items()) if ship["crew"] == "players"]


def slots(campaign: State, game: GameState) -> dict[str, str]:
    """Which roster ship each of the game's players' ships is: the n-th to the n-th."""
    return {
        ship["id"]: roster_ship["id"]
        for ship, roster_ship in zip(players_ships(game), live_ships(campaign), strict=False)
    }


# --- What a game starts from ----------------------------------------------------------------------


def counts_of(ship: dict[str, Any]) -> Counts:
    """A ship's damage and what it has used up, as whole numbers by name: each track's damage,
    and the whole-number parts modules keep on it and its weapons (a launcher's torpedoes left,
    systems' wear), named by the module's own key."""
    counts: Counts = {
        "hull": int(ship["hull"]["damage"]),
        "shields": int(ship["shields"]["damage"]),
    }
    for station_id, station in ship["stations"].items():
        counts[f"station.{station_id}"] = int(station["damage"])
    for weapon in ship["weapons"]:
        for key in HOOKS.weapon_parts:
            value = weapon.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                counts[f"weapon.{weapon['id']}.{key}"] = value
    for key in HOOKS.ship_parts:
        part = ship.get(key)
        if isinstance(part, dict) and part and all(_whole(v) for v in part.values()):
            counts.update({f"part.{key}.{name}": int(v) for name, v in part.items()})
    return counts


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def character_numbers(character: dict[str, Any]) -> Counts:
    numbers: Counts = {"armour": int(character["armour"]), "medicine": int(character["medicine"])}
    for c in CHARACTERISTICS:
        numbers[c] = int(character[c]["value"])
        numbers[f"{c}_max"] = int(character[c]["max"])
    return numbers


def take_roster(campaign: State, game: GameState, ships: dict[str, str]) -> dict[str, Any]:
    """The TakeRoster command that puts the roster aboard `game`: each slotted ship's class,
    name and counts, each roster character the game has as they stand, and the dead, who are
    not in the next game."""
    chosen = {game_id: campaign["ships"][roster_id] for game_id, roster_id in ships.items()}
    characters = {
        cid: ch for cid, ch in sorted(campaign["characters"].items()) if cid in game["characters"]
    }
    return {
        "type": "TakeRoster",
        "ships": {gid: dict(ship["counts"]) for gid, ship in chosen.items()},
        "names": {gid: ship["name"] for gid, ship in chosen.items()},
        "classes": {gid: ship["class"] for gid, ship in chosen.items()},
        "characters": {
            cid: character_numbers(ch) for cid, ch in characters.items() if ch["status"] != "dead"
        },
        "absent": sorted(cid for cid, ch in characters.items() if ch["status"] == "dead"),
    }


def carry_ships(before: GameState, after: GameState) -> dict[str, Any] | None:
    """The TakeRoster that keeps a campaign's ships aboard when the table moves on to the next
    battle of the evening (E-EVENING-1): the n-th players' ship as it left, on the n-th of the new
    battle. None when there is nothing to carry."""
    pairs = list(zip(players_ships(before), players_ships(after), strict=False))
    if not pairs:
        return None
    return {
        "type": "TakeRoster",
        "ships": {new["id"]: counts_of(old) for old, new in pairs},
        "names": {new["id"]: old["name"] for old, new in pairs},
        "classes": {new["id"]: old["class"] for old, new in pairs},
    }


# --- What an evening's end writes back ------------------------------------------------------------


def ship_record(ship: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": ship["name"],
        "class": ship["class"],
        "class_name": ship["class_name"],
        "hull": {"boxes": int(ship["hull"]["boxes"]), "damage": int(ship["hull"]["damage"])},
        "shields": {
            "boxes": int(ship["shields"]["boxes"]),
            "damage": int(ship["shields"]["damage"]),
        },
        "stations": {
            sid: {"role": st["role"], "boxes": int(st["boxes"]), "damage": int(st["damage"])}
            for sid, st in sorted(ship["stations"].items())
        },
        "counts": counts_of(ship),
        "destroyed": bool(ship["destroyed"]),
    }


def character_record(character: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": character["name"],
        "armour": int(character["armour"]),
        "medicine": int(character["medicine"]),
        **{
            c: {"max": int(character[c]["max"]), "value": int(character[c]["value"])}
            for c in CHARACTERISTICS
        },
    }


def evening_from_game(
    campaign: State, game: GameState, events: Iterable[Event], report: dict[str, Any]
) -> dict[str, Any]:
    """The EndEvening command for this game: its players' ships under their roster ids (a ship
    new to the campaign under an id of its own), every character of the roster the game has and
    everyone who played, and the evening's story: outcomes, injuries, deeds, who played whom."""
    evening = campaign["evening"] or {}
    # By place, not by id: a next battle of the evening put the same roster ships in the same
    # places of its own players' ships (`carry_ships`), whatever the new scenario calls them.
    slotted = [roster_id for _, roster_id in sorted(evening.get("ships", {}).items())]
    taken = set(campaign["ships"])
    ships = {}
    for place, ship in enumerate(players_ships(game)):
        roster_id = slotted[place] if place < len(slotted) else None
        if roster_id is None:
            roster_id = _new_id(ship["id"], taken)
        taken.add(roster_id)
        ships[roster_id] = ship_record(ship)
    events = list(events)
    players = _players(events)
    keep = set(players) | (set(campaign["characters"]) & set(game["characters"]))
    characters = {cid: character_record(game["characters"][cid]) for cid in sorted(keep)}
    return {
        "type": "EndEvening",
        "game": evening.get("game", ""),
        "roster": {"ships": ships, "characters": characters, "players": players},
        "story": _story(game, events, report),
    }


def _new_id(wanted: str, taken: set[str]) -> str:
    found, n = wanted, 1
    while found in taken:
        n += 1
        found = f"{wanted}-{n}"
    return found


def _players(events: list[Event]) -> dict[str, str]:
    """Who played each character this evening: the name last seated with them."""
    players: dict[str, str] = {}
    for event in events:
        if event["type"] == "CrewSeated" and event.get("character"):
            players[str(event["character"])] = str(event["name"])
    return players


def _story(game: GameState, events: list[Event], report: dict[str, Any]) -> dict[str, Any]:
    by_name = {ch["name"]: cid for cid, ch in game["characters"].items()}
    scenarios = {b["battle"]: b["scenario"]["name"] for b in report["battles"]}
    outcomes = []
    injuries: dict[str, list[dict[str, Any]]] = {}
    for combat in report["combats"]:
        outcome = combat["outcome"] or {}
        outcomes.append(
            {
                "battle": combat["battle"],
                "scenario": scenarios.get(combat["battle"], ""),
                "combat": combat["combat"],
                "ended": bool(combat["ended"]),
                "winners": list(outcome.get("winners", [])),
                "beaten": outcome.get("beaten"),
                "words": outcome.get("words"),
            }
        )
        for injury in combat["injuries"]:
            injuries.setdefault(str(injury["character"]), []).append(
                {
                    "combat": combat["combat"],
                    "turn": injury["turn"],
                    "lost": dict(injury["lost"]),
                    "status": injury["status"],
                    "words": injury["words"],
                }
            )
    return {
        "scenarios": [scenarios[b] for b in sorted(scenarios)],
        "outcomes": outcomes,
        "injuries": injuries,
        "deeds": _deeds(report, by_name, events),
    }


def _deeds(
    report: dict[str, Any], by_name: dict[str, str], events: list[Event]
) -> dict[str, list[Message]]:
    """What each character did, as messages: the stations they held to the end of a battle and
    what those stations did, and first aid given."""
    deeds: dict[str, list[Message]] = {}
    combats = {c["combat"]: c for c in report["combats"]}
    for battle in report["battles"]:
        for crew in battle["crew"]:
            character = by_name.get(crew["character"] or "")
            if character is None:
                continue
            said = deeds.setdefault(character, [])
            said.append(
                message(
                    "deed_crewed",
                    station=crew["label"],
                    ship=crew["ship_name"],
                    scenario=battle["scenario"]["name"],
                )
            )
            for number in battle["combats"]:
                said += _station_deeds(combats[number], crew)
    aid: dict[str, int] = {}
    for event in events:
        if event["type"] == "FirstAidRolled" and event.get("medic"):
            aid[str(event["medic"])] = aid.get(str(event["medic"]), 0) + 1
    for medic, count in sorted(aid.items()):
        deeds.setdefault(medic, []).append(message("deed_first_aid", count=count))
    return deeds


def _station_deeds(combat: dict[str, Any], crew: dict[str, Any]) -> list[Message]:
    found: list[Message] = []
    line = next(
        (
            s
            for s in combat["stations"]
            if (s["ship"], s["station"]) == (crew["ship"], crew["station"])
        ),
        None,
    )
    if line is not None and line["orders"]:
        best = line["best"] or {}
        found.append(
            message(
                "deed_orders",
                count=line["orders"],
                combat=combat["combat"],
                best=best.get("words") or message("deed_no_best"),
            )
        )
    ship = next((s for s in combat["ships"] if s["id"] == crew["ship"]), None)
    if ship is not None and crew["role"] == "weapons" and ship["hits"]:
        found.append(message("deed_hits", count=ship["hits"], damage=ship["damage_dealt"]))
    if ship is not None and crew["role"] == "engineering" and ship["repaired"]:
        found.append(message("deed_repairs", count=ship["repaired"]))
    return found
