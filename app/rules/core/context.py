"""The working context of one command: the state being changed, its dice and the events so far."""

from __future__ import annotations

from typing import Any

from .messages import Message
from .rng import Dice
from .state import State, seats_at

LOG_LENGTH = 60


class Context:
    def __init__(self, state: State, now: float) -> None:
        self.state = state
        self.now = now
        self.dice = Dice(state["rng"])
        self.events: list[dict[str, Any]] = []

    def emit(
        self,
        type_: str,
        words: Message | None,
        *,
        log: bool = True,
        secret_for: str | None = None,
        secret: dict[str, Any] | None = None,
        **data: Any,
    ) -> dict[str, Any]:
        """Record a past-tense event, with its sentence for people (`words`, a message; None for
        an event that says nothing by itself). `secret` fields are shown only to the GM and the
        seats that hold `secret_for` (a station key or a ship id) now, as the event happens."""
        event: dict[str, Any] = {"type": type_, "turn": self.state["turn"], **data}
        if words is not None:
            event["words"] = words
        if not log:
            event["log"] = False  # so the after-action report's log leaves it out too
        if secret is not None:
            event["secret_for"] = secret_for
            event["secret_seats"] = seats_at(self.state, secret_for) if secret_for else []
            event["secret"] = secret
        self.events.append(event)
        # The log and the reveal are replaced, never changed in place, so states can share them.
        revealed = self.state["revealed"]
        if self.state["pending"] is not None and revealed is not None and secret is None:
            self.state["revealed"] = {**revealed, "results": [*revealed["results"], event]}
        if log and words is not None:
            logged = self.state["log"]
            # Numbered, so screens take the new entries alone (app/rules/core/views.py, _log).
            n = logged[-1]["n"] + 1 if logged and "n" in logged[-1] else len(logged)
            entry = {"turn": self.state["turn"], "type": type_, "words": words, "n": n}
            self.state["log"] = [*logged[-(LOG_LENGTH - 1) :], entry]
        return event

    def next_id(self) -> int:
        value = int(self.state["next_id"])
        self.state["next_id"] = value + 1
        return value
