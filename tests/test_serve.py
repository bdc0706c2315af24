"""`bridgecrew serve` stopped by SIGTERM (a service manager), SIGINT (Ctrl-C) or SIGHUP (a closed
terminal) stops the embedded PostgreSQL it runs, unless someone else still uses that server or
the database is another's (DATABASE_URL). A serve that was SIGKILLed leaves its PostgreSQL
running; the next serve takes it over, and stops it when it is stopped in turn."""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import httpx
import psutil
import pytest

from app.db.embedded import start_embedded, stop_embedded
from tests.conftest import admin_sql
from tests.processes import ROOT, free_port

pytestmark = pytest.mark.slow

LAUNCH = "from app.cli import main; main()"


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


class Serve:
    """`bridgecrew serve` in its own process, on loopback."""

    def __init__(self, data_dir: Path, env: Mapping[str, str] | None = None) -> None:
        self.port = free_port()
        self.log = data_dir / "serve.log"
        environment = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        environment |= {"BRIDGECREW_DATA_DIR": str(data_dir), "BRIDGECREW_HOST": "127.0.0.1"}
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-c", LAUNCH, "serve", "--port", str(self.port)],
                cwd=ROOT,
                env=environment | dict(env or {}),
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def ready(self, within: float = 120) -> "Serve":
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log.read_text()[-3000:]
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/healthz").status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"serve did not start:\n{self.log.read_text()[-3000:]}")

    def stop_with(self, signum: int) -> int:
        """Send the signal; the exit status once the process has ended (negative: killed)."""
        self.process.send_signal(signum)
        try:
            return self.process.wait(60)
        finally:
            if self.process.poll() is None:
                self.process.kill()


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
    serve = Serve(data_dir).ready()
    database = postmaster(data_dir)
    status = serve.stop_with(signum)
    assert gone(database), f"PostgreSQL {database} still runs after serve got signal {signum}"
    assert status >= 0, f"serve was killed by signal {-status} instead of exiting"
    assert not (data_dir / "pg" / "postmaster.pid").exists()


def test_a_database_left_by_a_killed_serve_is_taken_over_and_stopped(data_dir: Path) -> None:
    killed = Serve(data_dir).ready()
    orphan = postmaster(data_dir)
    killed.stop_with(signal.SIGKILL)
    assert runs(orphan), "pgserver's PostgreSQL outlives a SIGKILLed parent"

    serve = Serve(data_dir).ready()
    assert postmaster(data_dir) == orphan, "the running server is reused, not started again"
    assert serve.stop_with(signal.SIGTERM) >= 0
    assert gone(orphan)


def test_a_database_another_process_uses_keeps_running(data_dir: Path) -> None:
    mine = start_embedded(data_dir / "pg")  # this test's process is a user of it too
    try:
        serve = Serve(data_dir).ready()
        assert postmaster(data_dir) == mine.postmaster_pid
        assert serve.stop_with(signal.SIGTERM) >= 0
        time.sleep(1)
        assert runs(mine.postmaster_pid), "serve stopped a server that another process uses"
    finally:
        stop_embedded(data_dir / "pg")


def test_a_database_named_by_database_url_is_left_alone(
    db_url: str, pg_server_url: str, tmp_path: Path
) -> None:
    serve = Serve(tmp_path, {"DATABASE_URL": db_url}).ready()
    assert serve.stop_with(signal.SIGTERM) >= 0
    assert not (tmp_path / "pg").exists(), "serve started its own PostgreSQL"
    admin_sql(pg_server_url, "SELECT 1")  # still answers
