"""The after-action report (G-END-2), read from the event log and nothing else.

No counter is kept during play: the report walks the events a game's commands produced, so it is
whatever a replay of those commands says it is. The state is read only for names and sides.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .messages import said
from .state import State

Event = dict[str, Any]

# Events that put damage on a ship's tracks, and how many points each one filled.
DAMAGE_TAKEN: dict[str, Callable[[Event], int]] = {
    "ShieldsHit": lambda e: int(e["points"]),
    "HullHit": lambda e: 1,
    "StationDamaged": lambda e: int(e["points"]),
    "ShieldGeneratorHit": lambda e: 1,
}

# Events that are one ship's attack on another: `ship` fired at `target`; `hit` and `damage` say
# how it went. A torpedo (module weapons) counts as its launcher's attack when it strikes or
# misses; one shot down or lost never reached its target.
ATTACKS = {"AttackResolved", "TorpedoStruck", "TorpedoMissed"}

# Torpedo counts (M-WEAPONS-3, -4): the event type, and which ship's count it adds to (`ship`:
# the launcher for a launch, the ship whose point defence shot it down for a kill).
TORPEDOES = {"TorpedoLaunched": "torpedoes_launched", "TorpedoIntercepted": "torpedoes_shot_down"}

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


def _ship_line(state: State, ship_id: str) -> dict[str, Any]:
    ship = state["ships"].get(ship_id, {})
    return {
        "id": ship_id,
        "name": ship.get("name", ship_id),
        "side": ship.get("side"),
        "damage_dealt": 0,
        "damage_taken": 0,
        "repaired": 0,
        "attacks": 0,
        "hits": 0,
        "torpedoes_launched": 0,
        "torpedoes_shot_down": 0,
        "destroyed": False,
    }


def _new_combat(state: State, number: int) -> dict[str, Any]:
    return {
        "combat": number,
        "ended": False,
        "turns": 0,
        "ships": {sid: _ship_line(state, sid) for sid in sorted(state["ships"])},
        "injuries": [],
        "biggest_hit": None,
        "log": [],
    }


def _count(combat: dict[str, Any], state: State, event: Event) -> None:
    kind = event["type"]
    ships = combat["ships"]

    def line(ship_id: str) -> dict[str, Any]:
        found: dict[str, Any] = ships.setdefault(ship_id, _ship_line(state, ship_id))
        return found

    if kind == "TurnResolved":
        combat["turns"] += 1
    elif kind in DAMAGE_TAKEN:
        line(event["ship"])["damage_taken"] += DAMAGE_TAKEN[kind](event)
    elif kind == "RepairResolved":
        line(event["ship"])["repaired"] += int(event["restored"])
    elif kind == "ShipDestroyed":
        line(event["ship"])["destroyed"] = True
    elif kind in TORPEDOES:
        line(event["ship"])[TORPEDOES[kind]] += 1
    elif kind in ATTACKS:
        attacker = line(event["ship"])
        attacker["attacks"] += 1
        if event.get("hit"):
            attacker["hits"] += 1
            attacker["damage_dealt"] += int(event.get("damage") or 0)
            best = combat["biggest_hit"]
            if best is None or int(event["damage"]) > best["damage"]:
                combat["biggest_hit"] = _hit(state, event)
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


def _hit(state: State, event: Event) -> dict[str, Any]:
    """The biggest single hit, with its dice (G-END-2)."""
    name = _ship_line(state, event["ship"])["name"]
    target = _ship_line(state, event["target"])["name"]
    return {
        "turn": event["turn"],
        "ship": event["ship"],
        "ship_name": name,
        "target": event["target"],
        "target_name": target,
        "damage": int(event["damage"]),
        "roll": event.get("roll"),
        "score": event.get("score"),
        "needed": event.get("needed"),
        "breakdown": event.get("breakdown"),
        "words": said(event)["words"],
    }


def build_report(state: State, events: Iterable[Event]) -> dict[str, Any]:
    """Every combat of the game, in order, from its events (stored or replayed)."""
    combats: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for event in effective_events(events):
        kind = event["type"]
        if kind == "CombatStarted":
            current = _new_combat(state, int(event["combat"]))
            combats.append(current)
            continue
        if current is None or current["ended"]:
            continue  # Downtime: before the first combat or between two
        _count(current, state, event)
        words = said(event).get("words")
        if words and event.get("log", True):  # only the public words: never a secret
            current["log"].append({"turn": event["turn"], "type": kind, "words": words})
        if kind == "CombatEnded":
            current["ended"] = True
    for combat in combats:
        combat["ships"] = sorted(combat["ships"].values(), key=lambda s: (str(s["side"]), s["id"]))
    return {
        "scenario": state["scenario"],
        "combats": combats,
        "ended": bool(combats) and combats[-1]["ended"] and state["phase"] == "downtime",
    }
