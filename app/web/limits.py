"""How much one caller may ask of the server: commands per second per seat or GM token (or per
address for everyone else), unknown join codes per address, and the size and pace of websocket
frames. In memory, per process: a restart forgives everyone.
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy.exc import DBAPIError
from starlette.datastructures import Headers
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.service.seats import token_owner
from app.web.errors import refusal
from app.web.security import UNSAFE_METHODS

CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009


@dataclass(frozen=True)
class Limits:
    """Rates are per second; a burst is how many may come at once after a quiet spell."""

    # A player taps a few times a second at most; a script gone wrong taps thousands of times.
    command_rate: float = 10.0
    command_burst: int = 20
    # Callers without a token (creating games, joining): per address. Generous, because a whole
    # venue may reach the server through one address.
    anonymous_rate: float = 5.0
    anonymous_burst: int = 40
    # Unknown join codes per address: what guessing codes makes. A right code never counts, so
    # a phone scanning again gets in at once; a room of players mistyping now and then stays
    # well below this.
    join_miss_rate: float = 0.2
    join_miss_burst: int = 30
    # Clients say nothing over a websocket; anything more than a trickle is a fault or an attack.
    frame_rate: float = 20.0
    frame_burst: int = 60
    frame_bytes: int = 64 * 1024


class TokenBuckets:
    """One token bucket per key. Idle keys are forgotten, so memory stays bounded however many
    keys (bogus tokens, say) come by."""

    MAX_KEYS = 10_000

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic):
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, when)

    def take(self, key: str) -> float:
        """0 when the call may go ahead, else the seconds until it may."""
        now = self.clock()
        tokens = self._tokens(key, now)
        if tokens < 1:
            self._buckets[key] = (tokens, now)
            return (1 - tokens) / self.rate
        if key not in self._buckets and len(self._buckets) >= self.MAX_KEYS:
            self._forget_idle(now)
        self._buckets[key] = (tokens - 1, now)
        return 0.0

    def wait(self, key: str) -> float:
        """What `take` would answer, taking nothing."""
        tokens = self._tokens(key, self.clock())
        return 0.0 if tokens >= 1 else (1 - tokens) / self.rate

    def _tokens(self, key: str, now: float) -> float:
        tokens, when = self._buckets.get(key, (float(self.burst), now))
        return min(float(self.burst), tokens + (now - when) * self.rate)

    def _forget_idle(self, now: float) -> None:
        """Drop buckets that have refilled: forgetting them changes nobody's allowance."""
        full = [
            key
            for key, (tokens, when) in self._buckets.items()
            if tokens + (now - when) * self.rate >= self.burst
        ]
        for key in full:
            del self._buckets[key]
        if len(self._buckets) >= self.MAX_KEYS:  # a flood of fresh keys: start over
            self._buckets.clear()


def client_address(scope: Scope) -> str:
    """The caller's address as a key. IPv6 by its /64: one phone or home holds a whole /64, and
    each of its addresses would otherwise have a fresh bucket."""
    client = scope.get("client")
    host = client[0] if client else "?"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return f"address:{host}"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return f"address:{ip.ipv4_mapped}"
        return f"address:{ipaddress.IPv6Network((ip, 64), strict=False)}"
    return f"address:{ip}"


def claimed_token(scope: Scope) -> tuple[str, str] | None:
    """(game id, token) when a request names a game in its path and carries a token for it: a
    bearer token, or for the screens the game's GM cookie, else its seat cookie (the order the
    routes read them in). Joining a game is left out (None): each join makes a new token, so
    counting it against a token would let every seat buy the next one a fresh bucket."""
    segments = scope["path"].split("/")
    if len(segments) > 3 and segments[1:3] == ["api", "games"]:
        game = segments[3]
        if segments[4:] == ["seats"]:
            return None
    elif len(segments) > 2 and segments[1] in ("play", "gm"):
        game = segments[2]
    else:
        return None  # creating a game, joining by code, or a route without a game
    headers = Headers(scope=scope)
    scheme, _, token = headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        token = ""
        if segments[1] != "api":  # the API takes bearer tokens only
            cookies = cookie_parser(headers.get("cookie", ""))
            token = cookies.get(f"bc_gm_{game}") or cookies.get(f"bc_seat_{game}") or ""
    return (game, token.strip()) if token.strip() else None


