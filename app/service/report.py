"""The after-action report of a game (G-END-2): its stored events, read in order, and who may
read it."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import select

from app.db.models import Event
from app.db.session import autocommit
from app.rules.core.messages import message
from app.rules.core.report import build_report

from .commands import SessionFactory, State, Viewer, game_key, load_state
from .errors import ServiceError


def report_ready(state: dict[str, Any]) -> bool:
    """Players and the projector read the report once a combat has ended and the next has not
    begun; the GM reads it at any time."""
    return bool(state["phase"] == "downtime" and state["combat"] >= 1)


def fighting(state: dict[str, Any]) -> int:
    """The combat being fought after an earlier one ended (its report then waits), else 0."""
    return int(state["combat"]) if state["phase"] != "downtime" and state["combat"] > 1 else 0


def check_reader(ready: bool, viewer: Viewer, combat: int = 0) -> None:
    """Whether `viewer` may read the report; if not, the real reason: no combat has ended yet,
    or the next one (`combat`) is being fought."""
    if viewer != "gm" and not ready:
        if combat:
            raise ServiceError("REPORT_NOT_READY", message("report_during_combat", n=combat), 403)
        raise ServiceError("REPORT_NOT_READY", message("report_not_ready"), 403)


async def report_sources(
    session_factory: SessionFactory, game_id: uuid.UUID | str
) -> tuple[int, State, list[dict[str, Any]]]:
    """What the report is built from (`build_report`): the game's version, its state and every
    event up to that version."""
    key = game_key(game_id)
    version, state = await load_state(session_factory, key)
    async with autocommit(session_factory) as session:
        rows = await session.scalars(
            select(Event.data)
            .where(Event.game_id == key, Event.version <= version)  # the state's own events
            .order_by(Event.version, Event.seq)
        )
        events = list(rows)
    return version, state, events


async def game_report(
    session_factory: SessionFactory, game_id: uuid.UUID | str, viewer: Viewer
) -> dict[str, Any]:
    _, state, events = await report_sources(session_factory, game_id)
    check_reader(report_ready(state), viewer, fighting(state))
    return build_report(state, events)
