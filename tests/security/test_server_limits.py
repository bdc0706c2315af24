"""What one client can make a real server process hold or wait for: request headers are capped in
size and time, bodies in time, connections and websockets per address in number, and a
websocket's pings are paced and cannot pile up pongs in the server's memory. Meanwhile everyone
else is served."""

import asyncio
import contextlib
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
from websockets.asyncio.client import connect
from websockets.client import ClientProtocol
from websockets.exceptions import ConnectionClosed

from app.service import commands
from tests.processes import ROOT, Server, unread_websocket
from tests.server.conftest import LiveServer, next_message

pytestmark = [pytest.mark.slow, pytest.mark.processes]

MB = 1024 * 1024
StartServer = Callable[..., Awaitable[Server]]
HEADER_TIMEOUT_S = 2.0


@pytest.fixture
async def start_server(db_url: str, tmp_path: Path) -> AsyncIterator[StartServer]:
    started: list[Server] = []

    async def start(**env: str) -> Server:
        server = Server(db_url, tmp_path, f"server{len(started)}", env)
        started.append(server)
        return await server.ready()

    try:
        yield start
    finally:
        for server in started:
            server.stop()


def rss(server: Server) -> int:
    return int(psutil.Process(server.process.pid).memory_info().rss)


@contextmanager
def raw_connection(server: Server, receive_buffer: int | None = None) -> Iterator[socket.socket]:
    sock = socket.socket()
    if receive_buffer is not None:  # before connecting, so the window stays small
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.connect(("127.0.0.1", server.port))
    try:
        yield sock
    finally:
        sock.close()


def read_response(sock: socket.socket) -> bytes:
    """One whole response, which may come in several pieces."""
    sock.settimeout(10)
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    fields = dict(line.split(b": ", 1) for line in head.lower().split(b"\r\n")[1:])
    while len(body) < int(fields[b"content-length"]):
        body += sock.recv(65536)
    return head + b"\r\n\r\n" + body


def closed_by_server(sock: socket.socket, within: float) -> bool:
    """Whether the server closes the connection within `within` seconds (reading what it sends)."""
    deadline = time.monotonic() + within
    while (left := deadline - time.monotonic()) > 0:
        sock.settimeout(left)
        try:
            if not sock.recv(65536):
                return True
        except TimeoutError:
            return False
        except ConnectionError:
            return True
    return False


async def healthz_while(busy: threading.Thread, server: Server) -> list[tuple[int, float]]:
    """Ask /healthz every 50 ms, each on a new connection, until `busy` ends and for a second at
    least: (status, seconds)."""
    answers = []
    at_least = time.monotonic() + 1
    async with httpx.AsyncClient(base_url=server.http, timeout=30) as http:
        while busy.is_alive() or time.monotonic() < at_least:
            started = time.monotonic()
            status = (await http.get("/healthz", headers={"Connection": "close"})).status_code
            answers.append((status, time.monotonic() - started))
            await asyncio.sleep(0.05)
    return answers


async def test_a_huge_header_is_refused_at_once_while_others_are_served(
    start_server: StartServer,
) -> None:
    server = await start_server()
    before = rss(server)
    sent = 0
    took = 0.0

    def attack() -> None:
        nonlocal sent, took
        started = time.monotonic()
        with raw_connection(server) as sock:
            try:
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ")
                chunk = b"a" * MB
                for _ in range(100):
                    sock.sendall(chunk)
                    sent += len(chunk)
            except ConnectionError:
                pass
            took = time.monotonic() - started

    attacker = threading.Thread(target=attack)
    attacker.start()
    answers = await healthz_while(attacker, server)
    attacker.join()

    assert sent < 20 * MB, f"the server read {sent // MB} MB of one header"
    assert took < 5, f"the server took {took:.1f} s to refuse the header"
    assert answers and all(status == 200 for status, _ in answers), answers
    assert max(seconds for _, seconds in answers) < 2, answers
    assert rss(server) - before < 50 * MB


