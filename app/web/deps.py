"""What routes ask FastAPI for, as `Annotated` aliases: the session factory, the game in the path,
who is calling, the CSRF check; and the name of every cookie the server sets.

Who is calling is one look-up per request. Seats and the GM prove who they are with a token:
`Authorization: Bearer <token>` (the JSON API, props, scripts) or, for the browser screens, a
per-game cookie holding the same token. Each screen reads the credential of its own audience: the
station the seat's cookie, the dashboard the GM's, so one browser holding both (a GM trying their
own game as a player) opens each screen as what it asks for. The rate limit asks the same
question before any route runs (`path_caller`); the answer is kept for the rest of the request,
so the database is asked once.
"""

from __future__ import annotations

import dataclasses
import hmac
import secrets
import uuid
from typing import Annotated, ClassVar, Literal

from fastapi import Depends, Request
from fastapi.responses import Response
from starlette.requests import HTTPConnection
from starlette.types import Scope

from app.rules import Actor
from app.rules.core.messages import message
from app.service import SeatInfo, ServiceError, Viewer
from app.service.commands import SessionFactory, game_key
from app.service.seats import Owner, token_elsewhere, token_owner

from .live import Hub

# --- Cookies --------------------------------------------------------------------------------------

CSRF_COOKIE = "bc_csrf"
CSRF_HEADER = "x-csrf-token"
# The phone's own secret, from which the seat tokens of its joins are derived (phone_seat_tokens),
# so that a join whose answer was lost finds its seat again. Only ever in this httponly cookie:
# never in a page, unlike the CSRF value every form and htmx header carries.
PHONE_COOKIE = "bc_phone"
ORGANISER_COOKIE = "bc_organiser"  # the organiser key, for the content editor
EDITOR_NAME_COOKIE = "bc_editor_name"  # who saves in the editor (a name, not a credential)
MONTH = 30 * 24 * 3600


def seat_cookie(game_id: uuid.UUID | str) -> str:
    """The cookie that holds a phone's seat token for one game (the raw token: it is already an
    unguessable secret checked against its stored hash, so signing would add nothing)."""
    return f"bc_seat_{game_id}"


def gm_cookie(game_id: uuid.UUID | str) -> str:
    return f"bc_gm_{game_id}"


def campaign_gm_cookie(campaign_id: uuid.UUID | str) -> str:
    return f"bc_campaign_gm_{campaign_id}"


# A phone's key outlives a month between a campaign's evenings (G-CAMP-1: phones find their
# characters again): browsers keep a cookie at most 400 days.
PHONE_COOKIE_AGE = 400 * 24 * 3600


def phone_key(connection: HTTPConnection) -> str | None:
    """The phone's own key (PHONE_COOKIE), or None before the join page gave it one."""
    phone = connection.cookies.get(PHONE_COOKIE, "")
    return phone if 32 <= len(phone) <= 100 else None


def set_cookie(response: Response, name: str, value: str, max_age: int = MONTH) -> None:
    # httponly: scripts never need these; Lax: links from a QR code still carry them.
    response.set_cookie(name, value, max_age=max_age, httponly=True, samesite="lax", path="/")


# --- The app's own parts --------------------------------------------------------------------------


def get_session_factory(connection: HTTPConnection) -> SessionFactory:
    factory: SessionFactory = connection.app.state.session_factory
    return factory


def get_hub(connection: HTTPConnection) -> Hub:
    hub: Hub = connection.app.state.hub
    return hub


# The dependencies are async (though some await nothing) so FastAPI calls them on the event loop:
# a plain `def` goes through the thread pool, a hop that costs more than they do, every request.
async def _session_factory_dep(connection: HTTPConnection) -> SessionFactory:
    return get_session_factory(connection)


SessionFactoryDep = Annotated[SessionFactory, Depends(_session_factory_dep)]


async def game_id_path(game_id: str) -> uuid.UUID:
    """The {game_id} of the URL; not a UUID means no such game (404, not a validation error)."""
    return game_key(game_id)


