"""Whether a cue's trigger is met by one command: moments (a turn begins, a phase begins, a
torpedo strikes) are read from the command's events; conditions (a ship's Hull at or below a
value, destroyed, fled or surrendered, in a zone) from the state, and fire as they come to hold."""

from __future__ import annotations

from typing import Any

from ...core.state import State, health

Cue = dict[str, Any]
Event = dict[str, Any]

CONDITIONS = ("hull", "destroyed", "fled", "surrendered", "enters")
MANUAL = ("gm", "prop")  # fired only by FireCue: the GM's button, a prop's signal


def condition_holds(state: State, trigger: dict[str, Any]) -> bool:
    kind = trigger["kind"]
    if kind == "enters":
        return any(
            ship.get("zone") == trigger["zone"] and not ship["destroyed"]
            for ship in state["ships"].values()
            if trigger["ship"] in (None, ship["id"])
        )
    ship = state["ships"].get(trigger["ship"])
    if ship is None:
        return False
    if kind == "hull":
        return health(ship["hull"]) <= int(trigger["at_most"])
    if kind == "destroyed":
        return bool(ship["destroyed"])
    return bool(ship.get("out") == kind)  # fled, surrendered (G-END-1)


def moment_came(trigger: dict[str, Any], events: list[Event], phase_was: str, phase: str) -> bool:
    kind = trigger["kind"]
    if kind in ("turn", "every"):
        turns = trigger["turns"]
        return any(
            e["type"] == "TurnStarted"
            and (e["turn"] == turns if kind == "turn" else e["turn"] % turns == 0)
            for e in events
        )
    if kind == "phase":  # the Orders an undo returns to are not a phase beginning
        undone = any(e["type"] == "ResolutionUndone" for e in events)
        return phase != phase_was and phase == trigger["phase"] and not undone
    if kind == "torpedo":
        return any(
            e["type"] == "TorpedoStruck" and trigger["ship"] in (None, e["target"]) for e in events
        )
    return False