async def caller_key(scope: Scope) -> tuple[str, bool]:
    """(key, verified): a seat's or the GM's token, hashed, once it is known to open the game in
    the path; anything else (no token, a junk one, a freed seat's, another game's) is the
    client's address, so making up tokens buys no fresh allowance."""
    claimed = claimed_token(scope)
    if claimed is not None and await _opens(scope, *claimed):
        return "token:" + hashlib.sha256(claimed[1].encode()).hexdigest(), True
    return client_address(scope), False


async def _opens(scope: Scope, game: str, token: str) -> bool:
    """Whether the token is a live seat's or the GM's in this game. Known tokens are answered
    from the service's cache, so a player's commands cost no extra query."""
    session_factory = getattr(scope["app"].state, "session_factory", None)
    if session_factory is None:
        return False
    try:
        return await token_owner(session_factory, game, token) is not None
    except (DBAPIError, OSError):  # the database away: the route answers 503 by itself
        return False


class RateLimit:
    """429 RATE_LIMITED for a seat, GM token or address that sends commands too fast.

    Only unsafe methods count: reading a view is cheap and phones re-read after every push.
    """

    def __init__(self, app: ASGIApp, limits: Callable[[], Limits]) -> None:
        self.app = app
        self.limits = limits
        self._buckets: tuple[TokenBuckets, TokenBuckets] | None = None

    def buckets(self) -> tuple[TokenBuckets, TokenBuckets]:
        if self._buckets is None:  # built on first use: settings are read when the app starts
            chosen = self.limits()
            self._buckets = (
                TokenBuckets(chosen.command_rate, chosen.command_burst),
                TokenBuckets(chosen.anonymous_rate, chosen.anonymous_burst),
            )
        return self._buckets

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in UNSAFE_METHODS:
            await self.app(scope, receive, send)
            return
        key, verified = await caller_key(scope)
        commands, anonymous = self.buckets()
        bucket = commands if verified else anonymous
        wait = bucket.take(key)
        if wait:
            response = refusal(
                scope,
                429,
                "RATE_LIMITED",
                f"Too many requests: at most {bucket.burst} at once and {bucket.rate:g} a "
                f"second after that. Wait {math.ceil(wait)} s and try again.",
                **{"Retry-After": str(math.ceil(wait))},
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


class JoinLookups:
    """Guessing join codes: each unknown code looked up costs the client's address one token of
    its bucket, and an address with none left is refused every lookup, right codes included
    (else a 200 among the 429s would still tell a guesser which code exists)."""

    def __init__(self, limits: Callable[[], Limits]) -> None:
        self.limits = limits
        self._buckets: TokenBuckets | None = None

    def buckets(self) -> TokenBuckets:
        if self._buckets is None:  # built on first use: settings are read when the app starts
            chosen = self.limits()
            self._buckets = TokenBuckets(chosen.join_miss_rate, chosen.join_miss_burst)
        return self._buckets

    def wait(self, scope: Scope) -> float:
        """0 when this address may look a code up, else the seconds until it may."""
        return self.buckets().wait(client_address(scope))

    def missed(self, scope: Scope) -> None:
        self.buckets().take(client_address(scope))


class SocketLimit:
    """Closes a websocket whose client sends a frame over the size limit (1009) or frames
    faster than the limit (1008), with the reason in the close frame.

    uvicorn's ws_max_size refuses huge frames before they are read into memory; this is the
    same rule for servers where that is not set, and the pace rule no server has.
    """

    def __init__(self, app: ASGIApp, limits: Callable[[], Limits]) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        chosen = self.limits()
        pace = TokenBuckets(chosen.frame_rate, chosen.frame_burst)
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
            if size > chosen.frame_bytes:
                code, reason = CLOSE_TOO_BIG, f"TOO_LARGE: frames over {chosen.frame_bytes} bytes"
            elif pace.take("socket"):
                code, reason = CLOSE_POLICY, "RATE_LIMITED: too many frames"
            else:
                return message
            closed = True
            await send({"type": "websocket.close", "code": code, "reason": reason})
            return {"type": "websocket.disconnect", "code": code, "reason": reason}

        await self.app(scope, guarded_receive, guarded_send)
