"""Engines and session factories, and where the database is (DATABASE_URL or the embedded one)."""

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import orjson
from sqlalchemy import event, make_url
from sqlalchemy.engine.interfaces import DBAPIConnection, Dialect
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from app.settings import Settings, get_settings


def database_url(settings: Settings | None = None) -> str:
    """The async URL to use: DATABASE_URL if set, else the embedded server (started if needed)."""
    settings = settings or get_settings()
    if settings.database_url:
        return settings.database_url
    from app.db.embedded import embedded_database_url  # pgserver only when it is needed

    return embedded_database_url(settings.data_dir)


def plain_dsn(url: str) -> str:
    """The database URL as asyncpg.connect takes it (no SQLAlchemy driver name): for connections
    outside the pool, such as the LISTEN connection."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def _to_json(value: Any) -> str:
    # Keys sorted: the `json` columns (a game's state and catalogue) keep them as written, and
    # read back so they are the canonical state the engine is given (app/service/commands.py).
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_SORT_KEYS).decode()


POOL_SIZE = 20  # two processes: 60 at most with the overflow, under PostgreSQL's 100


def create_engine(url: str, **kwargs: object) -> AsyncEngine:
    # orjson for the JSON columns: a game's state is large, and the json module far slower at it.
    options: dict[str, object] = {
        "json_serializer": _to_json,
        "json_deserializer": orjson.loads,
        # Connections kept open between uses. SQLAlchemy's default, 5, is below what a busy
        # server has out at once (every command waiting on the event loop holds one), and each
        # overflow connection opened and closed again is a new PostgreSQL backend.
        "pool_size": POOL_SIZE,
        **kwargs,
    }
    engine = create_async_engine(url, **options)
    event.listen(engine.sync_engine, "do_connect", _connect)
    event.listen(engine.sync_engine.pool, "checkout", _closed_on_checkout)
    return engine


def _closed_on_checkout(dbapi_connection: Any, _record: object, _proxy: object) -> None:
    """A pooled connection the server has closed (the embedded server restarted under a
    long-running process) is replaced before anyone uses it. asyncpg sees the server hang up
    while the connection sits idle in the pool, so asking it costs nothing, where SQLAlchemy's
    pool_pre_ping costs a round trip on every checkout. A connection that dies between this
    check and its use fails that one request with 503 (phones retry it) and the pool starts
    afresh."""
    driver = getattr(dbapi_connection, "driver_connection", None)
    if driver is not None and driver.is_closed():
        raise DisconnectionError("the database closed this connection")


def _connect(
    dialect: Dialect, _record: object, cargs: list[Any], cparams: dict[str, Any]
) -> DBAPIConnection:
    """Connect as SQLAlchemy would, except that a server that cannot be reached is a DBAPI
    OperationalError, as a refused login is. asyncpg lets the bare OSError through (the socket
    file of a stopped embedded server is gone: FileNotFoundError; or a timeout), SQLAlchemy
    passes that on unwrapped, and the web layer would answer a crash (500) instead of "the
    database is not answering" (503, which phones retry)."""
    try:
        return dialect.connect(*cargs, **cparams)
    except OSError as error:
        dbapi = dialect.loaded_dbapi
        raise dbapi.OperationalError(f"cannot reach the database: {error}", error) from error


@contextlib.asynccontextmanager
async def autocommit(factory: async_sessionmaker[AsyncSession]) -> AsyncIterator[AsyncSession]:
    """A session whose statements each commit on their own, with no transaction around them.

    For reads that are one statement, or several that need not agree with each other; and for a
    write that is one statement (PostgreSQL applies a statement whole or not at all). Each costs
    one round trip, where a transaction adds two (BEGIN before the first statement, COMMIT or
    ROLLBACK after the last), on reads that phones and pushes make all the time."""
    async with factory() as session:
        await session.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
        yield session


def create_session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    # expire_on_commit=False: objects stay readable after commit, when the service pushes updates.
    return async_sessionmaker(engine, expire_on_commit=False)
