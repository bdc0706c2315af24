"""Deadlines (turn timer, Engineering's allocation window) as data the server's sweeper reads."""

from __future__ import annotations

from typing import Any

from .errors import refuse

State = dict[str, Any]


def set_deadline(state: State, kind: str, at: float) -> None:
    state["deadline"] = {"kind": kind, "at": round(at, 3)}
    state["paused"] = None


def clear_deadline(state: State) -> None:
    state["deadline"] = None
    state["paused"] = None


def pause(state: State, now: float) -> float:
    deadline = state["deadline"]
    if deadline is None:
        raise refuse("NO_TIMER")
    remaining: float = max(0.0, deadline["at"] - now)
    state["paused"] = {"kind": deadline["kind"], "remaining": round(remaining, 3)}
    state["deadline"] = None
    return remaining


def resume(state: State, now: float) -> float:
    paused = state["paused"]
    if paused is None:
        raise refuse("NOT_PAUSED")
    set_deadline(state, paused["kind"], now + paused["remaining"])
    return float(paused["remaining"])


def extend(state: State, now: float, seconds: int) -> None:
    if not 1 <= seconds <= 3600:
        raise refuse("BAD_VALUE", "bad_extension", most=3600)
    if state["paused"] is not None:
        state["paused"]["remaining"] += seconds
    elif state["deadline"] is not None:
        state["deadline"]["at"] = round(max(state["deadline"]["at"], now) + seconds, 3)
    elif state["phase"] == "orders":
        set_deadline(state, "orders", now + seconds)
    else:
        raise refuse("NO_TIMER")


def deadlines(state: State) -> list[dict[str, Any]]:
    """What the server's sweeper must expire, and when (epoch seconds)."""
    return [dict(state["deadline"])] if state["deadline"] else []
