"""Fixtures for tests against a real PostgreSQL (never SQLite, never mocks), and the app on it.

TEST_DATABASE_URL, when set, names a server to use (any database on it; the role must be allowed to
create databases). Otherwise one embedded server runs for the whole session in a temporary dir.
Migrations run once into a template database; each test that asks for `db_url` gets a fresh copy.

The session fixtures are synchronous on purpose: pytest-asyncio gives every test its own event
loop, and nothing async may outlive one loop.

Every test under tests/browser is marked `browser`, every one under tests/faults `faults`, and
every one that uses a fixture of PROCESS_FIXTURES `processes`; `make test-fast` deselects those
(tests/processes.py) and the `slow` ones.
"""

import asyncio
import os
import pathlib
import shutil
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import asyncpg  # type: ignore[import-untyped]
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import make_url, pool, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker, create_async_engine

from app.db.migrate import upgrade
from app.db.session import create_engine, create_session_factory, plain_dsn
from app.main import create_app
from app.service.commands import NOTIFY_CHANNEL
from app.settings import Settings, asyncpg_url
from tests import processes
from tests.processes import LiveServer
from tests.tables import Table

TESTS = pathlib.Path(__file__).resolve().parent
# The directories whose every test carries a marker, whatever its file says.
MARKED_DIRECTORIES = {TESTS / "browser": "browser", TESTS / "faults": "faults"}
# Fixtures that start a server process of their own (tests/props: a Mosquitto per test).
PROCESS_FIXTURES = frozenset({"broker"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for directory, marker in MARKED_DIRECTORIES.items():
            if item.path.is_relative_to(directory):
                item.add_marker(marker)
        if PROCESS_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker("processes")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before the test's fixtures: tell tests/processes.py what the test is marked."""
    processes.running_markers = frozenset(mark.name for mark in item.iter_markers())


def run_in_thread(fn: Callable[..., None], *args: Any) -> None:
    """Run blocking setup that uses asyncio.run in a worker thread, so the main thread's event loop
    state, which pytest-asyncio manages, is never touched."""
    with ThreadPoolExecutor(max_workers=1) as worker:
        worker.submit(fn, *args).result()


async def until(
    check: Callable[[], Awaitable[bool]],
    within: float = 5.0,
    what: str = "the condition",
    every: float = 0.05,
) -> None:
    """Wait until `check()` comes true, asking every `every` seconds; fail after `within`."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if await check():
            return
        await asyncio.sleep(every)
    raise AssertionError(f"not within {within} s: {what}")


def with_database(url: str, database: str) -> str:
    return make_url(url).set(database=database).render_as_string(hide_password=False)


def admin_sql(server_url: str, *statements: str) -> None:
    """Run statements that cannot be in a transaction (CREATE/DROP DATABASE)."""

    async def go() -> None:
        engine = create_async_engine(
            server_url, isolation_level="AUTOCOMMIT", poolclass=pool.NullPool
        )
        try:
            async with engine.connect() as conn:
                for statement in statements:
                    await conn.execute(text(statement))
        finally:
            await engine.dispose()

    run_in_thread(asyncio.run, go())


@pytest.fixture(scope="session")
def pg_server_url() -> Iterator[str]:
    """Async URL of the server's maintenance database ("postgres" for the embedded server)."""
    given = os.environ.get("TEST_DATABASE_URL")
    if given:
        yield asyncpg_url(given)
        return
    from app.db.embedded import start_embedded

    # Not under pytest's tmp folder: another pytest run on the machine resets that folder's
    # permissions, and postgres (running as its own user) would then lose its data directory.
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="bridgecrew-test-pg-"))
    scratch.chmod(0o755)
    server = start_embedded(scratch / "pgdata", database="postgres")
    url = server.url("postgres")
    # Test data is thrown away: durability only costs time on a 2-core machine.
    admin_sql(
        url,
        "ALTER SYSTEM SET fsync = off",
        "ALTER SYSTEM SET synchronous_commit = off",
        "ALTER SYSTEM SET full_page_writes = off",
        "SELECT pg_reload_conf()",
    )
    try:
        yield url
    finally:
        server.stop()
        shutil.rmtree(scratch, ignore_errors=True)


@pytest.fixture(scope="session")
def template_db_url(pg_server_url: str) -> Iterator[str]:
    """A database migrated to head, never used directly: tests get copies of it."""
    name = f"bc_template_{uuid.uuid4().hex[:12]}"
    admin_sql(pg_server_url, f'CREATE DATABASE "{name}"')
    url = with_database(pg_server_url, name)
    try:
        run_in_thread(upgrade, url)
        yield url
    finally:
        admin_sql(pg_server_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def db_url(pg_server_url: str, template_db_url: str) -> Iterator[str]:
    """Async URL of a fresh, migrated database for this test alone; dropped afterwards."""
    template = make_url(template_db_url).database
    name = f"bc_test_{uuid.uuid4().hex[:12]}"
    admin_sql(pg_server_url, f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    try:
        yield with_database(pg_server_url, name)
    finally:
        admin_sql(pg_server_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def empty_db_url(pg_server_url: str) -> Iterator[str]:
    """Async URL of a fresh database with no tables (for migration tests)."""
    name = f"bc_empty_{uuid.uuid4().hex[:12]}"
    admin_sql(pg_server_url, f'CREATE DATABASE "{name}"')
    try:
        yield with_database(pg_server_url, name)
    finally:
        admin_sql(pg_server_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
async def session_factory(db_url: str) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    """Sessions on this test's database, bound to this test's event loop."""
    engine = create_engine(db_url)
    try:
        yield create_session_factory(engine)
    finally:
        await engine.dispose()


# --- The app on this test's database -------------------------------------------------------------


@pytest.fixture
def settings(db_url: str, tmp_path: pathlib.Path) -> Settings:
    return Settings(database_url=db_url, data_dir=tmp_path)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """The whole app (lifespan included: live hub, LISTEN, sweeper) on this test's database."""
    with TestClient(create_app(settings)) as test_client:
        yield test_client


@pytest.fixture
def table(client: TestClient) -> Table:
    return Table(client)


@pytest.fixture
async def live(settings: Settings) -> AsyncIterator[LiveServer]:
    """The app served by a real uvicorn in this test's event loop, on a free port."""
    async with LiveServer(settings) as server:
        yield server


@pytest.fixture
async def heard(db_url: str) -> AsyncIterator[asyncio.Queue[str]]:
    """Every payload on this test's database's notification channel from now on, as PostgreSQL
    delivers them (to a listener that is not a server process)."""
    queue: asyncio.Queue[str] = asyncio.Queue()
    listener = await asyncpg.connect(plain_dsn(db_url))
    await listener.add_listener(NOTIFY_CHANNEL, lambda *args: queue.put_nowait(args[3]))
    try:
        yield queue
    finally:
        await listener.close()