GameId = Annotated[uuid.UUID, Depends(game_id_path)]


# --- Who is calling -------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Seated:
    """A phone (or script) holding one live seat of the game."""

    seat: SeatInfo
    token: str = dataclasses.field(repr=False)

    @property
    def viewer(self) -> Viewer:
        return self.seat.viewer

    @property
    def actor(self) -> Actor:
        return Actor.for_seat(str(self.seat.id))


@dataclasses.dataclass(frozen=True)
class Gm:
    """The game's GM (any number of devices share the token)."""

    token: str = dataclasses.field(repr=False)
    viewer: ClassVar[Viewer] = "gm"

    @property
    def actor(self) -> Actor:
        return Actor.gm()


@dataclasses.dataclass(frozen=True)
class Nobody:
    """No token, or one that opens nothing here (`token`): sees what the projector shows."""

    token: str | None = dataclasses.field(default=None, repr=False)
    viewer: ClassVar[Viewer] = "display"

    @property
    def actor(self) -> Actor:
        raise unauthenticated()


@dataclasses.dataclass(frozen=True)
class Organiser:
    """The holder of the server's organiser key: the content editor's, never a game's."""


GameCaller = Seated | Gm | Nobody
# Whose credential a route reads: the JSON API bearer tokens only (a browser's cookies never act
# through it); the station the seat's cookie; the dashboard the GM's; the screens both (the
# report, which the GM sees whole).
Audience = Literal["api", "station", "gm", "screens"]
_OWNERS = "bridgecrew.owners"  # the request's state: (game, token) -> its owner, asked once


def unauthenticated() -> ServiceError:
    return ServiceError("UNAUTHENTICATED", message("send_seat_or_gm_token"), 401)


