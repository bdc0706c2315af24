"""The embedded PostgreSQL keeps its data across starts and survives a SIGKILLed parent."""

import asyncio
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from sqlalchemy import pool, text
from sqlalchemy.ext.asyncio import create_async_engine

from app.db.embedded import start_embedded, stop_embedded

pytestmark = [pytest.mark.slow, pytest.mark.processes]

ROOT = Path(__file__).resolve().parents[1]

# Starts the server and reports its postmaster pid, then waits to be killed.
CHILD = """
import sys, time
from pathlib import Path
from app.db.embedded import start_embedded
server = start_embedded(Path(sys.argv[1]))
print(server.postmaster_pid, flush=True)
time.sleep(600)
"""


@pytest.fixture
def pgdata() -> Iterator[Path]:
    """Not under pytest's tmp folder: another pytest run on the machine resets that folder's
    permissions, and postgres (running as its own user) would lose its data directory."""
    scratch = Path(tempfile.mkdtemp(prefix="bridgecrew-embedded-"))
    scratch.chmod(0o755)
    path = scratch / "pg"
    try:
        yield path
    finally:
        stop_embedded(path)  # whatever the test left running
        shutil.rmtree(scratch, ignore_errors=True)


def sql(url: str, *statements: str) -> list[Any]:
    """Run statements in one transaction; return the rows of the last one."""

    async def go() -> list[Any]:
        engine = create_async_engine(url, poolclass=pool.NullPool)
        try:
            async with engine.begin() as conn:
                result = None
                for statement in statements:
                    result = await conn.execute(text(statement))
                assert result is not None
                return list(result.all()) if result.returns_rows else []
        finally:
            await engine.dispose()

    return asyncio.run(go())


def start_in_child_and_sigkill_it(pgdata: Path) -> int:
    """Start the server from another process, SIGKILL that process; return the postmaster pid."""
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(pgdata)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        ready, _, _ = select.select([child.stdout], [], [], 90)
        assert ready, "child did not start the server within 90 s"
        line = child.stdout.readline()
        assert line.strip().isdigit(), f"child failed to start the server: {line!r}"
        return int(line)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)


def test_second_start_reuses_the_running_server(pgdata: Path) -> None:
    first = start_embedded(pgdata)
    second = start_embedded(pgdata)
    assert second.postmaster_pid == first.postmaster_pid
    assert second.url() == first.url()


def test_data_survives_a_stop_and_start(pgdata: Path) -> None:
    server = start_embedded(pgdata)
    sql(server.url(), "CREATE TABLE ship (name text)", "INSERT INTO ship VALUES ('Vigilant')")
    server.stop()
    assert not (pgdata / "postmaster.pid").exists()

    again = start_embedded(pgdata)
    assert again.postmaster_pid != server.postmaster_pid
    assert sql(again.url(), "SELECT name FROM ship") == [("Vigilant",)]


def test_server_orphaned_by_sigkilled_parent_is_reused(pgdata: Path) -> None:
    postmaster = start_in_child_and_sigkill_it(pgdata)
    assert psutil.pid_exists(postmaster), "postgres outlives its SIGKILLed parent"

    server = start_embedded(pgdata)
    assert server.postmaster_pid == postmaster
    sql(server.url(), "CREATE TABLE ship (name text)", "INSERT INTO ship VALUES ('Vigilant')")
    assert sql(server.url(), "SELECT name FROM ship") == [("Vigilant",)]
    # The dead parent no longer counts as a user of the server, so stopping works normally.
    assert str(postmaster) not in (pgdata / ".handle_pids.json").read_text()


def test_server_that_crashed_with_its_parent_is_restarted(pgdata: Path) -> None:
    postmaster = start_in_child_and_sigkill_it(pgdata)
    reused = start_embedded(pgdata)
    sql(reused.url(), "CREATE TABLE ship (name text)", "INSERT INTO ship VALUES ('Vigilant')")
    # A crash: the postmaster dies without removing postmaster.pid.
    process = psutil.Process(postmaster)
    process.kill()
    process.wait(10)
    assert (pgdata / "postmaster.pid").exists()

    server = start_embedded(pgdata)
    assert server.postmaster_pid != postmaster
    assert sql(server.url(), "SELECT name FROM ship") == [("Vigilant",)]


def test_postmaster_pid_naming_a_live_stranger_is_not_trusted(pgdata: Path) -> None:
    server = start_embedded(pgdata)
    sql(server.url(), "CREATE TABLE ship (name text)", "INSERT INTO ship VALUES ('Vigilant')")
    pidfile = pgdata / "postmaster.pid"
    lines = pidfile.read_text().splitlines()
    server.stop()
    # After a reboot the old pid may belong to any process: here, this test's own.
    lines[0] = str(os.getpid())
    pidfile.write_text("\n".join(lines) + "\n")

    again = start_embedded(pgdata)
    assert again.postmaster_pid != os.getpid()
    assert sql(again.url(), "SELECT name FROM ship") == [("Vigilant",)]
