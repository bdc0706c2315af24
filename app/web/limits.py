"""How much one caller may ask of the server: commands per second per seat or GM token (or per
address for everyone else), reads per address, unknown join codes per address, open websockets
per address, and the size and pace of websocket frames. The figures are the settings'
(app.settings); the counts are in memory, per process: a restart forgives everyone.
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
from collections import Counter
from collections.abc import Callable

from sqlalchemy.exc import DBAPIError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.pace import TokenBuckets
from app.rules.core.messages import message
from app.service import ServiceError
from app.settings import Settings
from app.web.deps import Gm, Seated, path_caller
from app.web.errors import refusal
from app.web.security import UNSAFE_METHODS

CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009
# A 4xxx code: htmx-ext-ws reconnects only after 1006/1011/1012/1013, and the screens' script
# (static/js/app.js) waits for the player rather than reloading, so a refused socket stays shut.
CLOSE_TOO_MANY_SOCKETS = 4429


def client_address(scope: Scope) -> str:
    """The caller's address as a key. IPv6 by its /64: one phone or home holds a whole /64, and
    each of its addresses would otherwise have a fresh bucket."""
    client = scope.get("client")
    return address_key(client[0] if client else "?")


def address_key(host: str) -> str:
    """`client_address` for a host as the transport reports it."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return f"address:{host}"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return f"address:{ip.ipv4_mapped}"
        return f"address:{ipaddress.IPv6Network((ip, 64), strict=False)}"
    return f"address:{ip}"


def _joining(path: str) -> bool:
    """A join through the API: each join makes a new token, so counting it against a token would
    let every seat buy the next one a fresh bucket."""
    segments = path.split("/")
    return segments[1:3] == ["api", "games"] and segments[4:] == ["seats"]


async def caller_key(scope: Scope) -> tuple[str, bool]:
    """(key, verified): a seat's or the GM's token, hashed, once it is known to open the game in
    the path (`path_caller`: the same look-up the route then reads, not a second one); anything
    else (no token, a junk one, a freed seat's, another game's, a join) is the client's address,
    so making up tokens buys no fresh allowance."""
    if not _joining(scope["path"]):
        try:
            caller = await path_caller(scope)
        except (ServiceError, DBAPIError, OSError):  # a malformed header, or the database away:
            caller = None  # the route answers by itself
        if isinstance(caller, Seated | Gm):
            return "token:" + hashlib.sha256(caller.token.encode()).hexdigest(), True
    return client_address(scope), False


# Reads that cost nothing worth pacing: the static files a page loads, and the health probe.
UNPACED_READS = ("/static/", "/healthz")