async def test_headers_up_to_the_cap_are_served_and_more_is_refused(
    start_server: StartServer,
) -> None:
    """h11 refuses a head once more than the cap of it waits for its end; a head that arrives
    whole in one read is parsed, so the bound on what a connection holds is the cap plus one
    read (256 KB)."""
    server = await start_server(BRIDGECREW_MAX_HEADER_BYTES=str(32 * 1024))
    async with httpx.AsyncClient(base_url=server.http) as http:
        assert (await http.get("/healthz", headers={"X-Pad": "p" * 30_000})).status_code == 200

    def send_in_pieces() -> bytes:
        with raw_connection(server) as sock:
            try:
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: ")
                for _ in range(12):  # 48 KB, as a slow network delivers it
                    sock.sendall(b"p" * 4096)
                    time.sleep(0.02)
                sock.sendall(b"\r\n\r\n")
            except ConnectionError:
                return b""
            sock.settimeout(10)
            try:
                return sock.recv(65536)
            except ConnectionError:
                return b""

    answer = await asyncio.to_thread(send_in_pieces)
    assert answer == b"" or answer.startswith(b"HTTP/1.1 400"), answer[:100]


async def test_headers_that_trickle_in_are_cut_off_after_the_deadline(
    start_server: StartServer,
) -> None:
    server = await start_server(BRIDGECREW_HEADER_TIMEOUT_S=str(HEADER_TIMEOUT_S))

    def trickle(sock: socket.socket, for_s: float) -> float:
        """Send a header line every 0.3 s; how long until the server closed the connection."""
        started = time.monotonic()
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        while time.monotonic() - started < for_s:
            if closed_by_server(sock, 0.3):
                return time.monotonic() - started
            try:
                sock.sendall(b"X-Slow: 1\r\n")
            except ConnectionError:
                return time.monotonic() - started
        return for_s

    def check() -> None:
        with raw_connection(server) as sock:
            took = trickle(sock, 4 * HEADER_TIMEOUT_S)
            assert HEADER_TIMEOUT_S - 0.5 < took < 2 * HEADER_TIMEOUT_S, f"closed after {took}"
        with raw_connection(server) as silent:
            assert closed_by_server(silent, 2 * HEADER_TIMEOUT_S), "a silent connection stays"
        # On a kept-alive connection the clock starts again with the next request's first byte.
        with raw_connection(server) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            assert read_response(sock).startswith(b"HTTP/1.1 200")
            time.sleep(HEADER_TIMEOUT_S)  # quiet between requests is not the head's time
            took = trickle(sock, 4 * HEADER_TIMEOUT_S)
            assert HEADER_TIMEOUT_S - 0.5 < took < 2 * HEADER_TIMEOUT_S, f"closed after {took}"

    await asyncio.to_thread(check)
    async with httpx.AsyncClient(base_url=server.http) as http:
        assert (await http.get("/healthz")).status_code == 200


async def test_the_deadline_spares_requests_and_websockets_that_take_their_time(
    start_server: StartServer,
) -> None:
    server = await start_server(BRIDGECREW_HEADER_TIMEOUT_S=str(HEADER_TIMEOUT_S))

    def slow_but_whole_requests() -> None:
        with raw_connection(server) as sock:
            for _ in range(4):  # one connection, well past the deadline in all
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
                time.sleep(HEADER_TIMEOUT_S / 3)  # a head in two packets, slowly
                sock.sendall(b"Accept: */*\r\n\r\n")
                assert read_response(sock).startswith(b"HTTP/1.1 200")
                time.sleep(HEADER_TIMEOUT_S / 2)

    async with httpx.AsyncClient(base_url=server.http, timeout=10) as http:
        made = await http.post("/api/games", json={"scenario": "skirmish", "seed": 11})
        game, gm = made.json()["game_id"], {"Authorization": f"Bearer {made.json()['gm_token']}"}
        async with connect(f"{server.ws}/ws/display/{game}?format=json") as display:
            assert (await next_message(display))["version"] == 0
            await asyncio.to_thread(slow_but_whole_requests)
            command = {"command_id": "red", "type": "SetRedAlert", "on": True}
            answer = await http.post(f"/api/games/{game}/commands", headers=gm, json=command)
            assert answer.status_code == 200, answer.text
            assert (await next_message(display))["version"] == 1


def open_websocket(server: Server, path: str) -> tuple[socket.socket, ClientProtocol]:
    return unread_websocket(server.port, path)


