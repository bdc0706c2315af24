"""How the tests start a real server process: uvicorn on loopback with the options `bridgecrew
serve` uses (app.web.serving), its settings from the environment, quiet but for warnings."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import httpx
from websockets.client import ClientProtocol
from websockets.http11 import Response
from websockets.uri import parse_uri

ROOT = Path(__file__).resolve().parents[1]

LAUNCH = """
import sys
import uvicorn
from app.settings import get_settings
from app.web.serving import server_options
options = server_options(get_settings())
uvicorn.run("app.main:app", host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", **options)
"""


def uvicorn_command(port: int) -> list[str]:
    return [sys.executable, "-c", LAUNCH, str(port)]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Server:
    """One server process on DATABASE_URL, as `bridgecrew serve` runs it; `env` adds settings."""

    def __init__(
        self, db_url: str, data_dir: Path, name: str, env: Mapping[str, str] | None = None
    ) -> None:
        self.port = free_port()
        self.log = data_dir / f"{name}.log"
        environment = {
            **os.environ,
            "DATABASE_URL": db_url,
            "BRIDGECREW_DATA_DIR": str(data_dir),
            **(env or {}),
        }
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                uvicorn_command(self.port),
                cwd=ROOT,
                env=environment,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    async def ready(self, within: float = 30) -> Server:
        deadline = time.monotonic() + within
        async with httpx.AsyncClient(base_url=self.http) as http:
            while time.monotonic() < deadline:
                assert self.process.poll() is None, self.log.read_text()
                try:
                    if (await http.get("/healthz")).status_code == 200:
                        return self
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.1)
        raise AssertionError(f"server did not start:\n{self.log.read_text()}")

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


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
