"""What props hear: the MQTT topic and JSON payload of each public event they may react to, and
the topic a prop fires a cue on. Pure: events in (as the projector may see them), messages out.

Each payload is built field by field from a public event, never copied whole: a field the engine
adds to an event later reaches props only once it is named here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import quote, unquote

ROOT = "bridgecrew"
# What the bridge subscribes to: shared by every server process (MQTT's `$share`, which
# Mosquitto has for every protocol version), so a prop's signal reaches one process, not each.
INBOUND_CUES = f"$share/{ROOT}/{ROOT}/+/in/cue/+"

Event = dict[str, Any]
Payload = dict[str, Any]


@dataclasses.dataclass(frozen=True)
class PropMessage:
    topic: str
    payload: Payload


def level(name: str) -> str:
    """One topic level from a join code or an id: `/`, `+` and `#` would change the topic's
    meaning, so they (and anything not plain ASCII) are percent-encoded."""
    return quote(name, safe="-_.~") or "_"


def game_topic(join_code: str, *parts: str) -> str:
    return "/".join((ROOT, level(join_code), *parts))


def ship_topic(join_code: str, ship: str, what: str) -> str:
    return game_topic(join_code, "ship", level(ship), what)


def _hull_hit(e: Event) -> Payload:
    return {"ship": e["ship"], "track": "hull", "points": 1, "left": e["hull"], "red": e["red"]}


def _shields_hit(e: Event) -> Payload:
    return {"ship": e["ship"], "track": "shields", "points": e["points"], "left": e["shields"]}


def _shields_down(cause: str) -> Callable[[Event], Payload]:
    return lambda e: {"ship": e["ship"], "cause": cause}


# Event type -> (the ship topic's last level, its payload). Ship events go to .../ship/<id>/...
SHIP_EVENTS: dict[str, tuple[str, Callable[[Event], Payload]]] = {
    "HullHit": ("hit", _hull_hit),
    "ShieldsHit": ("hit", _shields_hit),
    "ShieldsFailed": ("shields-down", _shields_down("failed")),
    "ShieldsLowered": ("shields-down", _shields_down("lowered")),
    "StationDown": ("station-down", lambda e: {"ship": e["ship"], "station": e["station"]}),
    "ShipDestroyed": ("destroyed", lambda e: {"ship": e["ship"]}),
}

# Event type -> its game topic's levels, and its payload.
GAME_EVENTS: dict[str, tuple[Callable[[Event], tuple[str, ...]], Callable[[Event], Payload]]] = {
    "TurnStarted": (
        lambda e: ("turn",),
        lambda e: {"seconds": e["seconds"], "deadline": e["deadline"]},
    ),
    "RedAlertSet": (lambda e: ("red-alert",), lambda e: {"on": e["on"]}),
    "CueFired": (lambda e: ("cue", level(e["cue"])), lambda e: {"cue": e["cue"], "by": e["by"]}),
}


def event_messages(join_code: str, version: int, events: Iterable[Event]) -> list[PropMessage]:
    """The messages for one committed version's public events, in the order they happened. Every
    payload carries the game's version and turn, so a prop can tell old news from new."""
    messages = []
    for event in events:
        kind = event["type"]
        common = {"version": version, "turn": event["turn"]}
        if kind in SHIP_EVENTS:
            what, payload = SHIP_EVENTS[kind]
            topic = ship_topic(join_code, event["ship"], what)
            messages.append(PropMessage(topic, {**common, **payload(event)}))
        elif kind in GAME_EVENTS:
            levels, payload = GAME_EVENTS[kind]
            topic = game_topic(join_code, *levels(event))
            messages.append(PropMessage(topic, {**common, **payload(event)}))
    return messages


def phase_message(join_code: str, version: int, turn: int, phase: str) -> PropMessage:
    payload = {"version": version, "turn": turn, "phase": phase}
    return PropMessage(game_topic(join_code, "phase"), payload)


def timer_message(join_code: str, kind: str, at: float, seconds_left: int) -> PropMessage:
    payload = {"kind": kind, "deadline": at, "seconds_left": seconds_left}
    return PropMessage(game_topic(join_code, "timer"), payload)


def inbound_cue(topic: str) -> tuple[str, str] | None:
    """(join code, cue id) from `bridgecrew/<join code>/in/cue/<cue id>`; None for any other."""
    parts = topic.split("/")
    if len(parts) != 5 or parts[0] != ROOT or parts[2:4] != ["in", "cue"]:
        return None
    code, cue = unquote(parts[1]), unquote(parts[4])
    return (code, cue) if code and cue else None
