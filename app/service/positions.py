"""M-SEATS-1 on the server: a player's change of position, with the seats table kept in step.

A seat row names the station its phone acts for (its orders are scoped to it), so when the engine
moves a crew member the row moves in the same transaction, and every process forgets the game's
tokens (as when seats end) so none acts for the old station from a remembered answer.
"""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import select

from app.db.models import Seat
from app.rules import Actor
from app.rules.core.messages import message

from .commands import CommandResult, SessionFactory, game_key, locked
from .errors import ServiceError
from .seats import follow_crew, realign


async def change_position(
    session_factory: SessionFactory,
    game_id: uuid.UUID | str,
    seat_id: uuid.UUID,
    station: str,
    command_id: str,
) -> CommandResult:
    """The seat's player moves to `station` of their ship (at once, or queued by the engine)."""
    key = game_key(game_id)
    async with locked(session_factory, key) as game:
        seat = await game.session.scalar(
            select(Seat).where(Seat.id == seat_id, Seat.game_id == key, Seat.revoked_at.is_(None))
        )
        if seat is None:
            raise ServiceError("NO_SUCH_SEAT", message("no_such_seat_or_freed"))
        result = await game.apply(
            {"type": "ChangePosition", "ship": seat.ship, "station": station},
            Actor.for_seat(str(seat.id)),
            command_id,
        )
        await realign(game)
    return result


async def run_command(
    session_factory: SessionFactory, game_id: uuid.UUID | str, *command: Any, **options: Any
) -> CommandResult:
    """`commands.run_command` (same arguments), with the seat rows kept where the engine has its
    crew: a queued move happens however its station frees (a fall, an undo, the GM), in any
    command, and the phone must act for the station it was moved to (M-SEATS-1). This is the
    one app.service exports."""
    key = game_key(game_id)
    async with locked(session_factory, key) as game:
        result = await game.apply(*command, **options)
        await follow_crew(game, result.events)
    return result
