"""One unit of work per command: the GM's tap for the NPCs is one command that replay_state
rebuilds."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.rules import Actor
from app.service import create_game, load_state, replay_state, run_command

Sessions = async_sessionmaker[AsyncSession]
GM = Actor.gm()


async def command(sessions: Sessions, game_id: uuid.UUID, command_id: str, **fields: Any) -> int:
    return (await run_command(sessions, game_id, fields, GM, command_id=command_id)).version


async def test_the_gm_s_npc_tap_is_one_command_that_replay_rebuilds(
    session_factory: Sessions,
) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=3)
    await command(session_factory, game_id, "a", type="SetModule", module="npc", on=False)
    await command(
        session_factory, game_id, "b", type="SetSetting", name="close_when_all_ready", value=False
    )
    started = await command(session_factory, game_id, "s", type="StartTurn", seconds=0)
    tapped = await command(
        session_factory, game_id, "c", type="GiveNpcOrders", pass_all=False, seed=77
    )
    assert tapped == started + 1
    version, state = await load_state(session_factory, game_id)
    assert version == tapped and any(key.startswith("rustjaw/") for key in state["orders"])
    assert await replay_state(session_factory, game_id) == state
