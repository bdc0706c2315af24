"""The Alembic migrations build exactly the tables app.db.models describes, and undo cleanly."""

import asyncio
from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Connection, inspect, pool
from sqlalchemy.ext.asyncio import create_async_engine

from app.db.migrate import current_head, downgrade, upgrade
from app.db.models import Base

TABLES = {"games", "events", "seats", "applied_commands"}


async def _inspect(url: str, look: Any) -> Any:
    engine = create_async_engine(url, poolclass=pool.NullPool)
    try:
        async with engine.connect() as conn:
            return await conn.run_sync(look)
    finally:
        await engine.dispose()


def _diff(conn: Connection) -> list[Any]:
    context = MigrationContext.configure(conn, opts={"compare_server_default": True})
    return list(compare_metadata(context, Base.metadata))


def _tables(conn: Connection) -> set[str]:
    return set(inspect(conn).get_table_names())


def _revision(conn: Connection) -> str | None:
    return MigrationContext.configure(conn).get_current_revision()


async def test_models_and_migrations_agree(db_url: str) -> None:
    # Any difference means a model changed without a migration (or the reverse).
    assert await _inspect(db_url, _diff) == []


async def test_migrated_database_is_at_head_with_the_game_tables(db_url: str) -> None:
    assert await _inspect(db_url, _revision) == current_head()
    assert await _inspect(db_url, _tables) == TABLES | {"alembic_version"}


async def test_upgrade_downgrade_upgrade_round_trip(empty_db_url: str) -> None:
    # upgrade/downgrade are sync and run asyncio.run inside; called here, within a running loop,
    # they move to a worker thread on their own.
    await asyncio.to_thread(upgrade, empty_db_url)
    assert await _inspect(empty_db_url, _tables) >= TABLES

    await asyncio.to_thread(downgrade, empty_db_url, "base")
    assert await _inspect(empty_db_url, _tables) == {"alembic_version"}

    upgrade(empty_db_url)  # from inside the running loop: must not raise
    assert await _inspect(empty_db_url, _diff) == []
    assert await _inspect(empty_db_url, _revision) == current_head()
