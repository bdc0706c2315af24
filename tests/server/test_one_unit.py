"""One unit of work per command: a locked game's state is always the one its version names, even
after a command the engine refused half-way or a retry answered from its first time; and the
GM's tap for the NPCs is one command that replay_state rebuilds."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.rules import Actor
from app.service import ServiceError, create_game, load_state, replay_state, run_command
from app.service.commands import locked

Sessions = async_sessionmaker[AsyncSession]
GM = Actor.gm()


async def command(sessions: Sessions, game_id: uuid.UUID, command_id: str, **fields: Any) -> int:
    return (await run_command(sessions, game_id, fields, GM, command_id=command_id)).version


async def test_a_command_refused_half_way_leaves_the_locked_game_as_it_stands(
    session_factory: Sessions,
) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=3)
    version, stored = await load_state(session_factory, game_id)
    async with locked(session_factory, game_id) as game:
        # StartTurn changes the turn and the phase before it finds the timer too long.
        with pytest.raises(ServiceError) as refused:
            await game.apply({"type": "StartTurn", "seconds": 5000}, GM, "too-long")
        assert refused.value.code == "BAD_VALUE"
        assert (game.version, game.state) == (version, stored)


async def test_a_retry_answered_from_its_first_time_leaves_no_state_it_did_not_write(
    session_factory: Sessions,
) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=3)
    await command(session_factory, game_id, "a", type="SetModule", module="npc", on=False)
    first = await command(session_factory, game_id, "turn", type="StartTurn", seconds=0)
    await command(session_factory, game_id, "close", type="CloseOrders")
    version, stored = await load_state(session_factory, game_id)
    assert stored["phase"] == "turn_end"  # where StartTurn is allowed again
    async with locked(session_factory, game_id) as game:
        # The engine starts turn 2 for the retry, then finds the id used: the first answer.
        answer = await game.apply({"type": "StartTurn", "seconds": 0}, GM, "turn")
        assert answer.version == first
        assert (game.version, game.state) == (version, stored)
    assert await load_state(session_factory, game_id) == (version, stored)


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
