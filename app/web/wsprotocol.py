"""uvicorn's websocket protocol with permessage-deflate that keeps no state between messages and
compresses only large ones.

uvicorn compresses each socket with its own zlib stream kept for the socket's life: ~47 KB per
socket, more than everything else this server holds for a phone (bench/load.py). With
`no_context_takeover` each message is compressed on its own and the zlib state is freed after
it, so an idle socket holds none. The price is a little ratio on repeated content; pushes are
whole HTML panels, which compress well on their own. RFC 7692 lets a server ask this of any
client that offers the extension, and every browser does.

Messages under 16 KB go uncompressed (RFC 7692 lets a sender leave any message so: its RSV1 bit
is clear). Those are most pushes after a command (5 KB on average to a station): on a local
network, about a millisecond of air at 50 Mbit/s, and deflating them was 7 % of the server's CPU
at 200 commands/s. What is compressed is where the bytes are: a screen's whole view when a phone
(re)connects (10-45 KB), and the larger pushes of a new turn, about half the bytes pushed after
commands (docs/performance.md, thirteenth pass).

Pings get the care uvicorn does not give them. It answers every ping at once, whatever the pace and
whether or not the peer reads: one client that sent pings and never read grew the server by 170 MB
in 10 s. Here pings have a pace like other frames (too fast: closed with 1008), and while the
transport's buffer is over its high-water mark only the latest pong waits for it to drain, which
RFC 6455 (5.5.3) allows.

uvicorn has no public hook for either (its only deflate setting is on/off), so this subclasses its
websockets-sansio protocol, and websockets' PerMessageDeflate for the size rule;
tests/test_private_apis.py fails loudly when either's version changes.
`bridgecrew serve` passes it with the settings' limits (app.web.serving);
`--ws app.web.wsprotocol:CompactDeflateProtocol` gives it with the default ones.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.extensions.permessage_deflate import (
    PerMessageDeflate,
    ServerPerMessageDeflateFactory,
)
from websockets.frames import Frame, Opcode
from websockets.server import ServerProtocol

from app.web.limits import CLOSE_POLICY, Limits, TokenBuckets

WS_PROTOCOL = "app.web.wsprotocol:CompactDeflateProtocol"
WINDOW_BITS = 12  # uvicorn's own choice: 4 KB of history is plenty within one message
MEM_LEVEL = 5
# zlib's fastest level. On this server's pushes (whole HTML panels, 5.3 KB on average) it takes
# 38 µs a message against level 6's 66 µs, and sends 22 % of the bytes against 19 %: ~0.2 KB
# more per push, nothing on a local network, while deflate was the largest single item in a
# profile of the server under load (docs/performance.md, eighth pass).
LEVEL = 1
MIN_DEFLATE_BYTES = 16 * 1024


class LargeOnlyDeflate(PerMessageDeflate):
    """permessage-deflate that sends messages under MIN_DEFLATE_BYTES as they are."""

    def encode(self, frame: Frame) -> Frame:
        whole = frame.opcode is not Opcode.CONT and frame.fin  # uvicorn sends a message whole
        if whole and len(frame.data) < MIN_DEFLATE_BYTES:
            return frame
        return super().encode(frame)


class LargeOnlyDeflateFactory(ServerPerMessageDeflateFactory):
    def process_request_params(
        self, params: Sequence[tuple[str, str | None]], accepted_extensions: Sequence[Any]
    ) -> tuple[list[tuple[str, str | None]], PerMessageDeflate]:
        answer, agreed = super().process_request_params(params, accepted_extensions)
        return answer, LargeOnlyDeflate(
            agreed.remote_no_context_takeover,
            agreed.local_no_context_takeover,
            agreed.remote_max_window_bits,
            agreed.local_max_window_bits,
            agreed.compress_settings,
        )


def deflate_factory() -> ServerPerMessageDeflateFactory:
    return LargeOnlyDeflateFactory(
        server_no_context_takeover=True,
        client_no_context_takeover=True,
        server_max_window_bits=WINDOW_BITS,
        client_max_window_bits=WINDOW_BITS,
        compress_settings={"level": LEVEL, "memLevel": MEM_LEVEL},
    )


class CompactDeflateProtocol(WebSocketsSansIOProtocol):
    def __init__(
        self,
        *args: Any,
        ping_rate: float = Limits.frame_rate,
        ping_burst: int = Limits.frame_burst,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        if self.config.ws_per_message_deflate:
            self.conn = ServerProtocol(
                extensions=[deflate_factory()],
                max_size=self.config.ws_max_size,
                logger=logging.getLogger("uvicorn.error"),
            )
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