def flood_pings(sock: socket.socket, client: ClientProtocol, seconds: float) -> bool:
    """Send the largest pings as fast as the server takes them, reading nothing; whether the
    server closed the socket meanwhile."""
    client.send_ping(b"p" * 125)
    batch = b"".join(client.data_to_send()) * 500  # the same masked frame, over and over
    deadline = time.monotonic() + seconds
    sock.settimeout(1)
    while time.monotonic() < deadline:
        try:
            sock.sendall(batch)
        except TimeoutError:
            continue  # the server is slower than us; keep pushing
        except ConnectionError:
            return True
    return False


async def make_game(server: Server) -> str:
    async with httpx.AsyncClient(base_url=server.http) as http:
        made = await http.post("/api/games", json={"scenario": "skirmish", "seed": 11})
        return str(made.json()["game_id"])


async def test_a_ping_flood_is_closed_and_costs_the_server_no_memory(
    start_server: StartServer,
) -> None:
    server = await start_server()
    game = await make_game(server)
    before = rss(server)
    sock, client = open_websocket(server, f"/ws/display/{game}?format=json")
    with sock:
        closed = await asyncio.to_thread(flood_pings, sock, client, 5.0)
    assert closed, "a client sending pings by the thousand keeps its socket"
    assert rss(server) - before < 10 * MB
    async with connect(f"{server.ws}/ws/display/{game}?format=json") as display:
        assert (await next_message(display))["version"] == 0


async def test_pongs_for_a_client_that_does_not_read_do_not_pile_up(
    start_server: StartServer,
) -> None:
    """With the ping pace out of the way, the bound is the write buffer: only the latest pong
    waits while the client reads nothing."""
    server = await start_server(
        BRIDGECREW_WS_FRAME_RATE="1000000000", BRIDGECREW_WS_FRAME_BURST="1000000000"
    )
    game = await make_game(server)
    before = rss(server)
    sock, client = open_websocket(server, f"/ws/display/{game}?format=json")
    with sock:
        await asyncio.to_thread(flood_pings, sock, client, 5.0)
        grown = rss(server) - before
    assert grown < 10 * MB, f"the server grew by {grown // MB} MB"
    async with httpx.AsyncClient(base_url=server.http) as http:
        assert (await http.get("/healthz")).status_code == 200


BODY_TIMEOUT_S = 2.0
OTHER_ADDRESS = "127.0.0.2"  # loopback too: a second client for a server on 127.0.0.1


async def test_a_body_that_trickles_in_is_cut_off_after_the_deadline(
    start_server: StartServer,
) -> None:
    """A POST whose body comes a byte at a time is answered 408 and closed once the body
    deadline passes, instead of holding its connection (and a file descriptor) for ever."""
    server = await start_server(BRIDGECREW_BODY_TIMEOUT_S=str(BODY_TIMEOUT_S))

    def trickle_body() -> tuple[float, bytes]:
        with raw_connection(server) as sock:
            started = time.monotonic()
            sock.sendall(
                b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: 1000\r\n\r\n{"
            )
            answer = b""
            while time.monotonic() - started < 5 * BODY_TIMEOUT_S:
                sock.settimeout(0.3)
                try:
                    chunk = sock.recv(65536)
                except TimeoutError:
                    chunk = None
                except ConnectionError:
                    break
                if chunk == b"":
                    break
                if chunk:
                    answer += chunk
                    continue
                try:
                    sock.sendall(b" ")
                except ConnectionError:
                    break
            return time.monotonic() - started, answer

    took, answer = await asyncio.to_thread(trickle_body)
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert b"REQUEST_TIMEOUT" in answer
    assert BODY_TIMEOUT_S - 0.5 < took < 3 * BODY_TIMEOUT_S, f"closed after {took:.1f} s"
    async with httpx.AsyncClient(base_url=server.http) as http:
        made = await http.post("/api/games", json={"scenario": "skirmish", "seed": 3})
        assert made.status_code == 201, "a body that comes whole is not held to it"


def other_client(server: Server) -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(local_address=OTHER_ADDRESS)
    return httpx.AsyncClient(base_url=server.http, transport=transport, timeout=10)


async def test_connections_per_address_are_capped_and_other_addresses_are_served(
    start_server: StartServer,
) -> None:
    server = await start_server(BRIDGECREW_CONNECTIONS_PER_ADDRESS="20")

    def hold_and_try_one_more() -> bytes:
        held = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(20)]
        try:
            time.sleep(0.3)  # every one of them accepted by the server
            with raw_connection(server) as extra:
                answer = b""
                extra.settimeout(5)
                with contextlib.suppress(ConnectionError):
                    while chunk := extra.recv(65536):
                        answer += chunk
                return answer
        finally:
            for sock in held:
                sock.close()

    answer = await asyncio.to_thread(hold_and_try_one_more)
    assert answer.startswith(b"HTTP/1.1 503") and b"TOO_MANY_CONNECTIONS" in answer, answer[:200]
    async with other_client(server) as http:
        assert (await http.get("/healthz")).status_code == 200
    await asyncio.sleep(0.3)  # the held connections are gone: the address is served again
    async with httpx.AsyncClient(base_url=server.http) as http:
        assert (await http.get("/healthz")).status_code == 200


