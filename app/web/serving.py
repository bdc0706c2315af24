"""How uvicorn serves the app: the options `bridgecrew serve` and the tests' servers share.

Each bounds what one client can make the server hold or wait for:
* h11, not uvicorn's default httptools: httptools reads request headers of any size (one huge
  header stalls every client while it is read), while h11 answers 400 and closes the connection
  once more than `max_header_bytes` of a request's first line and headers wait for their end.
  (A head that arrives whole in one read, at most 256 KB, is parsed: a connection holds the cap
  plus one read at most.) Websockets, which carry the pushes, leave h11 after the handshake.
* a deadline for those headers, and open connections per client address capped
  (app.web.protocols), which uvicorn has no setting for;
* websocket frames up to `ws_max_frame_bytes`, and pings paced like frames (app.web.protocols);
  permessage-deflate as the settings say (uvicorn's own).

There is no cap on connections in all (uvicorn's `limit_concurrency`): reaching it answers 503 to
everyone, the phones and /healthz included, which is what an attacker would want. The caps are
per address instead, and each connection is bounded: its headers in size and time, its body in
size and time (app.web.errors.BodyLimit), its socket by the limits above.
"""

from __future__ import annotations

import logging
import resource
from functools import partial
from typing import Any

from app.settings import Settings
from app.web.protocols import HeadDeadline, OpenConnections, PacedPings

log = logging.getLogger(__name__)

# Below this many file descriptors, a few hundred phones and the database pool may not fit.
FILES_NEEDED = 4096


def server_options(settings: Settings) -> dict[str, Any]:
    """Keyword arguments for uvicorn.run (or uvicorn.Config), apart from the app and address.

    The protocols are partials of module-level classes, so uvicorn can hand them to worker
    processes; each process counts its own connections."""
    return {
        "http": partial(
            HeadDeadline,
            timeout=settings.header_timeout_s,
            connections=OpenConnections(settings.connections_per_address),
        ),
        "h11_max_incomplete_event_size": settings.max_header_bytes,
        "ws": partial(
            PacedPings, ping_rate=settings.ws_frame_rate, ping_burst=settings.ws_frame_burst
        ),
        "ws_max_size": settings.ws_max_frame_bytes,
        "ws_per_message_deflate": settings.ws_deflate,
        # Phones keep websockets open; without this, Ctrl-C waits for every phone to leave.
        "timeout_graceful_shutdown": 5,
    }


def raise_file_limit() -> int:
    """Every connection holds a file descriptor, and many systems start a process with a soft
    limit of 1,024: raise it to the hard limit, which needs no privilege. The limit in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):  # macOS caps it below the hard limit it reports
            pass
    if soft != resource.RLIM_INFINITY and soft < FILES_NEEDED:
        log.warning(
            "this process may open only %d files; raise the hard limit to %d or more "
            "(ulimit -Hn, or LimitNOFILE= in a systemd unit) so phones are not refused",
            soft,
            FILES_NEEDED,
        )
    return soft
