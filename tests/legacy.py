"""Games from before the dice generator was keyed (G-TURN-3), as an older server exported them:
format 1, the seed a number, the state's generator splitmix64 started from that number."""

from __future__ import annotations

import secrets
import uuid
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.backup import FORMAT, import_game
from app.content import load_catalogue
from app.rules import new_game, rng
from app.service.games import JOIN_ALPHABET, token_hash


def old_export(scenario: str = "skirmish", seed: int = 12345) -> dict[str, Any]:
    """A fresh game as a server before the change wrote it with `bridgecrew export`."""
    catalogue = load_catalogue()
    state = new_game(catalogue.scenarios[scenario], catalogue, seed=rng.legacy(seed))
    made = "2026-11-01T12:00:00+00:00"
    return {
        "format": FORMAT,
        "format_version": 1,
        "game": {
            "id": str(uuid.uuid4()),
            "join_code": "".join(secrets.choice(JOIN_ALPHABET) for _ in range(6)),
            "scenario": scenario,
            "seed": seed,
            "version": 0,
            "state": state,
            "gm_token_hash": token_hash("an old GM token"),
            "created_at": made,
            "updated_at": made,
            "deadline_at": None,
            "deadline_kind": None,
            "deadline_version": None,
        },
        "events": [],
        "seats": [],
        "applied_commands": [],
    }


async def legacy_game(
    factory: async_sessionmaker[AsyncSession], scenario: str = "skirmish", seed: int = 12345
) -> uuid.UUID:
    """Such a game, brought onto this server the way a GM would: by importing its export."""
    game_id, _ = await import_game(factory, old_export(scenario, seed))
    return uuid.UUID(game_id)
