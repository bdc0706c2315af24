"""Pooled connections the database has closed are replaced before anyone uses them."""

import asyncio

from sqlalchemy import text

from app.db.session import create_engine


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
