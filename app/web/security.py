"""Who may send what, and which browsers may ask: command scope, same-origin checks, and the
response headers every page carries.

The service decides what a command does; this module decides whether the caller may send it at
all, before a transaction is opened. Who a token is, is the service's (app/service/seats.py).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.rules.core.messages import message
from app.service import ServiceError

from .errors import error

# --- Commands -------------------------------------------------------------------------------------


def check_command_scope(
    data: Mapping[str, Any], game_id: uuid.UUID, ship: str, station: str
) -> None:
    """A seat acts only for its own ship and station, in its own game.

    The engine refuses the same things (NOT_YOUR_STATION); checking here as well means a
    malformed or hostile command never reaches a transaction, and the answer names the reason.
    """
    claimed_game = data.get("game_id")
    if claimed_game is not None and str(claimed_game) != str(game_id):
        raise ServiceError("NOT_THIS_GAME", message("not_this_game_seat"), 403)
    if "ship" in data and data["ship"] != ship:
        raise ServiceError("NOT_YOUR_SHIP", message("not_your_ship"), 403)
    if "station" in data and data["station"] != station:
        raise ServiceError("NOT_YOUR_STATION", message("not_your_station"), 403)


# --- Browsers -------------------------------------------------------------------------------------

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def our_hosts(headers: Headers, public_base_url: str | None) -> set[str]:
    """The host names this server answers as: the Host header, a proxy's X-Forwarded-Host and
    the configured public URL. A browser cannot forge these on a cross-site request."""
    hosts = {headers.get("host", ""), *headers.get("x-forwarded-host", "").split(",")}
    if public_base_url:
        hosts.add(urlsplit(public_base_url).netloc)
    return {h.strip().lower() for h in hosts if h.strip()}


def same_origin(origin: str, headers: Headers, public_base_url: str | None) -> bool:
    """Whether an Origin (or Referer) names this server. "null" (sandboxed frames, some
    redirects) is never ours."""
    try:
        netloc = urlsplit(origin).netloc.lower()
    except ValueError:
        return False
    return bool(netloc) and netloc in our_hosts(headers, public_base_url)


SECURITY_HEADERS = (
    # A JSON answer must never be sniffed into HTML or script.
    (b"x-content-type-options", b"nosniff"),
    # The phone's buttons must not be clickable through someone else's invisible frame.
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", b"frame-ancestors 'none'"),
    # The GM link carries its token in the address until the redirect; never pass it on.
    (b"referrer-policy", b"same-origin"),
)
# Every answer but the static files is made for one caller at one moment (a seat's hand, the GM's
# panels, a join code): no browser or proxy may keep it for the next person on that device.
NO_STORE = (b"cache-control", b"no-store")
STATIC = "/static/"


class BrowserGuard:
    """Refuses cross-site form posts to the screens and hardens every response.

    The screens already check a double-submit CSRF token; this adds the Origin check, so a page
    elsewhere cannot post even if it managed to plant a cookie. The JSON API is left alone: it
    takes bearer tokens only, which a browser never attaches by itself.
    """

    def __init__(
        self, app: ASGIApp, public_base_url: Callable[[], str | None] = lambda: None
    ) -> None:
        self.app = app
        self.public_base_url = public_base_url  # a callable: settings are read at startup

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        if scope["method"] in UNSAFE_METHODS and not scope["path"].startswith("/api/"):
            sent = headers.get("origin") or headers.get("referer")
            if sent is not None and not same_origin(sent, headers, self.public_base_url()):
                await _refuse_cross_site(scope, receive, send)
                return
        https = scope.get("scheme") == "https"
        extra = SECURITY_HEADERS if scope["path"].startswith(STATIC) else PRIVATE_HEADERS

        async def hardened(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = _hardened_headers(message.get("headers", []), https, extra)
            await send(message)

        await self.app(scope, receive, hardened)


PRIVATE_HEADERS = (*SECURITY_HEADERS, NO_STORE)


def _hardened_headers(
    raw: list[tuple[bytes, bytes]], https: bool, extra: tuple[tuple[bytes, bytes], ...]
) -> list[tuple[bytes, bytes]]:
    present = {name.lower() for name, _ in raw}
    out = []
    for name, value in raw:
        if https and name.lower() == b"set-cookie" and b"secure" not in value.lower():
            value += b"; Secure"  # over HTTPS a cookie must never travel in clear text again
        out.append((name, value))
    out.extend((name, value) for name, value in extra if name not in present)
    return out


async def _refuse_cross_site(scope: Scope, receive: Receive, send: Send) -> None:
    response = error(
        403, "CROSS_SITE", "This form was sent from another site; open the game's own page."
    )
    await response(scope, receive, send)
