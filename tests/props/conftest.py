"""A real Mosquitto (Debian's, which .ci/run installs) on a free port for each test, a subscriber
that keeps what it hears, and the app served against both. The broker is an open one, or set up
as deploy/mosquitto.conf ships it, with the logins `bridgecrew props-broker` writes."""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import secrets
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiomqtt
import httpx
import orjson
import pytest

from app.props import PropsBridge
from app.props import broker as logins
from app.service import game_info, load_state
from app.service.commands import SessionFactory
from app.settings import Settings
from tests.processes import LiveServer, free_port, require_process_marker
from tests.tables import AsyncTable

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
SHIPPED_CONF = Path(__file__).resolve().parents[2] / "deploy" / "mosquitto.conf"

Login = tuple[str, str] | None  # (user, password), or none at all


class Mosquitto:
    """One broker process on one port; it can be killed and started again on the same port.
    `shipped`: deploy/mosquitto.conf, on this port, with the files `bridgecrew props-broker`
    writes (`server` and `props` are then the two logins)."""

    def __init__(self, folder: Path, *, shipped: bool = False) -> None:
        self.port = free_port()
        self.config = folder / "mosquitto.conf"
        self.server: Login = None
        self.props: Login = None
        if shipped:
            files = folder / "broker"
            written = logins.Logins.new()
            logins.write_files(files, written, "127.0.0.1", self.port)
            self.server = (logins.SERVER_USER, written.server)
            self.props = (logins.PROPS_USER, written.props)
            conf = SHIPPED_CONF.read_text()
            conf = conf.replace("listener 1883\n", f"listener {self.port} 127.0.0.1\n")
            conf = conf.replace("/mosquitto/broker/", f"{files}/")
            assert f"listener {self.port}" in conf and str(files) in conf
            # Started as root, Mosquitto would read its files as the `mosquitto` user, who cannot
            # reach a test's private folder: it stays the user that starts it.
            self.config.write_text(f"{conf}user {getpass.getuser()}\n")
        else:
            self.config.write_text(
                f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
            )
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The server's address, with its login on the shipped broker."""
        if self.server is None:
            return f"mqtt://127.0.0.1:{self.port}"
        return logins.server_url(self.server[1], "127.0.0.1", self.port)

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


def running(mosquitto: Mosquitto) -> Iterator[Mosquitto]:
    mosquitto.start()
    try:
        yield mosquitto
    finally:
        mosquitto.kill()


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    yield from running(Mosquitto(tmp_path))


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


def client(broker: Mosquitto, login: Login = None, **options: Any) -> aiomqtt.Client:
    user, password = login or (None, None)
    return aiomqtt.Client("127.0.0.1", broker.port, username=user, password=password, **options)


@contextlib.asynccontextmanager
async def listening(
    broker: Mosquitto, login: Login = None, topic: str = "#"
) -> AsyncIterator[Heard]:
    """A subscriber on `topic` for the block's length: what it heard."""
    found = Heard()
    ready = asyncio.Event()

    async def listen() -> None:
        async with client(broker, login) as subscriber:
            await subscriber.subscribe(topic, qos=1)
            ready.set()
            async for message in subscriber.messages:
                assert isinstance(message.payload, bytes)
                found.raw.append(message.payload)
                try:
                    payload = orjson.loads(message.payload)
                except orjson.JSONDecodeError:  # a prop's own message, as a test sent it
                    payload = message.payload.decode()
                found.messages.append((message.topic.value, payload))

    task = asyncio.create_task(listen())
    waiting = asyncio.create_task(ready.wait())
    await asyncio.wait((task, waiting), timeout=10, return_when=asyncio.FIRST_COMPLETED)
    waiting.cancel()
    if task.done():
        task.result()  # the broker refused it: say why
    assert ready.is_set(), "the subscriber was not subscribed within 10 s"
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


async def publish(broker: Mosquitto, topic: str, payload: bytes = b"", login: Login = None) -> None:
    async with client(broker, login) as publisher:
        await publisher.publish(topic, payload, qos=1)


def made_up_code() -> str:
    """A props code no game has (32 hex digits, as the database draws them)."""
    return secrets.token_hex(16)


async def props_code(factory: SessionFactory, game_id: uuid.UUID | str) -> str:
    return (await game_info(factory, game_id)).props_code


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


async def alarms_fired(live: LiveServer, game_id: uuid.UUID, at_least: int = 0) -> int:
    """How often the game's boarding alarm fired, once it fired `at_least` times (or 10 s
    passed) and nothing more came for a moment."""
    factory = live.app.state.session_factory
    fired, settled = -1, 0
    for _ in range(200):
        _, state = await load_state(factory, game_id)
        now = next(int(cue["fired"]) for cue in state["cues"] if cue["id"] == "alarm")
        settled = settled + 1 if now == fired and now >= at_least else 0
        if settled == 10:
            break
        fired = now
        await asyncio.sleep(0.05)
    return fired
