"""How the tests serve the app: a real uvicorn inside the test's event loop (`LiveServer`), or a
server process of its own (`Server`) that a test can stop, SIGKILL and start again on the same
port, with the options `bridgecrew serve` uses (app.web.serving) and its settings from the
environment.

`python -m tests.processes PORT` is that process; tests/browser/server.py adds the browser tests'
scenarios to it. A test that starts a process must be marked `processes` (or be under
tests/browser or tests/faults, or use the props tests' broker, which tests/conftest.py marks):
`make test-fast` leaves those out, and `Server.start` (and the broker's) refuses to run in a test
that is not marked, so the quick run never waits for a process and no test drops out of it
unannounced.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Self

import httpx
import uvicorn
from websockets.client import ClientProtocol
from websockets.http11 import Response
from websockets.uri import parse_uri

from app.settings import Settings
from app.web.protocols import WS_PROTOCOL

ROOT = Path(__file__).resolve().parents[1]

# The markers of tests that may start a server process; `make test-fast` deselects them.
PROCESS_MARKERS = frozenset({"processes", "browser", "faults"})

# The markers of the test being run, kept by tests/conftest.py; None outside pytest (bench/).
running_markers: frozenset[str] | None = None

# `python -m tests.processes PORT`: the app as `bridgecrew serve` serves it.
APP = ("-m", "tests.processes")


def free_port() -> int:
    """A free port below the kernel's ephemeral range. A server (or broker) comes back on the same
    port after a kill; while it is down, a port from that range could be handed to some outgoing
    connection (another test's, or one of our own clients' connecting to itself), and the
    restarted server could not bind it."""
    low = 32768
    with contextlib.suppress(OSError, ValueError):
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    for _ in range(200):
        port = random.randrange(max(1024, low - 12000), low)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError("no free port below the ephemeral range")


def require_process_marker() -> None:
    """Fail a test that starts a server process (this module's, or a broker) unmarked."""
    if running_markers is not None and not running_markers & PROCESS_MARKERS:
        raise AssertionError(
            "this test starts a server process: mark it `processes` (pytestmark = "
            "pytest.mark.processes) so that `make test-fast` leaves it out"
        )


def serve(port: int, **options: Any) -> None:
    """Serve app.main's app on loopback as `bridgecrew serve` does, quiet but for warnings."""
    from app.settings import get_settings
    from app.web.serving import server_options

    config = {**server_options(get_settings()), **options}
    uvicorn.run("app.main:app", host="127.0.0.1", port=port, log_level="warning", **config)


class Server:
    """A server process on loopback, always on the same port (as a venue's server would be: a phone
    that lost it reconnects to the same address), its output in `data_dir/<name>.log`.

    `Server(db_url, data_dir, name, env)` makes it, `start()` starts it and returns at once,
    `await ready()` (which starts it first if need be) or `wait_ready()` waits until /healthz says
    ok. `db_url=None` leaves DATABASE_URL out of the environment; `launch` is what follows the
    interpreter on the command line, the port last."""

    def __init__(
        self,
        db_url: str | None,
        data_dir: Path,
        name: str = "server",
        env: Mapping[str, str] | None = None,
        *,
        launch: Sequence[str] = APP,
        port: int | None = None,
    ) -> None:
        self.db_url = db_url
        self.data_dir = data_dir
        self.port = port or free_port()
        self.log = data_dir / f"{name}.log"
        self.launch = tuple(launch)
        environment = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        environment |= {"BRIDGECREW_DATA_DIR": str(data_dir), "PYTHONPATH": str(ROOT)}
        if db_url is not None:
            environment["DATABASE_URL"] = db_url
        self.env = environment | dict(env or {})
        self._process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    base = http

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def process(self) -> subprocess.Popen[bytes]:
        assert self._process is not None, "the server was never started"
        return self._process

    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> Server:
        assert not self.running(), "already running"
        require_process_marker()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.starts += 1
        with self.log.open("ab") as log:
            log.write(f"\n--- start {self.starts} ---\n".encode())
            self._process = subprocess.Popen(
                [sys.executable, *self.launch, str(self.port)],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        return self

    def wait_ready(self, within: float = 60) -> Server:
        """Start it if need be, then wait for /healthz to say ok (database answering and LISTEN
        connected)."""
        if self._process is None:
            self.start()
        deadline = time.monotonic() + within
        last = ""
        with httpx.Client(base_url=self.http, timeout=5) as http:
            while time.monotonic() < deadline:
                self.assert_alive()
                try:
                    answer = http.get("/healthz")
                    if answer.status_code == 200:
                        return self
                    last = f"{answer.status_code} {answer.text[:200]}"
                except httpx.TransportError as error:
                    last = repr(error)
                time.sleep(0.05)
        raise AssertionError(
            f"server on port {self.port} is not healthy (last: {last}):\n{self.tail()}"
        )

    async def ready(self, within: float = 60) -> Server:
        """wait_ready() off the event loop, so the test's clients carry on meanwhile."""
        return await asyncio.to_thread(self.wait_ready, within)

    def assert_alive(self) -> None:
        """A server that died without being killed here crashed (or something else killed it)."""
        code = self.process.poll()
        assert code is None, f"the server died by itself (exit {code}):\n{self.tail()}"

    def signal(self, signum: int, within: float = 60) -> int:
        """Send the signal; the exit status once the process has ended (negative: by a signal)."""
        self.process.send_signal(signum)
        try:
            return self.process.wait(within)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()

    def kill(self) -> None:
        """SIGKILL: no shutdown hooks, no goodbye to sockets or the database."""
        self.assert_alive()
        self.signal(signal.SIGKILL, 10)

    def stop(self) -> None:
        """SIGTERM, as a GM's Ctrl-C or a service manager would: a graceful shutdown."""
        if self.running():
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.signal(signal.SIGTERM, 15)

    def tail(self, chars: int = 6000) -> str:
        try:
            return self.log.read_text(errors="replace")[-chars:]
        except OSError:
            return "(no log)"


class LiveServer:
    """The app served by a real uvicorn inside the test's event loop, on a free port."""

    def __init__(self, settings: Settings, heartbeat_seconds: float = 15.0) -> None:
        from app.main import create_app

        self.app = create_app(settings, heartbeat_seconds=heartbeat_seconds)
        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=0,
            log_level="warning",
            lifespan="on",
            ws=WS_PROTOCOL,
            ws_per_message_deflate=settings.ws_deflate,
        )
        self.server = uvicorn.Server(config)
        self.task: asyncio.Task[None] | None = None
        self.port = 0

    async def start(self) -> None:
        self.task = asyncio.create_task(self.server.serve())
        while not self.server.started:
            assert not self.task.done(), "uvicorn failed to start"
            await asyncio.sleep(0.02)
        self.port = self.server.servers[0].sockets[0].getsockname()[1]

    async def stop(self) -> None:
        self.server.should_exit = True
        if self.task is not None:
            await asyncio.wait_for(self.task, 15)

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.stop()

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"


async def next_message(
    socket_: Any, within: float = 10.0, *, skip_heartbeats: bool = True
) -> dict[str, Any]:
    """The next JSON message on a websocket (heartbeats skipped), or fail after `within` s."""
    while True:
        message = json.loads(await asyncio.wait_for(socket_.recv(), within))
        if not (skip_heartbeats and message.get("type") == "heartbeat"):
            return dict(message)


def unread_websocket(
    port: int, path: str, source: str = "127.0.0.1"
) -> tuple[socket.socket, ClientProtocol]:
    """A websocket to a server on loopback, on a bare socket with a tiny receive window, so the
    client can leave what the server sends unread. `source` is the client's address."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    client = ClientProtocol(parse_uri(f"ws://127.0.0.1:{port}{path}"))
    client.send_request(client.connect())
    sock.sendall(b"".join(client.data_to_send()))
    sock.settimeout(10)
    while not any(isinstance(event, Response) for event in client.events_received()):
        client.receive_data(sock.recv(65536))
    return sock, client


if __name__ == "__main__":
    serve(int(sys.argv[1]))
