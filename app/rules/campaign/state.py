"""A campaign's state (G-CAMP-*): plain JSON-able data, like a game's, with its own dice.

A campaign keeps its player ships and its characters between games (the roster), the evenings
played, and the Downtime between them. Its dice are keyed like a game's (G-TURN-3, G-CAMP-8):
the generator's state lives in the campaign state, so replaying its commands gives the same rolls.
"""

from __future__ import annotations

from typing import Any

from ..core import rng
from ..core.crew import CHARACTERISTICS, status_of
from ..core.errors import refuse

SCHEMA = 1
State = dict[str, Any]
Character = dict[str, Any]
Ship = dict[str, Any]

# G-CAMP-2: how long one Downtime may last. Longer is refused, not shortened, so nothing runs that
# the GM did not mean (docs/rules.md).
DAYS_MAX = 60
# G-CAMP-2: what a day of Downtime mends on every ship that was not lost (docs/rules.md).
REPAIRS = {"hull_per_day": 1, "station_per_day": 1}
# What a character does on each day of Downtime (G-CAMP-4, G-CAMP-5).
CARE = ("rest", "active", "medical", "surgery")
NEEDS_DOCTOR = frozenset({"medical", "surgery"})
# G-CAMP-3: a characteristic's DM by its value, as (highest value, DM) steps.
DM_STEPS = ((0, -3), (2, -2), (5, -1), (8, 0), (11, 1), (14, 2))
DM_TOP = 3


def new_campaign(name: str, seed: int | rng.Seed) -> State:
    """An empty campaign: no ships or characters yet (the first evening's end brings them)."""
    return {
        "schema": SCHEMA,
        "name": name,
        "rng": rng.start(seed),
        "day": 0,
        "ships": {},
        "characters": {},
        "evenings": [],
        "evening": None,
        "downtime": None,
        "downtimes": 0,
        "undo": None,
        "settings": dict(REPAIRS),
    }


def dm(value: int) -> int:
    """G-CAMP-3: the DM a characteristic's current value gives."""
    for top, modifier in DM_STEPS:
        if value <= top:
            return modifier
    return DM_TOP


def get_character(state: State, character_id: Any) -> Character:
    found: Character | None = (
        state["characters"].get(character_id) if isinstance(character_id, str) else None
    )
    if found is None:
        raise refuse("NOT_IN_ROSTER", character=str(character_id)[:60])
    return found


def damaged(character: Character) -> list[str]:
    """The characteristics below their maximum, in the sheet's order."""
    return [c for c in CHARACTERISTICS if character[c]["value"] < character[c]["max"]]


def deficit(character: Character) -> int:
    return sum(character[c]["max"] - character[c]["value"] for c in CHARACTERISTICS)


def seriously_wounded(character: Character) -> bool:
    """G-CREW-2, G-CAMP-7: every characteristic damaged; one back at its maximum ends it."""
    return len(damaged(character)) == len(CHARACTERISTICS)


def restatus(character: Character) -> str:
    character["status"] = status_of(character)
    return str(character["status"])


def alive(character: Character) -> bool:
    return bool(character["status"] != "dead")


def able(character: Character) -> bool:
    """Whether a character can work as a doctor: awake and alive."""
    return character["status"] not in ("unconscious", "dead")


def live_ships(state: State) -> list[Ship]:
    """The roster's ships that can still sail, in roster order: a lost ship stays in the story."""
    return [ship for _, ship in sorted(state["ships"].items()) if not ship["destroyed"]]