def bearer_token(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ServiceError("UNAUTHENTICATED", message("send_bearer_token"), 401)
    return token.strip()


def presented_token(
    connection: HTTPConnection, game_id: uuid.UUID, audience: Audience
) -> str | None:
    """The token this request shows for `audience`: a bearer token, else (a websocket) `?token=`,
    else the audience's cookie for the game."""
    token = bearer_token(connection.headers.get("authorization"))
    if token is not None or audience == "api":
        return token
    if connection.scope["type"] == "websocket" and connection.query_params.get("token"):
        return connection.query_params["token"]
    cookies = connection.cookies
    if audience == "station":
        return cookies.get(seat_cookie(game_id)) or None
    if audience == "gm":
        return cookies.get(gm_cookie(game_id)) or None
    return cookies.get(gm_cookie(game_id)) or cookies.get(seat_cookie(game_id)) or None


async def identify(
    connection: HTTPConnection, game_id: uuid.UUID, audience: Audience
) -> GameCaller:
    """Who this request is in this game, for `audience`. A token that opens nothing here is
    `Nobody(token)`: each route says what that means for it."""
    token = presented_token(connection, game_id, audience)
    if token is None:
        return Nobody()
    owners: dict[tuple[uuid.UUID, str], Owner | None] = connection.scope.setdefault(
        "state", {}
    ).setdefault(_OWNERS, {})
    if (game_id, token) not in owners:
        owners[game_id, token] = await token_owner(get_session_factory(connection), game_id, token)
    owner = owners[game_id, token]
    if owner == "gm":
        return Gm(token)
    if isinstance(owner, SeatInfo):
        return Seated(owner, token)
    return Nobody(token)


def asked_in_path(path: str) -> tuple[str, Audience] | None:
    """The game a request's path names, as spelled there, and whose credential its route reads;
    None for a path without a game (the lobby, a join by code, the editor)."""
    segments = path.split("/")
    if len(segments) > 3 and segments[1:3] == ["api", "games"]:
        return segments[3], "api"
    if len(segments) > 2 and segments[1] == "play":
        return segments[2], "station"
    if len(segments) > 2 and segments[1] == "gm":
        return segments[2], "gm"
    return None


async def path_caller(scope: Scope) -> GameCaller | None:
    """`identify` for the game the path names, before any route runs (the rate limit asks
    this); None when the path names no game, or none that could exist."""
    asked = asked_in_path(scope["path"])
    if asked is None:
        return None
    try:
        key = game_key(asked[0])
    except ServiceError:
        return None
    return await identify(HTTPConnection(scope), key, asked[1])


async def _refuse_stranger(connection: HTTPConnection, caller: Nobody) -> None:
    """A token that opens nothing in this game: another game's (403), or unknown or ended (401).
    No token at all is the public caller, refused by nothing here."""
    if caller.token is None:
        return
    if await token_elsewhere(get_session_factory(connection), caller.token):
        raise ServiceError("NOT_THIS_GAME", message("not_this_game_token"), 403)
    raise ServiceError("BAD_TOKEN", message("token_not_for_game"), 401)


async def api_caller(connection: HTTPConnection, game_id: GameId) -> GameCaller:
    """The JSON API: bearer tokens only, so a browser's cookies can never act through it."""
    caller = await identify(connection, game_id, "api")
    if isinstance(caller, Nobody):
        await _refuse_stranger(connection, caller)
    return caller


async def screens_caller(connection: HTTPConnection, game_id: GameId) -> GameCaller:
    """A screen any audience opens (the report): a bearer token if given, else the GM's cookie,
    else the seat's."""
    caller = await identify(connection, game_id, "screens")
    if isinstance(caller, Nobody):
        await _refuse_stranger(connection, caller)
    return caller


async def station_seat(connection: HTTPConnection, game_id: GameId) -> SeatInfo | None:
    """The seat this phone holds in the game, or None (no seat, or a freed seat's old cookie:
    the phone joins again)."""
    caller = await identify(connection, game_id, "station")
    return caller.seat if isinstance(caller, Seated) else None


async def gm_caller(connection: HTTPConnection, game_id: GameId) -> Gm:
    """The GM, or a refusal that says where a GM device gets its link."""
    caller = await identify(connection, game_id, "gm")
    if not isinstance(caller, Gm):
        raise ServiceError("GM_ONLY", message("gm_link_needed"), 403)
    return caller


ApiCaller = Annotated[GameCaller, Depends(api_caller)]
ScreensCaller = Annotated[GameCaller, Depends(screens_caller)]
CurrentSeat = Annotated[SeatInfo | None, Depends(station_seat)]
GmCaller = Annotated[Gm, Depends(gm_caller)]


def organiser_key_matches(connection: HTTPConnection, key: str) -> bool:
    wanted: str = connection.app.state.settings.organiser_key
    return bool(key) and hmac.compare_digest(key.encode(), wanted.encode())


async def organiser_caller(connection: HTTPConnection) -> Organiser:
    """The organiser key's cookie, or a refusal (a page: people open these URLs)."""
    if not organiser_key_matches(connection, connection.cookies.get(ORGANISER_COOKIE, "")):
        raise ServiceError("ORGANISER_ONLY", message("organiser_key_needed"), 403)
    return Organiser()


OrganiserOnly = Annotated[Organiser, Depends(organiser_caller)]


# --- Forms from our own pages ---------------------------------------------------------------------


def csrf_token(request: Request) -> str:
    """This browser's token: the one in its cookie, else a new one (set by `screen.page`)."""
    token = request.cookies.get(CSRF_COOKIE, "")
    return token if 20 <= len(token) <= 100 else secrets.token_urlsafe(24)


async def check_csrf(request: Request) -> None:
    """Double submit: the token in the page (header, or a form field for plain forms) must equal the
    cookie. Another site can make a browser send the cookie, never read it to copy it."""
    cookie = request.cookies.get(CSRF_COOKIE, "")
    sent = request.headers.get(CSRF_HEADER)
    if sent is None:
        sent = str((await request.form()).get("csrf", ""))
    if not cookie or not hmac.compare_digest(cookie.encode(), sent.encode()):
        raise ServiceError("BAD_CSRF", message("bad_csrf"), 403)


CsrfChecked = Annotated[None, Depends(check_csrf)]
