"""The only ways a campaign leaves the engine: its view (everything but the dice's key and the
undo's copy), and its story, read from its events as a game's report is read from its own."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..core.crew import CHARACTERISTICS
from ..core.messages import said
from .state import DAYS_MAX, State, dm

View = dict[str, Any]
Event = dict[str, Any]


def campaign_view(state: State) -> View:
    """What every screen of a campaign may show: no secret lives in a campaign but its dice."""
    downtime = state["downtime"]
    return {
        "name": state["name"],
        "day": state["day"],
        "days_max": DAYS_MAX,
        "settings": dict(state["settings"]),
        "evening": state["evening"],
        "evenings": [_evening(e) for e in state["evenings"]],
        "ships": [_ship(sid, ship) for sid, ship in sorted(state["ships"].items())],
        "characters": [_character(ch) for _, ch in sorted(state["characters"].items())],
        "downtime": None
        if downtime is None
        else {
            "number": downtime["number"],
            "days": downtime["days"],
            "day": downtime["day"],
            "plans": downtime["plans"],
            "waiting": {
                cid: {"points": w["points"], "care": w["care"], "how": w["how"]}
                for cid, w in sorted(downtime["waiting"].items())
            },
            "auto": list(downtime["auto"]),
        },
        "can_undo": state["undo"] is not None,
        "last_downtime": None if state["undo"] is None else state["undo"]["number"],
    }


def _evening(evening: dict[str, Any]) -> View:
    return {k: v for k, v in evening.items() if k != "ships"} | {"slots": evening["ships"]}


def _ship(ship_id: str, ship: dict[str, Any]) -> View:
    return {
        "id": ship_id,
        "name": ship["name"],
        "class": ship["class"],
        "class_name": ship["class_name"],
        "hull": {**ship["hull"], "left": ship["hull"]["boxes"] - ship["hull"]["damage"]},
        "shields": {
            **ship["shields"],
            "left": ship["shields"]["boxes"] - ship["shields"]["damage"],
        },
        "stations": [
            {"id": sid, **st, "left": st["boxes"] - st["damage"]}
            for sid, st in sorted(ship["stations"].items())
        ],
        "destroyed": ship["destroyed"],
        "evenings": list(ship["evenings"]),
    }


def _character(character: dict[str, Any]) -> View:
    return {
        "id": character["id"],
        "name": character["name"],
        "status": character["status"],
        "player": character.get("player"),
        "armour": character["armour"],
        "medicine": character["medicine"],
        "evenings": list(character.get("evenings", [])),
        "died": character.get("died"),
        **{c: dict(character[c]) for c in CHARACTERISTICS},
        "endurance_dm": dm(character["endurance"]["value"]),
    }


def effective_events(events: Iterable[Event]) -> list[Event]:
    """The events that still stand: an undone Downtime's are dropped, as the undo dropped their
    effects."""
    kept: list[Event] = []
    for event in events:
        if event["type"] == "DowntimeUndone":
            while kept and not (
                kept[-1]["type"] == "DowntimeStarted" and kept[-1]["number"] == event["number"]
            ):
                kept.pop()
            if kept:
                kept.pop()
        kept.append(event)
    return kept


def campaign_story(state: State, events: Iterable[Event]) -> View:
    """Each Downtime day by day with every roll's words, and each character's injuries (from the
    evenings), recoveries (from the Downtimes) and deeds."""
    downtimes: list[View] = []
    recoveries: dict[str, list[View]] = {}
    rolling = False
    for event in effective_events(events):
        kind = event["type"]
        if kind == "DowntimeStarted":
            downtimes.append({"number": event["number"], "days": event["days"], "entries": []})
            rolling = True
        if not rolling:
            continue
        day = event.get("downtime_day", 0)
        downtimes[-1]["entries"].append({"day": day, "type": kind, "words": said(event)["words"]})
        if kind in ("CharacteristicsRestored", "CharacteristicsLost"):
            recoveries.setdefault(event["character"], []).append(
                {"downtime": downtimes[-1]["number"], "day": day, "words": event["words"]}
            )
        rolling = kind != "DowntimeEnded"
    characters = {}
    for cid in sorted(state["characters"]):
        characters[cid] = {
            "injuries": [
                {"evening": e["number"], **injury}
                for e in state["evenings"]
                for injury in e["story"].get("injuries", {}).get(cid, [])
            ],
            "deeds": [
                {"evening": e["number"], "words": deed}
                for e in state["evenings"]
                for deed in e["story"].get("deeds", {}).get(cid, [])
            ],
            "recoveries": recoveries.get(cid, []),
        }
    return {"downtimes": downtimes, "characters": characters}
