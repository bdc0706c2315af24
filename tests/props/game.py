"""Whole games for the props tests, played through the service as the server plays them: a bot
table (app.rules.bot) gives every command, seats included, until one ship is destroyed."""

from __future__ import annotations

import random
import uuid
from typing import Any

from sqlalchemy import select

from app.db.models import Event
from app.rules.bot import table_command
from app.service import create_seat, load_state, run_command
from app.service.commands import SessionFactory, command_fields

CREW = {"weapons": "amara-lind", "engineering": "harlan-voss", "pilot": "ilse-marrow"}


async def seat_crew(factory: SessionFactory, game_id: uuid.UUID) -> None:
    """Kestrel's stations manned, so they hold hands and give secret orders."""
    for station, character in CREW.items():
        await create_seat(factory, game_id, "kestrel", station, station.title(), character)


async def play(factory: SessionFactory, game_id: uuid.UUID, seed: int, steps: int = 400) -> int:
    """Bot commands until a ship is destroyed and the combat ended; answers the steps taken."""
    rng = random.Random(seed)
    for step in range(steps):
        _, state = await load_state(factory, game_id)
        if state["combat"] and state["phase"] == "downtime":
            return step
        command = table_command(state, rng, step)
        await run_command(
            factory, game_id, command_fields(command), command.actor, command_id=f"bot-{step}"
        )
    raise AssertionError(f"no ship destroyed within {steps} commands")


async def stored_events(factory: SessionFactory, game_id: uuid.UUID) -> list[dict[str, Any]]:
    """Every event the game stored, secrets included, in the order they happened."""
    async with factory() as session:
        rows = await session.scalars(
            select(Event).where(Event.game_id == game_id).order_by(Event.version, Event.seq)
        )
        return [{"version": row.version, **row.data} for row in rows]
