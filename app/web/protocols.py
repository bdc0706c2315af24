"""The two guards uvicorn has no setting for, in the one module that leans on its internals
(tests/test_private_apis.py pins the version they were written against).

* `HeadDeadline` wraps uvicorn's h11 protocol. Nothing in uvicorn bounds how long a request's
  first line and headers may take to arrive: its keep-alive timer covers only the quiet between
  requests and stops at the first byte of the next, so a client that trickles a header a few
  bytes at a time (slowloris) holds its connection for ever, and many such clients hold the
  server. A clock starts when a connection opens, and again at the first byte of each later
  request; the connection is closed if the blank line that ends the headers has not come when
  it runs out. The same wrapper counts each client address's open connections and refuses one
  over the cap with 503, so one address cannot take every file descriptor the process has.
  The size of the headers is h11's to limit (`h11_max_incomplete_event_size`).
* `PacedPings` is uvicorn's websockets-sansio protocol with a pace for the client's pings.
  uvicorn answers every ping at once, whatever the pace and whether or not the peer reads, so one
  client that sent pings and never read could grow the server without bound. Here pings have a
  pace like other frames (too fast: closed with 1008), and while the transport's buffer is over
  its high-water mark only the latest pong waits for it to drain, as RFC 6455 (5.5.3) allows.

`bridgecrew serve` passes both with the settings' limits (app.web.serving).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections import Counter
from typing import Any, cast

from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState

from app.pace import TokenBuckets
from app.settings import Settings
from app.web.limits import CLOSE_POLICY, address_key

log = logging.getLogger("uvicorn.error")

WS_PROTOCOL = "app.web.protocols:PacedPings"
SHIPPED = Settings.model_construct()  # the defaults, for a server started without the settings
# Where headers end: an empty line, with or without carriage returns (h11 accepts both).
HEAD_END = re.compile(rb"\n\r?\n")


class OpenConnections:
    """Open connections per client address, in one process, against a cap."""

    def __init__(self, per_address: int) -> None:
        self.per_address = per_address
        self.open: Counter[str] = Counter()

    def admit(self, address: str) -> bool:
        if self.open[address] >= self.per_address:
            return False
        self.open[address] += 1
        return True

    def release(self, address: str) -> None:
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]


def too_many_connections(per_address: int) -> bytes:
    body = json.dumps(
        {
            "code": "TOO_MANY_CONNECTIONS",
            "message": f"At most {per_address} connections from one address: close some first.",
        }
    ).encode()
    head = (
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nretry-after: 10\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


class HeadDeadline(asyncio.Protocol):
    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
        *,
        timeout: float = SHIPPED.header_timeout_s,
        connections: OpenConnections | None = None,
    ) -> None:
        self.inner = H11Protocol(
            config=config, server_state=server_state, app_state=app_state, _loop=_loop
        )
        self.timeout = timeout
        self.connections = connections
        self.address: str | None = None  # counted against the cap while the connection is open
        self.transport: asyncio.Transport | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.in_head = True  # the next bytes are a request's first line and headers
        self.tail = b""  # the end of the last chunk, in case the empty line spans two
        self.websocket = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        if self.connections is not None:
            peer = transport.get_extra_info("peername")
            address = address_key(str(peer[0]) if peer else "?")
            if not self.connections.admit(address):
                self.transport.write(too_many_connections(self.connections.per_address))
                self.transport.close()
                return
            self.address = address
        self.arm()  # a connection that never sends anything is cut off too
        watched = WatchedTransport(self.transport, self)
        self.inner.connection_made(cast(asyncio.Transport, watched))

    def refused(self) -> bool:
        return self.connections is not None and self.address is None

    def data_received(self, data: bytes) -> None:
        if self.refused():
            return
        if self.in_head:
            if HEAD_END.search(self.tail + data[:2]) or HEAD_END.search(data):
                self.in_head = False
                self.disarm()
            else:
                self.tail = (self.tail + data)[-2:]
                if self.timer is None:
                    self.arm()
        self.inner.data_received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.refused():
            return
        self.left()
        self.disarm()
        self.inner.connection_lost(exc)

    def left(self) -> None:
        """The connection no longer counts against its address (closed, or now a websocket's,
        whose protocol is another object: the socket caps of app.web.limits count those)."""
        if self.connections is not None and self.address:
            self.connections.release(self.address)
            self.address = ""  # released, and not refused

    def eof_received(self) -> None:
        if not self.refused():
            self.inner.eof_received()

    def pause_writing(self) -> None:
        if not self.refused():
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if not self.refused():
            self.inner.resume_writing()

    def response_started(self) -> None:
        """What the client sends next is the next request (or the rest of a body the app did not
        wait for, which is closed the same way if it never ends)."""
        if not self.websocket and not self.in_head:
            self.in_head = True
            self.tail = b""

    def became_websocket(self) -> None:
        self.left()
        self.websocket = True
        self.in_head = False
        self.disarm()

    def arm(self) -> None:
        self.timer = asyncio.get_running_loop().call_later(self.timeout, self.expire)

    def disarm(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def expire(self) -> None:
        self.timer = None
        if self.in_head and self.transport is not None and not self.transport.is_closing():
            log.debug("closing a connection whose request headers took over %s s", self.timeout)
            self.transport.close()


class WatchedTransport:
    """The transport as the h11 protocol sees it: a response's status line and the hand-over to
    a websocket are reported to the guard; everything else goes straight to the transport."""

    def __init__(self, transport: asyncio.Transport, guard: HeadDeadline) -> None:
        self.transport = transport
        self.guard = guard

    def write(self, data: bytes | bytearray | memoryview) -> None:
        # uvicorn writes a status line and its headers in one piece. 1xx (100 Continue) is not a
        # response: the body comes after it.
        if bytes(data[:5]) == b"HTTP/" and bytes(data[9:10]) != b"1":
            self.guard.response_started()
        self.transport.write(data)

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self.guard.became_websocket()
        self.write = self.transport.write  # type: ignore[method-assign]  # nothing left to watch
        self.transport.set_protocol(protocol)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.transport, name)
        setattr(self, name, value)  # later look-ups skip __getattr__
        return value


class PacedPings(WebSocketsSansIOProtocol):
    def __init__(
        self,
        *args: Any,
        ping_rate: float = SHIPPED.ws_frame_rate,
        ping_burst: int = SHIPPED.ws_frame_burst,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.pings = TokenBuckets(ping_rate, ping_burst)
        self.waiting_pong = b""

    def handle_ping(self) -> None:
        # The sans-I/O connection has queued the pong already; nothing else is queued, because
        # uvicorn sends everything else as soon as it makes it.
        pongs = self.conn.data_to_send()
        if self.pings.take("ping"):
            self.refuse(CLOSE_POLICY, "RATE_LIMITED: too many pings")
        elif self.writable.is_set():
            self.transport.write(b"".join(pongs))
        elif pongs:
            self.waiting_pong = pongs[-1]

    def resume_writing(self) -> None:
        super().resume_writing()
        if self.waiting_pong and not self.transport.is_closing():
            self.transport.write(self.waiting_pong)
        self.waiting_pong = b""

    def refuse(self, code: int, reason: str) -> None:
        """Close the socket from here, as uvicorn does when a keepalive ping goes unanswered; the
        app then receives websocket.disconnect."""
        if self.close_sent or self.transport.is_closing():
            return
        self.conn.fail(code, reason)
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        self.transport.close()
