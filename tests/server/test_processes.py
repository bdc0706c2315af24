"""Real uvicorn processes sharing one database: a change made through one reaches sockets on the
other, and a server SIGKILLed mid-game loses nothing, replays to the same state, and applies a
deadline that passed while it was down exactly once."""

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from websockets.asyncio.client import connect

from app.db.models import AppliedCommand, Event, Game
from app.rules import display_view
from app.service import replay_state
from tests.processes import Server, next_message

pytestmark = pytest.mark.processes


@pytest.fixture
async def servers(db_url: str, tmp_path: Path) -> AsyncIterator[Callable[[str], Server]]:
    started: list[Server] = []

    def start(name: str) -> Server:
        server = Server(db_url, tmp_path, name)
        started.append(server)
        return server

    try:
        yield start
    finally:
        for server in started:
            server.stop()


class Game_:
    def __init__(self, http: httpx.AsyncClient, body: dict[str, Any]) -> None:
        self.http = http
        self.id = body["game_id"]
        self.gm = {"Authorization": f"Bearer {body['gm_token']}"}

    async def command(self, command_id: str | None = None, **data: Any) -> httpx.Response:
        return await self.http.post(
            f"/api/games/{self.id}/commands",
            headers=self.gm,
            json={"command_id": command_id or uuid.uuid4().hex, **data},
        )


async def new_game(http: httpx.AsyncClient) -> Game_:
    made = await http.post("/api/games", json={"scenario": "skirmish", "seed": 11})
    assert made.status_code == 201, made.text
    return Game_(http, made.json())


async def test_a_command_sent_to_one_process_reaches_a_socket_on_the_other(
    servers: Callable[[str], Server],
) -> None:
    first, second = servers("first"), servers("second")
    await asyncio.gather(first.ready(), second.ready())
    async with httpx.AsyncClient(base_url=first.http, timeout=10) as http:
        game = await new_game(http)
        async with connect(f"{second.ws}/ws/display/{game.id}?format=json") as display:
            assert (await next_message(display))["version"] == 0
            assert (await game.command(type="SetRedAlert", on=True)).status_code == 200
            pushed = await next_message(display)
            assert pushed["version"] == 1 and pushed["view"]["game"]["red_alert"] is True


async def test_a_seat_freed_through_one_process_stops_its_token_on_the_other_at_once(
    servers: Callable[[str], Server],
) -> None:
    """Each process remembers who a token is (300 s); ending a seat tells every process."""
    first, second = servers("first"), servers("second")
    await asyncio.gather(first.ready(), second.ready())
    async with (
        httpx.AsyncClient(base_url=first.http, timeout=10) as one,
        httpx.AsyncClient(base_url=second.http, timeout=10) as other,
    ):
        game = await new_game(one)
        seated = await one.post(
            f"/api/games/{game.id}/seats",
            json={"ship": "kestrel", "station": "pilot", "name": "Ayo"},
        )
        assert seated.status_code == 201, seated.text
        seat = {"Authorization": f"Bearer {seated.json()['seat_token']}"}
        view = await other.get(f"/api/games/{game.id}/view", headers=seat)
        assert view.status_code == 200 and view.json()["view"]["me"] is not None  # remembered
        seat_id = seated.json()["seat_id"]
        freed = await one.delete(f"/api/games/{game.id}/seats/{seat_id}", headers=game.gm)
        assert freed.status_code == 200, freed.text
        refused = None
        for _ in range(40):  # the notice takes milliseconds; the memory would last minutes
            refused = await other.get(f"/api/games/{game.id}/view", headers=seat)
            if refused.status_code != 200:
                break
            await asyncio.sleep(0.05)
        assert refused is not None and refused.status_code == 401, refused and refused.text
        assert refused.json()["code"] == "BAD_TOKEN"


async def test_sigkilled_server_restarts_with_every_acknowledged_command_and_expires_once(
    servers: Callable[[str], Server], session_factory: async_sessionmaker[AsyncSession]
) -> None:
    server = servers("before")
    await server.ready()
    acknowledged: list[str] = []
    some_acknowledged = asyncio.Event()
    async with httpx.AsyncClient(base_url=server.http, timeout=10) as http:
        game = await new_game(http)
        for station in ("weapons", "pilot"):
            seated = await http.post(
                f"/api/games/{game.id}/seats",
                json={"ship": "kestrel", "station": station, "name": "A"},
            )
            assert seated.status_code == 201
        assert (await game.command(type="StartTurn", seconds=3)).status_code == 200

        async def send(i: int) -> None:
            command_id = f"msg-{i}"
            try:
                response = await game.command(command_id, type="SendMessage", text=f"m{i}")
            except httpx.TransportError:
                return  # the server died first: this one may or may not have been applied
            if response.status_code == 200:
                acknowledged.append(command_id)
                if len(acknowledged) >= 5:
                    some_acknowledged.set()

        # Commands in flight when the server is killed, and the orders timer running out.
        sending = [asyncio.create_task(send(i)) for i in range(30)]
        await asyncio.wait_for(some_acknowledged.wait(), 10)
        server.kill()
        await asyncio.gather(*sending)

    async with session_factory() as session:
        stored = await session.get(Game, uuid.UUID(game.id))
        assert stored is not None and stored.state["phase"] == "orders"
        deadline = stored.state["deadline"]["at"]
    await asyncio.sleep(max(0.0, deadline - time.time()) + 0.5)  # it passes while nobody runs

    # Two processes come back at once: both sweepers find the deadline that passed.
    again, other = servers("after"), servers("other")
    await asyncio.gather(again.ready(), other.ready())
    for _ in range(100):
        async with session_factory() as session:
            stored = await session.get(Game, uuid.UUID(game.id))
            assert stored is not None
            if stored.state["phase"] != "orders":
                break
        await asyncio.sleep(0.1)
    await asyncio.sleep(1.5)  # several more sweeps by both: still only one expiry

    async with session_factory() as session:
        stored = await session.get(Game, uuid.UUID(game.id))
        assert stored is not None
        applied = set(
            (
                await session.scalars(
                    select(AppliedCommand.command_id).where(AppliedCommand.game_id == stored.id)
                )
            ).all()
        )
        expired = await session.scalar(
            select(func.count())
            .select_from(Event)
            .where(Event.game_id == stored.id, Event.type == "TimerExpired")
        )
    assert set(acknowledged) <= applied  # nothing acknowledged was lost
    assert stored.version == len(applied)  # and nothing half-applied
    assert expired == 1
    assert len([c for c in applied if c.startswith("deadline:")]) == 1
    assert await replay_state(session_factory, stored.id) == stored.whole_state

    # A projector reconnecting (to either process) sees exactly the stored game.
    async with connect(f"{other.ws}/ws/display/{game.id}?format=json") as display:
        view = await next_message(display)
    assert view["version"] == stored.version
    assert view["view"] == display_view(stored.whole_state)
