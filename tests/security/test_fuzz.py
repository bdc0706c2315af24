"""Bad input: generated HTTP requests never get a 5xx nor change anything when refused, and
garbage over websockets neither harms the server nor the screens that behave."""

import asyncio
import os
import random
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi.testclient import TestClient
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from tests.server.conftest import AsyncTable, LiveServer, next_message

from .fuzzing import World, fuzz

# A few hundred requests keep `make test` quick; bench/fuzz_api.py runs thousands.
REQUESTS = int(os.environ.get("BRIDGECREW_FUZZ_REQUESTS", "300"))


@pytest.mark.slow
def test_generated_requests_get_no_5xx_and_refusals_change_nothing(
    unlimited_client: TestClient,
) -> None:
    report = fuzz(unlimited_client, World(unlimited_client), REQUESTS, seed=20240601)
    assert report.tried >= REQUESTS * 0.9, report.summary()
    assert not report.server_errors, "\n".join([report.summary(), *report.server_errors[:5]])
    assert not report.changed_when_refused, "\n".join(report.changed_when_refused[:5])
    # The run reached past authentication into the rules, not only the front door.
    assert report.statuses[200] and report.statuses[400] and report.statuses[403]


# --- Websockets -----------------------------------------------------------------------------------


@pytest.fixture
async def table(live: LiveServer) -> AsyncIterator[AsyncTable]:
    async with httpx.AsyncClient(base_url=live.http, timeout=10) as http:
        yield await AsyncTable(http).create()


async def close_of(socket: ClientConnection) -> tuple[int | None, str | None]:
    with pytest.raises(ConnectionClosed):
        while True:
            await asyncio.wait_for(socket.recv(), 10)
    return socket.close_code, socket.close_reason


async def test_a_frame_over_the_limit_closes_that_socket_with_1009_and_a_reason(
    live: LiveServer, table: AsyncTable
) -> None:
    url = f"{live.ws}/ws/display/{table.game_id}?format=json"
    async with connect(url, max_size=None) as text_socket, connect(url) as binary_socket:
        await next_message(text_socket)
        await next_message(binary_socket)
        await text_socket.send("x" * (64 * 1024 + 1))
        code, reason = await close_of(text_socket)
        assert code == 1009 and reason and reason.startswith("TOO_LARGE")
        await binary_socket.send(b"\0" * (64 * 1024 + 1))
        assert (await close_of(binary_socket))[0] == 1009


async def test_a_flood_of_frames_closes_that_socket_with_1008(
    live: LiveServer, table: AsyncTable
) -> None:
    async with connect(f"{live.ws}/ws/display/{table.game_id}?format=json") as socket:
        await next_message(socket)
        for i in range(200):
            try:
                await socket.send(f"spam {i}")
            except ConnectionClosed:
                break
        code, reason = await close_of(socket)
        assert code == 1008 and reason and reason.startswith("RATE_LIMITED")


@pytest.mark.slow
async def test_garbage_frames_and_a_thousand_connections_leave_the_server_serving(
    live: LiveServer, table: AsyncTable
) -> None:
    seat = await table.seat("weapons")
    rng = random.Random(11)
    station = f"{live.ws}/ws/station/{table.game_id}?format=json&token={seat['seat_token']}"
    async with connect(f"{live.ws}/ws/display/{table.game_id}?format=json") as observer:
        await next_message(observer)
        tasks_before = len(asyncio.all_tasks())

        # A noisy client: odd text, binary and control frames, slowly enough not to be cut off.
        async with connect(station) as noisy:
            await next_message(noisy)
            for _ in range(40):
                garbage = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))
                if rng.random() < 0.5:
                    await noisy.send(garbage.decode("latin-1"))
                else:
                    await noisy.send(garbage)
                await noisy.ping()
                await asyncio.sleep(0.06)
            await table.gm_command(type="SendMessage", text="still here")
            assert (await next_message(noisy))["view"]["messages"][-1]["text"] == "still here"

        # A thousand sockets that come and go: good ones, refused ones, and some that just vanish.
        paths = [
            f"/ws/display/{table.game_id}?format=json",
            f"/ws/station/{table.game_id}?token=wrong",
            f"/ws/gm/{table.game_id}?token={table.gm_token}&format=json",
            f"/ws/events/{table.game_id}",
            "/ws/display/not-a-game",
            f"/ws/display/{table.game_id}?format=xml",
        ]

        async def come_and_go(i: int) -> None:
            try:
                async with connect(live.ws + paths[i % len(paths)], open_timeout=20) as socket:
                    if i % 3 == 0:
                        socket.transport.abort()  # gone without a close frame
                    elif i % 3 == 1:
                        await asyncio.wait_for(socket.recv(), 10)
            except (ConnectionClosed, InvalidStatus, OSError):
                pass

        for start in range(0, 1000, 25):
            await asyncio.gather(*(come_and_go(i) for i in range(start, start + 25)))

        await table.gm_command(type="SetRedAlert", on=True)
        update = await next_message(observer)
        while not update["view"]["game"]["red_alert"]:  # the message before it came first
            update = await next_message(observer)
        async with httpx.AsyncClient(base_url=live.http) as http:
            health = (await http.get("/healthz")).json()
        assert health["status"] == "ok"
        for _ in range(50):  # the sockets' tasks wind down; none may be left behind
            if len(asyncio.all_tasks()) <= tasks_before + 2:
                break
            await asyncio.sleep(0.1)
        assert len(asyncio.all_tasks()) <= tasks_before + 2


def test_what_postgresql_cannot_store_is_refused_as_the_callers_mistake(
    unlimited_client: TestClient,
) -> None:
    """A NUL in text or a number past 32 bits once reached the database and came back as 503."""
    client = unlimited_client
    world = World(client)
    gm = {"Authorization": f"Bearer {world.gm_token}"}
    base = f"/api/games/{world.game_id}"
    seat = client.post(f"{base}/seats", json={"ship": "kestrel", "station": "comms", "name": "a\0"})
    assert seat.status_code == 422 and seat.json()["code"] == "BAD_REQUEST"
    command = {"command_id": "nul\0", "type": "SendMessage", "text": "hi"}
    assert client.post(f"{base}/commands", json=command, headers=gm).status_code == 422
    half_a_pair = '{"command_id": "t", "type": "SendMessage", "text": "\\ud800"}'  # JSON escape
    json_body = {**gm, "Content-Type": "application/json"}
    assert (
        client.post(f"{base}/commands", content=half_a_pair, headers=json_body).status_code == 422
    )
    assert client.get(f"{base}/events", params={"after": 2**40}).status_code == 422
    # The phone's join form checks names as the API does (tests/security/test_names.py).
    client.get(f"/join/{world.join_code}")
    joined = client.post(
        f"/join/{world.join_code}",
        data={"seat": "kestrel/comms", "name": "a\0b", "csrf": client.cookies["bc_csrf"]},
    )
    assert joined.status_code == 400 and 'data-code="BAD_NAME"' in joined.text
