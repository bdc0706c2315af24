"""What props hear: the MQTT topic and JSON payload of each public event they may react to, the
sounds the projector plays, and the topic a prop presses a cue on. Pure: events in (as the
projector may see them), messages out.

Each payload is built field by field from a public event, never copied whole: a field the engine
adds to an event later reaches props only once it is named here. Topics are named by the game's
props code (games.props_code), which only the GM sees, never by the join code the room reads.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Collection, Iterable
from typing import Any
from urllib.parse import quote, unquote

ROOT = "bridgecrew"
PROPS_CODE = re.compile(r"[0-9a-f]{32}")  # as the database draws it (app.db.models.Game)

Event = dict[str, Any]
Payload = dict[str, Any]


@dataclasses.dataclass(frozen=True)
class PropMessage:
    topic: str
    payload: Payload


@dataclasses.dataclass(frozen=True)
class Press:
    """A prop's signal: the cue `cue` of the game whose props code is `props_code`."""

    props_code: str
    cue: str


def level(name: str) -> str:
    """One topic level from an id: `/`, `+` and `#` would change the topic's meaning, so they (and
    anything not plain ASCII) are percent-encoded."""
    return quote(name, safe="-_.~") or "_"


def game_topic(props_code: str, *parts: str) -> str:
    return "/".join((ROOT, level(props_code), *parts))


def ship_topic(props_code: str, ship: str, what: str) -> str:
    return game_topic(props_code, "ship", level(ship), what)


def inbound_subscription(group: str) -> str:
    """What the server subscribes to: every game's cue presses, as a shared subscription (MQTT's
    `$share`, which Mosquitto has for every protocol version) in the server's own group, so a
    press reaches one server process, and none that is not the server's."""
    return f"$share/{group}/{ROOT}/+/in/cue/+"


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
    "BattleStarted": (
        lambda e: ("battle",),
        lambda e: {"scenario": e["scenario"]["id"], "name": e["scenario"]["name"]},
    ),
}

# Every topic the server publishes under a game's level: what a prop may read (app/props/broker.py
# writes the broker's ACL from it).
GAME_TOPICS = ("ship/#", "turn", "phase", "red-alert", "timer", "cue/+", "battle", "sound")

# Events that fill a box of a ship's track: the projector sounds a hit on that ship.
HITS = ("HullHit", "ShieldsHit", "StationDamaged", "ShieldGeneratorHit")


def sounds(events: Iterable[Event], players: Collection[str]) -> list[str]:
    """The sounds the projector plays for one commit's events (static/js/sound.js), in the order
    their causes came, each once: a ship destroyed sounds that, not its hits; a hit sounds for the
    side it struck (`players`: the ships of the players' side)."""
    events = list(events)
    destroyed = {e["ship"] for e in events if e["type"] == "ShipDestroyed"}
    played: list[str] = []
    for event in events:
        kind = event["type"]
        sound = None
        if kind in HITS and event["ship"] not in destroyed:
            sound = "hit-players" if event["ship"] in players else "hit-enemy"
        elif kind == "ShipDestroyed":
            sound = "destroyed"
        elif kind == "RedAlertSet" and event["on"]:
            sound = "red-alert"
        elif kind == "TurnStarted":
            sound = "turn-start"
        elif kind == "SoundPlayed":
            sound = event["sound"]
        if sound is not None and sound not in played:
            played.append(sound)
    return played


def event_messages(
    props_code: str, version: int, events: Iterable[Event], players: Collection[str] = ()
) -> list[PropMessage]:
    """The messages for one committed version's public events, in the order they happened, then
    the sounds they make the projector play. Every payload carries the game's version and turn, so
    a prop can tell old news from new."""
    events = list(events)
    messages = []
    for event in events:
        kind = event["type"]
        common = {"version": version, "turn": event["turn"]}
        if kind in SHIP_EVENTS:
            what, payload = SHIP_EVENTS[kind]
            topic = ship_topic(props_code, event["ship"], what)
            messages.append(PropMessage(topic, {**common, **payload(event)}))
        elif kind in GAME_EVENTS:
            levels, payload = GAME_EVENTS[kind]
            topic = game_topic(props_code, *levels(event))
            messages.append(PropMessage(topic, {**common, **payload(event)}))
    if events:
        turn = events[-1]["turn"]
        for sound in sounds(events, players):
            heard = {"version": version, "turn": turn, "sound": sound}
            messages.append(PropMessage(game_topic(props_code, "sound"), heard))
    return messages


def phase_message(props_code: str, version: int, turn: int, phase: str) -> PropMessage:
    payload = {"version": version, "turn": turn, "phase": phase}
    return PropMessage(game_topic(props_code, "phase"), payload)


def timer_message(props_code: str, kind: str, at: float, seconds_left: int) -> PropMessage:
    payload = {"kind": kind, "deadline": at, "seconds_left": seconds_left}
    return PropMessage(game_topic(props_code, "timer"), payload)


def inbound_cue(topic: str) -> Press | None:
    """The press on `bridgecrew/<props code>/in/cue/<cue id>`; None for any other topic, and for
    a level that cannot be a props code (nothing is looked up for it)."""
    parts = topic.split("/")
    if len(parts) != 5 or parts[0] != ROOT or parts[2:4] != ["in", "cue"]:
        return None
    code, cue = parts[1], unquote(parts[4])
    return Press(code, cue) if PROPS_CODE.fullmatch(code) and cue else None
