"""Fixtures for the fault tests: a PostgreSQL of the test's own, which it may stop and start."""

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.db.embedded import EmbeddedPostgres, start_embedded, stop_embedded
from app.db.migrate import upgrade
from tests.conftest import run_in_thread


@pytest.fixture
def own_postgres() -> Iterator[EmbeddedPostgres]:
    """An embedded server for this test alone, its database migrated. Never the session's shared
    server: this one gets stopped under the app's feet."""
    # Not under pytest's tmp folder (another pytest run resets its permissions, and postgres runs
    # as its own user); 0755 so that user can reach pgdata.
    scratch = Path(tempfile.mkdtemp(prefix="bridgecrew-fault-pg-"))
    scratch.chmod(0o755)
    pgdata = scratch / "pgdata"
    try:
        server = start_embedded(pgdata)
        run_in_thread(upgrade, server.url())
        yield server
    finally:
        stop_embedded(pgdata)
        shutil.rmtree(scratch, ignore_errors=True)
