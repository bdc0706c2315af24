"""How much one caller may ask of the server: commands per second per seat or GM token, and the
size and pace of websocket frames. In memory, per process: a restart forgives everyone.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from starlette.datastructures import Headers
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.errors import error
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
        tokens, when = self._buckets.get(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - when) * self.rate)
        if tokens < 1:
            self._buckets[key] = (tokens, now)
            return (1 - tokens) / self.rate
        if key not in self._buckets and len(self._buckets) >= self.MAX_KEYS:
            self._forget_idle(now)
        self._buckets[key] = (tokens - 1, now)
        return 0.0

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


def caller_key(scope: Scope) -> tuple[str, bool]:
    """(key, has_credential): the token a request carries (bearer, or this game's GM or seat
    cookie), hashed, else the client's address. The token need not be valid: an invalid one is
    refused later, and its bucket costs the same as anyone's."""
    headers = Headers(scope=scope)
    scheme, _, token = headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        token = ""
        segments = scope["path"].split("/")
        if len(segments) > 2 and segments[1] in ("play", "gm"):
            cookies = cookie_parser(headers.get("cookie", ""))
            game = segments[2]
            token = cookies.get(f"bc_gm_{game}") or cookies.get(f"bc_seat_{game}") or ""
    if token.strip():
        return "token:" + hashlib.sha256(token.strip().encode()).hexdigest(), True
    client = scope.get("client")
    return f"address:{client[0] if client else '?'}", False


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
        key, credential = caller_key(scope)
        commands, anonymous = self.buckets()
        bucket = commands if credential else anonymous
        wait = bucket.take(key)
        if wait:
            response = error(
                429,
                "RATE_LIMITED",
                f"Too many requests: at most {bucket.burst} at once and {bucket.rate:g} a "
                f"second after that. Wait {math.ceil(wait)} s and try again.",
                **{"Retry-After": str(math.ceil(wait))},
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


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
