"""The write path's transaction (app/service/commands.py, `locked`): whatever ends it early,
nothing of it is kept, and no pooled connection is left inside a transaction or holding a game's
lock."""

import asyncio
import uuid

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.rules import Actor
from app.service import ServiceError, create_game, load_state, run_command
from app.service.commands import locked

Sessions = async_sessionmaker[AsyncSession]
GM = Actor.gm()
MESSAGE = {"type": "SendMessage", "text": "Hail"}


async def _left_in_transaction(sessions: Sessions) -> int:
    async with sessions() as session:
        found = await session.scalar(
            text(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND state LIKE 'idle in transaction%'"
            )
        )
    return int(found or 0)


async def _version(sessions: Sessions, game_id: uuid.UUID) -> int:
    async with sessions() as session:
        found = await session.scalar(
            text("SELECT version FROM games WHERE id = :id"), {"id": game_id}
        )
    return int(found)


async def test_a_refused_command_ends_its_transaction(session_factory: Sessions) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1)
    with pytest.raises(ServiceError) as refused:
        await run_command(session_factory, game_id, {"type": "Nonsense"}, GM, command_id="x1")
    assert refused.value.code
    assert await _left_in_transaction(session_factory) == 0
    assert (await run_command(session_factory, game_id, MESSAGE, GM, command_id="x2")).version == 1


async def test_a_caller_failing_after_a_command_keeps_nothing_of_it(
    session_factory: Sessions,
) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1)
    with pytest.raises(LookupError):
        async with locked(session_factory, game_id) as game:
            await game.apply(MESSAGE, GM, "y1")
            raise LookupError("the caller's own rows failed")
    assert await _version(session_factory, game_id) == 0
    _, state = await load_state(session_factory, game_id)
    assert state["messages"] == []
    assert await _left_in_transaction(session_factory) == 0
    # The same id again is a new command, not an answer from the one that was undone.
    assert (await run_command(session_factory, game_id, MESSAGE, GM, command_id="y1")).version == 1


async def test_a_command_cancelled_while_it_holds_the_lock_lets_go_of_it(
    session_factory: Sessions,
) -> None:
    """A request cancelled mid-command (the phone hung up, the server stopping): its transaction
    is rolled back or its connection closed, so the game's row is free for the next command."""
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1)
    holding = asyncio.Event()
    release = asyncio.Event()

    async def hold_the_lock() -> None:
        async with locked(session_factory, game_id):
            holding.set()
            await release.wait()

    task = asyncio.create_task(hold_the_lock())
    await asyncio.wait_for(holding.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await _left_in_transaction(session_factory) == 0
    result = await asyncio.wait_for(
        run_command(session_factory, game_id, MESSAGE, GM, command_id="z1"), 5
    )
    assert result.version == 1
    assert await _left_in_transaction(session_factory) == 0
