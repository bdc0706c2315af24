"""Module cues (M-CUES-5) through the service against a real PostgreSQL: cues fired by their
triggers, by the GM and undone with a resolution are rebuilt exactly by replay_state."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.models import Event, Game
from app.rules import Actor
from app.service import create_game, replay_state, run_command

Sessions = async_sessionmaker[AsyncSession]
GM = Actor.gm()


async def command(sessions: Sessions, game_id: uuid.UUID, **fields: Any) -> None:
    await run_command(sessions, game_id, fields, GM, command_id=uuid.uuid4().hex)


# rule: M-CUES-5
async def test_m_cues_5_replay_rebuilds_a_game_whose_cues_fired_and_were_undone(
    session_factory: Sessions,
) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=5)
    await command(
        session_factory, game_id, type="SetSetting", name="close_when_all_ready", value=False
    )
    await command(session_factory, game_id, type="SkipCue", cue="terms")
    for _ in range(4):  # Rustjaw's friends arrive as turn 4 begins
        await command(session_factory, game_id, type="StartTurn", seconds=0)
        await command(session_factory, game_id, type="CloseOrders")
    await command(session_factory, game_id, type="FireCue", cue="gate-flare")
    await command(session_factory, game_id, type="UndoResolution")
    await command(session_factory, game_id, type="FireCue", cue="gate-flare")
    async with session_factory() as session:
        game = await session.get(Game, game_id)
        assert game is not None
        state = game.whole_state
        kinds = list(
            await session.scalars(
                select(Event.type).where(Event.game_id == game_id).order_by(Event.id)
            )
        )
    assert "scrap-hound" in state["ships"]
    assert kinds.count("CueFired") == 3 and "CueSkipped" in kinds
    assert [(c["id"], c["status"], c["fired"]) for c in state["cues"]] == [
        ("friends", "fired", 1),
        ("terms", "skipped", 0),
        ("gate-flare", "armed", 1),  # its firing after the reveal went with the undo
    ]
    assert await replay_state(session_factory, game_id) == state
