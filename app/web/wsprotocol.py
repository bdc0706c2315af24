"""uvicorn's websocket protocol with permessage-deflate that keeps no state between messages.

uvicorn compresses each socket with its own zlib stream kept for the socket's life: ~47 KB per
socket, more than everything else this server holds for a phone (bench/load.py). With
`no_context_takeover` each message is compressed on its own and the zlib state is freed after
it, so an idle socket holds none. The price is a little ratio on repeated content; pushes are
whole HTML panels, which compress well on their own. RFC 7692 lets a server ask this of any
client that offers the extension, and every browser does.

Run uvicorn with `--ws app.web.wsprotocol:CompactDeflateProtocol` (`bridgecrew serve` does).
"""

from __future__ import annotations

import logging
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory
from websockets.server import ServerProtocol

WS_PROTOCOL = "app.web.wsprotocol:CompactDeflateProtocol"
WINDOW_BITS = 12  # uvicorn's own choice: 4 KB of history is plenty within one message
MEM_LEVEL = 5
# zlib's fastest level. On this server's pushes (whole HTML panels, 5.3 KB on average) it takes
# 38 µs a message against level 6's 66 µs, and sends 22 % of the bytes against 19 %: ~0.2 KB
# more per push, nothing on a local network, while deflate was the largest single item in a
# profile of the server under load (docs/performance.md, eighth pass).
LEVEL = 1


def deflate_factory() -> ServerPerMessageDeflateFactory:
    return ServerPerMessageDeflateFactory(
        server_no_context_takeover=True,
        client_no_context_takeover=True,
        server_max_window_bits=WINDOW_BITS,
        client_max_window_bits=WINDOW_BITS,
        compress_settings={"level": LEVEL, "memLevel": MEM_LEVEL},
    )


class CompactDeflateProtocol(WebSocketsSansIOProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.config.ws_per_message_deflate:
            self.conn = ServerProtocol(
                extensions=[deflate_factory()],
                max_size=self.config.ws_max_size,
                logger=logging.getLogger("uvicorn.error"),
            )
