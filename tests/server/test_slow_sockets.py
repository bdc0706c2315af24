"""A socket that does not read is dropped, not buffered: what waits for it is bounded in bytes
(app/web/live/hub.py, OUTBOX_BYTES), and past that it is closed with 1013 (try again
later, after which htmx-ext-ws reconnects). Every other screen of the game goes on as before."""

import asyncio
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.client import ClientProtocol
from websockets.frames import Close
from websockets.uri import parse_uri

from app.settings import Settings
from app.web.live import hub

from .conftest import AsyncTable, LiveServer, next_message


@pytest.fixture
def settings(db_url: str, tmp_path: Path) -> Settings:
    return Settings(database_url=db_url, data_dir=tmp_path, command_rate=1000.0)


@pytest.fixture
async def table(live: LiveServer) -> AsyncIterator[AsyncTable]:
    async with httpx.AsyncClient(base_url=live.http, timeout=10) as http:
        yield await AsyncTable(http).create()


SENT_BUFFER_BYTES = 6 * 1024 * 1024  # above net.ipv4.tcp_wmem's largest send buffer, 4 MB


def _never_reading(url: str) -> tuple[socket.socket, ClientProtocol]:
    """A websocket whose client takes the handshake's answer and then reads nothing, with a
    small receive window so the server's side fills soon."""
    protocol = ClientProtocol(parse_uri(url))
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    uri = parse_uri(url)
    sock.connect((uri.host, uri.port))
    protocol.send_request(protocol.connect())
    sock.sendall(b"".join(protocol.data_to_send()))
    while not protocol.events_received() and protocol.handshake_exc is None:
        protocol.receive_data(sock.recv(1))  # one byte at a time: no frame is taken early
    assert protocol.handshake_exc is None
    return sock, protocol


async def test_a_socket_that_never_reads_is_closed_and_the_others_go_on(
    live: LiveServer, table: AsyncTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hub, "OUTBOX_BYTES", 64 * 1024)  # over one whole view of this game
    monkeypatch.setattr(hub, "CLOSE_SECONDS", 0.5)
    url = f"{live.ws}/ws/display/{table.game_id}?format=json"
    stalled, protocol = await asyncio.to_thread(_never_reading, url)
    try:
        async with connect(url) as reading:
            await next_message(reading)
            pushed = 0  # what a reading screen was sent meanwhile
            turn = 0
            while pushed < SENT_BUFFER_BYTES:  # past what the kernel may hold for the socket
                turn += 1
                command = {"type": "SendMessage", "text": f"{turn:>3} " * 70}
                version = (await table.gm_command(**command))["version"]
                push = await asyncio.wait_for(reading.recv(), 10)
                assert f'"version": {version}' in push
                pushed += len(push)
            await asyncio.sleep(1.5)  # the close frame's wait gives up
            # Now read what the stalled socket was sent: it ends, well before the last push.
            stalled.setblocking(False)
            received = 0
            closed = False
            loop = asyncio.get_running_loop()
            while not closed:
                try:
                    data = await asyncio.wait_for(loop.sock_recv(stalled, 65536), 5)
                except TimeoutError:
                    break
                if not data:
                    closed = True
                    break
                received += len(data)
                protocol.receive_data(data)
                for frame in protocol.events_received():
                    if isinstance(frame, Close) or getattr(frame, "opcode", None) == 8:
                        closed = True
        assert closed, "the server kept the stalled socket open"
        assert received < pushed / 2, (received, pushed)
    finally:
        stalled.close()


async def test_a_socket_s_outbox_is_bounded_in_bytes_not_in_messages() -> None:
    """Four pushes of a quarter of the bound fit; one character more and the socket is closed
    with 1013, however few messages that is."""
    phone = hub.Connection(None, "display", "display", "html")  # type: ignore[arg-type]
    quarter = "x" * (hub.OUTBOX_BYTES // 4)
    for version in range(4):
        phone.offer(version, quarter)
    assert not phone.closed
    phone.offer(5, "x")
    assert phone.closed and phone.close_code == hub.CLOSE_TRY_AGAIN
