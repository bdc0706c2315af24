"""The after-action report (G-END-2), read from the event log and nothing else.

No counter is kept during play: the report walks the events a game's commands produced, so it is
whatever a replay of those commands says it is. The state is read only for the names of the
battle being fought; a finished battle's names, sides and crews come with the event that moved
the table on (E-EVENING-1), so one report covers every battle of the evening.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .evening import roster
from .hooks import HOOKS
from .messages import said
from .state import State

Event = dict[str, Any]
Roster = dict[str, Any]

# Events that put damage on a ship's tracks, and how many points each one filled.
DAMAGE_TAKEN: dict[str, Callable[[Event], int]] = {
    "ShieldsHit": lambda e: int(e["points"]),
    "HullHit": lambda e: 1,
    "StationDamaged": lambda e: int(e["points"]),
    "ShieldGeneratorHit": lambda e: 1,
}

# Events that are one ship's attack on another: `ship` fired at `target`; `hit` and `damage` say
# how it went. A module adds its own (HOOKS.report_attacks).
ATTACKS = {"AttackResolved"}

# What a resolution's undo takes back besides the reveal and what followed it (engine.py).
_BEFORE_REVEAL = {"OrderVoided", "AllOrdersIn", "TimerExpired"}


def effective_events(events: Iterable[Event]) -> list[Event]:
    """The events that still stand: an undone resolution's events are dropped, as the undo
    dropped their effects from the state."""
    kept: list[Event] = []
    for event in events:
        if event["type"] != "ResolutionUndone":
            kept.append(event)
            continue
        while kept and kept[-1]["type"] != "OrdersRevealed":
            kept.pop()
        if kept:
            kept.pop()
        while kept and kept[-1]["type"] in _BEFORE_REVEAL:
            kept.pop()
        kept.append(event)
    return kept


def _ship_line(ship_id: str) -> dict[str, Any]:
    return {
        "id": ship_id,
        "damage_dealt": 0,
        "damage_taken": 0,
        "repaired": 0,
        "attacks": 0,
        "hits": 0,
        **dict.fromkeys(HOOKS.report_counts.values(), 0),
        "destroyed": False,
    }


def _new_combat(number: int, battle: int) -> dict[str, Any]:
    return {
        "combat": number,
        "battle": battle,
        "ended": False,
        "turns": 0,
        "ships": {},
        "injuries": [],
        "biggest_hit": None,
        "log": [],
        "can_end": None,  # the last CombatCanEnd: which side was beaten, and how
        "chart": {},  # ship id -> [{turn, hull, shields}], from each turn's summary
        "stations": {},  # "ship/station" -> orders given (highlights)
    }


def _new_battle(number: int, scenario: dict[str, Any] | None) -> dict[str, Any]:
    return {"battle": number, "scenario": scenario, "combats": [], "seated": {}}


def _count(combat: dict[str, Any], state: State, event: Event) -> None:
    kind = event["type"]
    ships = combat["ships"]

    def line(ship_id: str) -> dict[str, Any]:
        found: dict[str, Any] = ships.setdefault(ship_id, _ship_line(ship_id))
        return found

    if kind == "TurnResolved":
        combat["turns"] += 1
        for entry in event.get("summary", []):
            combat["chart"].setdefault(entry["ship"], []).append(
                {"turn": event["turn"], "hull": entry["hull"], "shields": entry["shields"]}
            )
    elif kind == "OrdersRevealed":
        for order in event.get("orders", []):
            _station_order(combat, event["turn"], order)
    elif kind == "CombatCanEnd":
        combat["can_end"] = {"side": event["side"], "why": event["why"], "words": event["words"]}
    elif kind in DAMAGE_TAKEN:
        line(event["ship"])["damage_taken"] += DAMAGE_TAKEN[kind](event)
    elif kind == "RepairResolved":
        line(event["ship"])["repaired"] += int(event["restored"])
    elif kind == "ShipDestroyed":
        line(event["ship"])["destroyed"] = True
    elif kind in HOOKS.report_counts:
        line(event["ship"])[HOOKS.report_counts[kind]] += 1
    elif kind in ATTACKS or kind in HOOKS.report_attacks:
        attacker = line(event["ship"])
        attacker["attacks"] += 1
        if event.get("hit"):
            attacker["hits"] += 1
            attacker["damage_dealt"] += int(event.get("damage") or 0)
            best = combat["biggest_hit"]
            if best is None or int(event["damage"]) > best["damage"]:
                combat["biggest_hit"] = _hit(event)
    elif kind in ("CrewInjured", "CrewInjuryBlocked"):
        character = state["characters"].get(event["character"], {})
        combat["injuries"].append(
            {
                "turn": event["turn"],
                "character": event["character"],
                "name": character.get("name", event["character"]),
                "damage": event["damage"],
                "lost": event.get("lost", {}),
                "status": event.get("status", character.get("status")),
                "words": said(event)["words"],
            }
        )


def _station_order(combat: dict[str, Any], turn: int, order: dict[str, Any]) -> None:
    """A station's part in the combat: orders given and passed, cards played, its best order."""
    key = f"{order['ship']}/{order['station']}"
    line = combat["stations"].setdefault(
        key,
        {
            "ship": order["ship"],
            "station": order["station"],
            "orders": 0,
            "passes": 0,
            "cards": 0,
            "best": None,
        },
    )
    if order["action"] == "pass":
        line["passes"] += 1
        return
    line["orders"] += 1
    line["cards"] += len(order.get("cards", []))
    value = int(order.get("value") or 0)
    if line["best"] is None or value > line["best"]["value"]:
        line["best"] = {"turn": turn, "action": order["action"], "value": value}
        if "words" in order:
            line["best"]["words"] = order["words"]


