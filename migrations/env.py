"""Alembic environment: runs migrations over an async engine.

The URL comes from the caller (app.db.migrate puts it in config.attributes["url"]) or, when Alembic
is run by hand, from the app's settings, which may start the embedded server.
"""

import asyncio
from logging.config import fileConfig

from alembic import context
from sqlalchemy import pool, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from app.db.models import Base

config = context.config
# Only the command line configures logging; code that calls us keeps its own logging setup.
if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = Base.metadata


def _url() -> str:
    url = config.attributes.get("url")
    if url:
        return str(url)
    from app.db.session import database_url

    return database_url()


# Any constant: serialises processes that migrate the same database at once (several servers
# starting together); the second one then finds the schema at head and does nothing.
MIGRATION_LOCK = 0x42C0DE


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata)
    with context.begin_transaction():
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        context.run_migrations()


async def _run_async() -> None:
    # NullPool: a migration run is one connection, and nothing must stay open afterwards (tests
    # clone the migrated database as a template, which needs it free of connections).
    engine = create_async_engine(_url(), poolclass=pool.NullPool)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(_run)
    finally:
        await engine.dispose()


if context.is_offline_mode():
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    asyncio.run(_run_async())
