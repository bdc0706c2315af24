"""A real Mosquitto (Debian's, which .ci/run installs) on a free port for each test, a subscriber
that keeps what it hears, and the app served against both."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiomqtt
import httpx
import orjson
import pytest

from app.props import PropsBridge
from app.settings import Settings
from tests.processes import LiveServer, free_port, require_process_marker
from tests.tables import AsyncTable

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


class Mosquitto:
    """One broker process on one port; it can be killed and started again on the same port."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.config = folder / "mosquitto.conf"
        self.config.write_text(
            f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
        )
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> None:
        assert Path(MOSQUITTO).exists(), "Mosquitto is missing: apt-get install mosquitto"
        require_process_marker()
        self.process = subprocess.Popen(
            [MOSQUITTO, "-c", str(self.config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            assert self.process.poll() is None, "mosquitto exited"
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port)):
                return
            time.sleep(0.02)
        raise AssertionError("mosquitto did not listen within 10 s")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        self.process = None


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    mosquitto = Mosquitto(tmp_path)
    mosquitto.start()
    try:
        yield mosquitto
    finally:
        mosquitto.kill()


class Heard:
    """Every message on `#` from the moment it subscribed: (topic, decoded JSON payload)."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, Any]] = []
        self.raw: list[bytes] = []

    def topics(self, under: str = "") -> list[str]:
        return [topic for topic, _ in self.messages if topic.startswith(under)]

    def payloads(self, topic: str) -> list[Any]:
        return [payload for t, payload in self.messages if t == topic]

    async def quiet(self, seconds: float = 0.5) -> None:
        """Until nothing more arrives for `seconds`."""
        count = -1
        while count != len(self.messages):
            count = len(self.messages)
            await asyncio.sleep(seconds)

    async def until(self, count: int, within: float = 10.0) -> None:
        deadline = time.monotonic() + within
        while len(self.messages) < count:
            assert time.monotonic() < deadline, f"heard {len(self.messages)}, not {count}"
            await asyncio.sleep(0.02)


@contextlib.asynccontextmanager
async def listening(broker: Mosquitto) -> AsyncIterator[Heard]:
    """A subscriber on `#` for the block's length: what it heard."""
    found = Heard()
    ready = asyncio.Event()

    async def listen() -> None:
        async with aiomqtt.Client("127.0.0.1", broker.port) as client:
            await client.subscribe("#", qos=1)
            ready.set()
            async for message in client.messages:
                assert isinstance(message.payload, bytes)
                found.raw.append(message.payload)
                try:
                    payload = orjson.loads(message.payload)
                except orjson.JSONDecodeError:  # a prop's own message, as a test sent it
                    payload = message.payload.decode()
                found.messages.append((message.topic.value, payload))

    task = asyncio.create_task(listen())
    await asyncio.wait_for(ready.wait(), 10)
    try:
        yield found
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, aiomqtt.MqttError):
            await task


@pytest.fixture
async def heard(broker: Mosquitto) -> AsyncIterator[Heard]:
    async with listening(broker) as found:
        yield found


async def publish(broker: Mosquitto, topic: str, payload: bytes = b"") -> None:
    async with aiomqtt.Client("127.0.0.1", broker.port) as client:
        await client.publish(topic, payload, qos=1)


@pytest.fixture
def settings(db_url: str, tmp_path: Path, broker: Mosquitto) -> Settings:
    """The server's settings (tests.server's `live` serves with them), pointed at the broker."""
    return Settings(database_url=db_url, data_dir=tmp_path, mqtt_url=broker.url)


@pytest.fixture
async def table(live: LiveServer) -> AsyncIterator[AsyncTable]:
    async with httpx.AsyncClient(base_url=live.http, timeout=30) as http:
        yield await AsyncTable(http).create()


async def connected(bridge: PropsBridge, want: bool = True, within: float = 10.0) -> None:
    """Until the bridge holds its connection to the broker (it subscribed by then), or with
    `want` False, until it knows it lost it."""
    deadline = time.monotonic() + within
    while bridge.connected != want:
        assert time.monotonic() < deadline, f"the bridge's connection is not {want}"
        await asyncio.sleep(0.02)