def _hit(event: Event) -> dict[str, Any]:
    """The biggest single hit, with its dice (G-END-2)."""
    return {
        "turn": event["turn"],
        "ship": event["ship"],
        "target": event["target"],
        "damage": int(event["damage"]),
        "roll": event.get("roll"),
        "score": event.get("score"),
        "needed": event.get("needed"),
        "breakdown": event.get("breakdown"),
        "words": said(event)["words"],
    }


def build_report(state: State, events: Iterable[Event]) -> dict[str, Any]:
    """Every battle of the evening and every combat in each, in order, from their events (stored
    or replayed)."""
    battle = _new_battle(1, None)
    battles = [battle]
    current: dict[str, Any] | None = None
    for event in effective_events(events):
        kind = event["type"]
        if kind == "BattleStarted":  # E-EVENING-1: the finished battle's names come with it
            battle["roster"] = event["finished"]
            battle = _new_battle(len(battles) + 1, event["scenario"])
            battles.append(battle)
            current = None
            continue
        if kind == "CrewSeated":
            names = battle["seated"].setdefault(f"{event['ship']}/{event['station']}", [])
            names.append(event["name"])
        if kind == "CombatStarted":
            current = _new_combat(int(event["combat"]), battle["battle"])
            battle["combats"].append(current)
            continue
        if current is None or current["ended"]:
            continue  # Downtime: before the first combat or between two
        _count(current, state, event)
        words = said(event).get("words")
        if words and event.get("log", True):  # only the public words: never a secret
            current["log"].append({"turn": event["turn"], "type": kind, "words": words})
        if kind == "CombatEnded":
            current["ended"] = True
    battle["roster"] = roster(state)
    combats = [_finish(combat, b) for b in battles for combat in b["combats"]]
    return {
        "scenario": state["scenario"],
        "battles": [_battle(b) for b in battles],
        "combats": combats,
        "ended": bool(combats) and combats[-1]["ended"] and state["phase"] == "downtime",
    }


def _crew_names(battle: dict[str, Any], ship_id: str, station_id: str) -> list[str]:
    """Everyone who sat at a station in the battle, in the order they came, last holder too."""
    names = list(battle["seated"].get(f"{ship_id}/{station_id}", []))
    station = battle["roster"]["ships"].get(ship_id, {}).get("stations", {}).get(station_id)
    if station and station["crew"] and station["crew"]["name"] not in names:
        names.append(station["crew"]["name"])
    return names


def _battle(battle: dict[str, Any]) -> dict[str, Any]:
    """A battle's scenario and its players: who sat at each station of the players' ships."""
    ships = battle["roster"]["ships"]
    crew = []
    for ship_id in sorted(ships):
        ship = ships[ship_id]
        if ship["crew"] != "players":
            continue
        for station_id, station in sorted(ship["stations"].items()):
            names = _crew_names(battle, ship_id, station_id)
            if names:
                character = station["crew"]["character"] if station["crew"] else None
                crew.append(
                    {
                        "ship": ship_id,
                        "ship_name": ship["name"],
                        "station": station_id,
                        "label": station["label"],
                        "role": station["role"],
                        "names": names,
                        "character": character,
                    }
                )
    return {
        "battle": battle["battle"],
        "scenario": battle["roster"]["scenario"],
        "crew": crew,
        "combats": [combat["combat"] for combat in battle["combats"]],
    }


def _finish(combat: dict[str, Any], battle: dict[str, Any]) -> dict[str, Any]:
    """A combat with its ships' names and sides, how it ended, its chart and station lines."""
    ships: Roster = battle["roster"]["ships"]

    def name(ship_id: str) -> str:
        return str(ships.get(ship_id, {}).get("name", ship_id))

    lines = {sid: _ship_line(sid) for sid in ships} | combat["ships"]
    for sid, line in lines.items():
        line.update(name=name(sid), side=ships.get(sid, {}).get("side"))
    hit = combat["biggest_hit"]
    if hit is not None:
        hit.update(ship_name=name(hit["ship"]), target_name=name(hit["target"]))
    stations = []
    for _, line in sorted(combat["stations"].items()):
        ship = ships.get(line["ship"], {})
        station = ship.get("stations", {}).get(line["station"], {})
        stations.append(
            {
                **line,
                "ship_name": name(line["ship"]),
                "side": ship.get("side"),
                "label": station.get("label", line["station"]),
                "role": station.get("role"),
                "crew": _crew_names(battle, line["ship"], line["station"]),
            }
        )
    chart = [
        {
            "ship": sid,
            "name": name(sid),
            "side": ships.get(sid, {}).get("side"),
            "hull_boxes": ships.get(sid, {}).get("hull", 0),
            "shields_boxes": ships.get(sid, {}).get("shields", 0),
            "turns": turns,
        }
        for sid, turns in sorted(combat.pop("chart").items())
    ]
    can_end = combat.pop("can_end")
    combat.pop("stations")
    return {
        **combat,
        "ships": sorted(lines.values(), key=lambda s: (str(s["side"]), s["id"])),
        "outcome": _outcome(combat, can_end, {s.get("side") for s in ships.values()}),
        "chart": chart,
        "stations": stations,
    }


def _outcome(
    combat: dict[str, Any], can_end: dict[str, Any] | None, sides: set[Any]
) -> dict[str, Any] | None:
    """Who won and how it ended: the side that could no longer fight as the combat ended (G-END-1)
    and why, or no side beaten when the GM ended it before that. None while it is fought."""
    if not combat["ended"]:
        return None
    if can_end is None:
        return {"beaten": None, "winners": [], "why": [], "words": None}
    winners = sorted(str(side) for side in sides if side is not None and side != can_end["side"])
    return {
        "beaten": can_end["side"],
        "winners": winners,
        "why": can_end["why"],
        "words": can_end["words"],
    }
