"""The working context of one campaign command: the state being changed, its dice, the events."""

from __future__ import annotations

from typing import Any

from ..core.messages import Message
from ..core.rng import Dice
from .state import State


class CampaignContext:
    def __init__(self, state: State, now: float) -> None:
        self.state = state
        self.now = now
        self.dice = Dice(state["rng"])
        self.events: list[dict[str, Any]] = []
        self.day = 0  # the day of the Downtime being rolled (1 is its first), 0 outside one

    def emit(self, type_: str, words: Message, **data: Any) -> dict[str, Any]:
        """Record a past-tense event with its sentence for people, and where in the campaign it
        happened: the campaign's day count, and the day of the Downtime being rolled."""
        event: dict[str, Any] = {
            "type": type_,
            "day": self.state["day"],
            "downtime_day": self.day,
            "words": words,
            **data,
        }
        self.events.append(event)
        return event
