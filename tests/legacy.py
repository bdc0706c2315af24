"""Games from before the dice generator was keyed (G-TURN-3): as an older server exported them
(format 1, the seed a number, the state's generator splitmix64 started from that number), and as
a server that kept them through the upgrade holds them."""

from __future__ import annotations

import secrets
import uuid
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.backup import FORMAT
from app.content import load_catalogue
from app.db.models import Game, stored_state
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
    """Such a game, as a server that kept it through the upgrade (migration 0003) holds it. An
    import no longer brings one in: its dice could be worked out."""
    game = old_export(scenario, seed)["game"]
    rest, cards = stored_state(game["state"])
    game_id = uuid.UUID(game["id"])
    async with factory() as session, session.begin():
        session.add(
            Game(
                id=game_id,
                join_code=game["join_code"],
                scenario=scenario,
                seed=rng.legacy(seed),
                state=rest,
                cards=cards,
                gm_token_hash=game["gm_token_hash"],
            )
        )
    return game_id
