"""How uvicorn serves the app: the options `bridgecrew serve` and the tests' servers share.

Each bounds what one client can make the server hold or wait for:
* h11, not uvicorn's default httptools: httptools reads request headers of any size (one 100 MB
  header stalled every client for 17 s), while h11 answers 400 and closes the connection once
  more than `max_header_bytes` of a request's first line and headers wait for their end. (A head
  that arrives whole in one read, at most 256 KB, is parsed: a connection holds the cap plus one
  read at most.) A hand-written cap in front of httptools would have to know where each body
  ends to tell the next head from it; h11 does. It is pure Python: about 0.1 ms more CPU per
  request than httptools here (a 404 through the whole app: ~0.65 ms against ~0.58 ms), against
  the ~13 ms a command costs (docs/performance.md); websockets, which carry the pushes, leave it
  after the handshake.
* a deadline for those headers (app.web.httpprotocol), which uvicorn does not have;
* websocket frames up to `ws_max_frame_bytes`, and pings paced like frames (app.web.wsprotocol).

There is no cap on connections (uvicorn's `limit_concurrency`): reaching it answers 503 to
everyone, the phones and /healthz included, which is what an attacker would want. Each
connection is bounded instead: its headers in size and time, its body by app.web.errors.BodyLimit,
its socket by the limits above.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from app.settings import Settings
from app.web.httpprotocol import HeadDeadline
from app.web.wsprotocol import CompactDeflateProtocol


def server_options(settings: Settings) -> dict[str, Any]:
    """Keyword arguments for uvicorn.run (or uvicorn.Config), apart from the app and address.

    The protocols are partials of module-level classes, so uvicorn can hand them to worker
    processes."""
    return {
        "http": partial(HeadDeadline, timeout=settings.header_timeout_s),
        "h11_max_incomplete_event_size": settings.max_header_bytes,
        "ws": partial(
            CompactDeflateProtocol,
            ping_rate=settings.ws_frame_rate,
            ping_burst=settings.ws_frame_burst,
        ),
        "ws_max_size": settings.ws_max_frame_bytes,
        # Phones keep websockets open; without this, Ctrl-C waits for every phone to leave.
        "timeout_graceful_shutdown": 5,
    }
