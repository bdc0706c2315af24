"""Pooled connections: those the database has closed are replaced before anyone uses them, and
spare ones are closed cleanly."""

import asyncio
import gc
import logging

import pytest
from sqlalchemy import text

from app.db.session import create_engine, create_session_factory
from app.rules import Actor
from app.service import create_game, run_command

GM = Actor.gm()


async def test_a_connection_the_server_closed_is_replaced_on_checkout(db_url: str) -> None:
    """What a restart of the embedded server does to a long-running process: every idle pooled
    connection is gone. The next request must not fail because of it."""
    engine = create_engine(db_url, pool_size=1, max_overflow=0)
    try:
        async with engine.connect() as connection:
            first = await connection.scalar(text("SELECT pg_backend_pid()"))
        # Another session ends that backend, as a server shutting down would.
        admin = create_engine(db_url, poolclass=None)
        async with admin.connect() as other:
            ended = await other.scalar(text("SELECT pg_terminate_backend(:pid)"), {"pid": first})
        await admin.dispose()
        assert ended
        await asyncio.sleep(0.2)  # the hang-up reaches the idle connection
        async with engine.connect() as connection:
            second = await connection.scalar(text("SELECT pg_backend_pid()"))
        assert second != first
    finally:
        await engine.dispose()


async def test_a_burst_of_commands_closes_its_spare_connections_cleanly(
    db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """More commands at once than the pool keeps: the overflow connections are closed as they
    come back, inside SQLAlchemy's greenlet, not left to the garbage collector."""
    engine = create_engine(db_url, pool_size=2, max_overflow=8)
    sessions = create_session_factory(engine)
    try:
        games = [(await create_game(sessions, "skirmish", seed=n))[0] for n in range(6)]

        async def message(n: int) -> int:
            command = {"type": "SendMessage", "text": f"burst {n}"}
            game = games[n % len(games)]
            return (await run_command(sessions, game, command, GM, command_id=f"b{n}")).version

        with caplog.at_level(logging.DEBUG):
            for _ in range(3):
                versions = await asyncio.gather(*(message(n) for n in range(60)))
                assert len(versions) == 60
            gc.collect()
            await asyncio.sleep(0.1)
        logged = "\n".join(record.getMessage() for record in caplog.records)
        assert "MissingGreenlet" not in logged and "Exception closing" not in logged
        assert not any(record.exc_info for record in caplog.records)
    finally:
        await engine.dispose()