class RateLimit:
    """429 RATE_LIMITED for a seat, GM token or address that sends commands too fast, and for an
    address that reads too fast.

    Commands (unsafe methods) count per verified token, else per address. Reads (a page, a
    view, a report) count per address alone: looking a token up would cost a read what the
    limit saves, and every screen reads rarely (on opening, on waking).
    """

    def __init__(self, app: ASGIApp, settings: Callable[[], Settings]) -> None:
        self.app = app
        self.settings = settings
        self._buckets: tuple[TokenBuckets, TokenBuckets, TokenBuckets] | None = None

    def buckets(self) -> tuple[TokenBuckets, TokenBuckets, TokenBuckets]:
        if self._buckets is None:  # built on first use: settings are read when the app starts
            chosen = self.settings()
            self._buckets = (
                TokenBuckets(chosen.command_rate, chosen.command_burst),
                TokenBuckets(chosen.anonymous_rate, chosen.anonymous_burst),
                TokenBuckets(chosen.read_rate, chosen.read_burst),
            )
        return self._buckets

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(UNPACED_READS):
            await self.app(scope, receive, send)
            return
        commands, anonymous, reads = self.buckets()
        if scope["method"] in UNSAFE_METHODS:
            key, verified = await caller_key(scope)
            bucket = commands if verified else anonymous
        else:
            key, bucket = client_address(scope), reads
        wait = bucket.take(key)
        if wait:
            response = refusal(
                scope,
                429,
                "RATE_LIMITED",
                message(
                    "too_many_requests",
                    burst=bucket.burst,
                    rate=f"{bucket.rate:g}",
                    seconds=math.ceil(wait),
                ),
                **{"Retry-After": str(math.ceil(wait))},
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


class JoinLookups:
    """Guessing join codes: each unknown code looked up costs the client's address one token of
    its bucket, and an address with none left is refused every lookup, right codes included
    (else a 200 among the 429s would still tell a guesser which code exists)."""

    def __init__(self, settings: Callable[[], Settings]) -> None:
        self.settings = settings
        self._buckets: TokenBuckets | None = None

    def buckets(self) -> TokenBuckets:
        if self._buckets is None:  # built on first use: settings are read when the app starts
            chosen = self.settings()
            self._buckets = TokenBuckets(chosen.join_miss_rate, chosen.join_miss_burst)
        return self._buckets

    def wait(self, scope: Scope) -> float:
        """0 when this address may look a code up, else the seconds until it may."""
        return self.buckets().wait(client_address(scope))

    def missed(self, scope: Scope) -> None:
        self.buckets().take(client_address(scope))


class SocketLimit:
    """Caps each client address's open websockets, and closes a socket whose client sends a frame
    over the size limit (1009) or frames faster than the limit (1008), with the reason in the
    close frame.

    A socket over the address's cap is accepted and closed at once with CLOSE_TOO_MANY_SOCKETS,
    so the browser learns why instead of retrying a refused handshake. uvicorn's ws_max_size
    refuses huge frames before they are read into memory; the size rule here is the same for
    servers where that is not set, and the pace rule no server has.
    """

    def __init__(self, app: ASGIApp, settings: Callable[[], Settings]) -> None:
        self.app = app
        self.settings = settings
        self.open: Counter[str] = Counter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        chosen = self.settings()
        address = client_address(scope)
        if self.open[address] >= chosen.sockets_per_address:
            await refuse_socket(receive, send, chosen.sockets_per_address)
            return
        self.open[address] += 1
        try:
            await self.app(scope, *paced(receive, send, chosen))
        finally:
            self.open[address] -= 1
            if self.open[address] <= 0:
                del self.open[address]


async def refuse_socket(receive: Receive, send: Send, per_address: int) -> None:
    if (await receive())["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    reason = f"TOO_MANY_SOCKETS: at most {per_address} from one address"
    await send({"type": "websocket.close", "code": CLOSE_TOO_MANY_SOCKETS, "reason": reason})


def paced(receive: Receive, send: Send, chosen: Settings) -> tuple[Receive, Send]:
    """`receive` and `send` for one socket, closing it when its client breaks the frame rules."""
    pace = TokenBuckets(chosen.ws_frame_rate, chosen.ws_frame_burst)
    closed = False

    async def guarded_send(message: Message) -> None:
        if not closed:  # after our close, the app's late sends go nowhere
            await send(message)

    async def guarded_receive() -> Message:
        nonlocal closed
        message = await receive()
        if message["type"] != "websocket.receive" or closed:
            return message
        text = message.get("text") or ""
        size = len(text.encode("utf-8", "surrogatepass")) + len(message.get("bytes") or b"")
        if size > chosen.ws_max_frame_bytes:
            code, reason = (
                CLOSE_TOO_BIG,
                f"TOO_LARGE: frames over {chosen.ws_max_frame_bytes} bytes",
            )
        elif pace.take("socket"):
            code, reason = CLOSE_POLICY, "RATE_LIMITED: too many frames"
        else:
            return message
        closed = True
        await send({"type": "websocket.close", "code": code, "reason": reason})
        return {"type": "websocket.disconnect", "code": code, "reason": reason}

    return guarded_receive, guarded_send