async def test_websockets_per_address_are_capped_with_a_close_code_that_is_not_retried(
    start_server: StartServer,
) -> None:
    """The projector's sockets count too. Over the cap, the socket is accepted and closed with
    4429 and a reason: a 4xxx close is not one htmx-ext-ws reconnects after."""
    server = await start_server(BRIDGECREW_SOCKETS_PER_ADDRESS="5")
    game = await make_game(server)
    url = f"{server.ws}/ws/display/{game}?format=json"
    async with contextlib.AsyncExitStack() as stack:
        sockets = [await stack.enter_async_context(connect(url)) for _ in range(5)]
        for display in sockets:
            assert (await next_message(display))["version"] == 0
        async with connect(url) as refused:
            with pytest.raises(ConnectionClosed) as closed:
                await asyncio.wait_for(refused.recv(), 5)
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == 4429 and "TOO_MANY_SOCKETS" in closed.value.rcvd.reason
        async with connect(url, local_addr=(OTHER_ADDRESS, 0)) as elsewhere:
            assert (await next_message(elsewhere))["version"] == 0
        await sockets[0].close()
        await asyncio.sleep(0.2)
        async with connect(url) as again:  # a closed socket frees its place
            assert (await next_message(again))["version"] == 0


def test_the_server_raises_its_file_limit_to_the_hard_limit() -> None:
    """A process started with the common soft limit of 1,024 file descriptors (or less) runs
    with the hard limit, so an address's capped connections cannot use them all."""
    probe = (
        "import resource\n"
        "soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))\n"
        "from app.web.serving import raise_file_limit\n"
        "raise_file_limit()\n"
        "print(resource.getrlimit(resource.RLIMIT_NOFILE)[0], hard)\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    )
    soft, hard = (int(n) for n in ran.stdout.split())
    assert soft == hard or soft >= 65536, ran.stdout


async def test_a_slow_view_does_not_hold_other_requests(
    live: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """However long one game's view takes to build (a game at the cap on ships, read over and
    over by strangers), it is built off the event loop: /healthz is answered while the view is
    still being built. The view here waits until the test lets it go, so the proof is the order
    of events, not a time limit."""
    real = commands.display_view  # type: ignore[attr-defined]
    building, released, built = threading.Event(), threading.Event(), threading.Event()

    def slow_display_view(*args: Any, **kwargs: Any) -> Any:
        building.set()
        released.wait(10)  # on the event loop, this would hold /healthz for the whole wait
        try:
            return real(*args, **kwargs)
        finally:
            built.set()

    async with httpx.AsyncClient(base_url=live.http, timeout=30) as http:
        made = await http.post("/api/games", json={"scenario": "skirmish", "seed": 5})
        game = made.json()["game_id"]
        monkeypatch.setattr(commands, "display_view", slow_display_view)
        reads = [
            asyncio.create_task(http.get(f"/api/games/{game}/view")),
            asyncio.create_task(http.get(f"/display/{game}")),
        ]
        assert await asyncio.to_thread(building.wait, 10), "no view began to build"
        assert (await http.get("/healthz")).status_code == 200
        answered_while_building = not built.is_set()
        released.set()
        assert all(answer.status_code == 200 for answer in await asyncio.gather(*reads))
    assert answered_while_building, "/healthz waited for another game's view to be built"
