"""uvicorn's h11 protocol, with a deadline for each request's first line and headers.

Nothing in uvicorn bounds how long a request may take to arrive: its keep-alive timer covers only
the quiet between requests and stops at the first byte of the next, so a client that trickles a
header a few bytes at a time (slowloris) holds its connection for ever, and many such clients hold
the server. This guard starts a clock when a connection opens, and again at the first byte of
each later request, and closes the connection if the blank line that ends the headers has not
come when the clock runs out. Requests that arrive whole stop the clock at once.

It wraps the protocol rather than subclassing it, and learns when a response starts from the
writes it passes on; once the connection becomes a websocket (uvicorn hands the transport to the
websocket protocol) it steps aside. The size of the headers is h11's to limit
(`h11_max_incomplete_event_size`), which is why this wraps the h11 protocol and not httptools,
which has no such limit.
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any, cast

from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

log = logging.getLogger("uvicorn.error")

# Where headers end: an empty line, with or without carriage returns (h11 accepts both).
HEAD_END = re.compile(rb"\n\r?\n")


class HeadDeadline(asyncio.Protocol):
    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
        *,
        timeout: float = 20.0,
    ) -> None:
        self.inner = H11Protocol(
            config=config, server_state=server_state, app_state=app_state, _loop=_loop
        )
        self.timeout = timeout
        self.transport: asyncio.Transport | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.in_head = True  # the next bytes are a request's first line and headers
        self.tail = b""  # the end of the last chunk, in case the empty line spans two
        self.websocket = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        self.arm()  # a connection that never sends anything is cut off too
        watched = WatchedTransport(self.transport, self)
        self.inner.connection_made(cast(asyncio.Transport, watched))

    def data_received(self, data: bytes) -> None:
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
        self.disarm()
        self.inner.connection_lost(exc)

    def eof_received(self) -> None:
        self.inner.eof_received()

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    def response_started(self) -> None:
        """What the client sends next is the next request (or the rest of a body the app did not
        wait for, which is closed the same way if it never ends)."""
        if not self.websocket and not self.in_head:
            self.in_head = True
            self.tail = b""

    def became_websocket(self) -> None:
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
