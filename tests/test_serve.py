"""`bridgecrew serve` stopped by SIGTERM (a service manager), SIGINT (Ctrl-C) or SIGHUP (a closed
terminal) stops the embedded PostgreSQL it runs, unless someone else still uses that server or
the database is another's (DATABASE_URL). A serve that was SIGKILLed leaves its PostgreSQL
running; the next serve takes it over, and stops it when it is stopped in turn."""

import shutil
import signal
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import psutil
import pytest

from app.db.embedded import start_embedded, stop_embedded
from tests.conftest import admin_sql
from tests.processes import Server

pytestmark = [pytest.mark.slow, pytest.mark.processes]

SERVE = ("-c", "from app.cli import main; main()", "serve", "--port")


@pytest.fixture(scope="module")
def data_dir() -> Iterator[Path]:
    """One data dir for the module, so PostgreSQL's initdb runs once. Not under pytest's tmp
    folder, whose permissions postgres (running as its own user) may lose (see conftest)."""
    scratch = Path(tempfile.mkdtemp(prefix="bridgecrew-serve-"))
    scratch.chmod(0o755)
    try:
        yield scratch
    finally:
        stop_embedded(scratch / "pg")
        shutil.rmtree(scratch, ignore_errors=True)


def bridgecrew_serve(data_dir: Path, env: Mapping[str, str] | None = None) -> Server:
    """`bridgecrew serve` in its own process on loopback, ready; on its own PostgreSQL under
    data_dir unless env names DATABASE_URL."""
    env = {"BRIDGECREW_HOST": "127.0.0.1", **(env or {})}
    return Server(None, data_dir, "serve", env, launch=SERVE).wait_ready(120)


def postmaster(data_dir: Path) -> int:
    return int((data_dir / "pg" / "postmaster.pid").read_text().split()[0])


def runs(pid: int) -> bool:
    try:
        return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return False


def gone(pid: int, within: float = 10) -> bool:
    deadline = time.monotonic() + within
    while runs(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_stopping_serve_stops_the_database_it_started(data_dir: Path, signum: int) -> None:
    serve = bridgecrew_serve(data_dir)
    database = postmaster(data_dir)
    status = serve.signal(signum)
    assert gone(database), f"PostgreSQL {database} still runs after serve got signal {signum}"
    assert status >= 0, f"serve was killed by signal {-status} instead of exiting"
    assert not (data_dir / "pg" / "postmaster.pid").exists()


def test_a_database_left_by_a_killed_serve_is_taken_over_and_stopped(data_dir: Path) -> None:
    killed = bridgecrew_serve(data_dir)
    orphan = postmaster(data_dir)
    killed.signal(signal.SIGKILL)
    assert runs(orphan), "pgserver's PostgreSQL outlives a SIGKILLed parent"

    serve = bridgecrew_serve(data_dir)
    assert postmaster(data_dir) == orphan, "the running server is reused, not started again"
    assert serve.signal(signal.SIGTERM) >= 0
    assert gone(orphan)


def test_a_database_another_process_uses_keeps_running(data_dir: Path) -> None:
    mine = start_embedded(data_dir / "pg")  # this test's process is a user of it too
    try:
        serve = bridgecrew_serve(data_dir)
        assert postmaster(data_dir) == mine.postmaster_pid
        assert serve.signal(signal.SIGTERM) >= 0
        time.sleep(1)
        assert runs(mine.postmaster_pid), "serve stopped a server that another process uses"
    finally:
        stop_embedded(data_dir / "pg")


def test_a_database_named_by_database_url_is_left_alone(
    db_url: str, pg_server_url: str, tmp_path: Path
) -> None:
    serve = bridgecrew_serve(tmp_path, {"DATABASE_URL": db_url})
    assert serve.signal(signal.SIGTERM) >= 0
    assert not (tmp_path / "pg").exists(), "serve started its own PostgreSQL"
    admin_sql(pg_server_url, "SELECT 1")  # still answers
