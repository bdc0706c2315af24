"""Fixtures for the game server: the app on a fresh real database, and helpers to make a game."""

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import asyncpg  # type: ignore[import-untyped]
import httpx
import pytest
import uvicorn
from fastapi.testclient import TestClient

from app.db.session import plain_dsn
from app.main import create_app
from app.service.commands import NOTIFY_CHANNEL
from app.settings import Settings
from app.web.protocols import WS_PROTOCOL


@pytest.fixture
def settings(db_url: str, tmp_path: Path) -> Settings:
    return Settings(database_url=db_url, data_dir=tmp_path)


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


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """The whole app (lifespan included: live hub, LISTEN, sweeper) on this test's database."""
    with TestClient(create_app(settings)) as test_client:
        yield test_client


class Table:
    """A game made through the API, with the tokens the tests act with."""

    def __init__(self, client: TestClient, scenario: str = "skirmish", seed: int = 7) -> None:
        self.client = client
        made = client.post("/api/games", json={"scenario": scenario, "seed": seed})
        assert made.status_code == 201, made.text
        body = made.json()
        self.game_id: str = body["game_id"]
        self.join_code: str = body["join_code"]
        self.gm: dict[str, str] = {"Authorization": f"Bearer {body['gm_token']}"}
        self.gm_token: str = body["gm_token"]
        self.seats: dict[str, dict[str, Any]] = {}

    def seat(self, station: str, ship: str = "kestrel", name: str | None = None) -> dict[str, Any]:
        made = self.client.post(
            f"/api/games/{self.game_id}/seats",
            json={"ship": ship, "station": station, "name": name or station.title()},
        )
        assert made.status_code == 201, made.text
        seat = {**made.json(), "headers": {"Authorization": f"Bearer {made.json()['seat_token']}"}}
        self.seats[station] = seat
        return seat

    def command(self, headers: dict[str, str] | None, **data: Any) -> Any:
        data.setdefault("command_id", uuid.uuid4().hex)
        return self.client.post(
            f"/api/games/{self.game_id}/commands", json=data, headers=headers or {}
        )

    def gm_command(self, **data: Any) -> dict[str, Any]:
        response = self.command(self.gm, **data)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body


@pytest.fixture
def table(client: TestClient) -> Table:
    return Table(client)


class LiveServer:
    """The app served by a real uvicorn inside the test's event loop, on a free port."""

    def __init__(self, settings: Settings, heartbeat_seconds: float = 15.0) -> None:
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

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"


@pytest.fixture
async def live(settings: Settings) -> AsyncIterator[LiveServer]:
    server = LiveServer(settings)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


class AsyncTable:
    """A game made through the API of a running server."""

    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http
        self.game_id = ""
        self.gm: dict[str, str] = {}
        self.gm_token = ""

    async def create(self, scenario: str = "skirmish", seed: int = 7) -> "AsyncTable":
        made = await self.http.post("/api/games", json={"scenario": scenario, "seed": seed})
        assert made.status_code == 201, made.text
        self.game_id = made.json()["game_id"]
        self.gm_token = made.json()["gm_token"]
        self.gm = {"Authorization": f"Bearer {self.gm_token}"}
        return self

    async def seat(self, station: str, ship: str = "kestrel") -> dict[str, Any]:
        made = await self.http.post(
            f"/api/games/{self.game_id}/seats",
            json={"ship": ship, "station": station, "name": station},
        )
        assert made.status_code == 201, made.text
        return dict(made.json())

    async def gm_command(self, **data: Any) -> dict[str, Any]:
        data.setdefault("command_id", uuid.uuid4().hex)
        response = await self.http.post(
            f"/api/games/{self.game_id}/commands", json=data, headers=self.gm
        )
        assert response.status_code == 200, response.text
        return dict(response.json())


async def next_message(
    socket: Any, within: float = 10.0, *, skip_heartbeats: bool = True
) -> dict[str, Any]:
    """The next JSON message on a websocket (heartbeats skipped), or fail after `within` s."""
    while True:
        message = json.loads(await asyncio.wait_for(socket.recv(), within))
        if not (skip_heartbeats and message.get("type") == "heartbeat"):
            return dict(message)
