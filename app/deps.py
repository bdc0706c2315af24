"""Dependencies as Annotated aliases: the session factory, and who is calling.

Seats and the GM prove who they are with a token: `Authorization: Bearer <token>` (the JSON API,
props, scripts) or, for the browser screens, a per-game cookie holding the same token.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Annotated, Literal

from fastapi import Depends, Header
from starlette.requests import HTTPConnection

from app.rules import Actor
from app.rules.core.messages import message
from app.service import SeatInfo, ServiceError, Viewer
from app.service.commands import SessionFactory, game_key
from app.service.seats import token_elsewhere, token_owner
from app.web.limits import OWNER_FOUND
from app.web.live import Hub


def seat_cookie(game_id: uuid.UUID | str) -> str:
    """The cookie that holds a phone's seat token for one game (the raw token: it is already an
    unguessable secret checked against its stored hash, so signing would add nothing)."""
    return f"bc_seat_{game_id}"


def gm_cookie(game_id: uuid.UUID | str) -> str:
    return f"bc_gm_{game_id}"


def get_session_factory(connection: HTTPConnection) -> SessionFactory:
    factory: SessionFactory = connection.app.state.session_factory
    return factory


def get_hub(connection: HTTPConnection) -> Hub:
    hub: Hub = connection.app.state.hub
    return hub


# The dependencies are async (though they await nothing) so FastAPI calls them on the event loop:
# a plain `def` goes through the thread pool, a hop that costs more than they do, every request.
async def _session_factory_dep(connection: HTTPConnection) -> SessionFactory:
    return get_session_factory(connection)


SessionFactoryDep = Annotated[SessionFactory, Depends(_session_factory_dep)]


async def game_id_path(game_id: str) -> uuid.UUID:
    """The {game_id} of the URL; not a UUID means no such game (404, not a validation error)."""
    return game_key(game_id)


GameId = Annotated[uuid.UUID, Depends(game_id_path)]


@dataclass(frozen=True)
class Caller:
    """Who sent a request: the GM, one seat, or anyone (who sees what the projector shows)."""

    role: Literal["gm", "seat", "display"]
    seat: SeatInfo | None = None

    @property
    def viewer(self) -> Viewer:
        if self.role == "seat" and self.seat is not None:
            return self.seat.viewer
        return self.role

    @property
    def actor(self) -> Actor:
        if self.role == "gm":
            return Actor.gm()
        if self.role == "seat" and self.seat is not None:
            return Actor.for_seat(str(self.seat.id))
        raise unauthenticated()


def unauthenticated() -> ServiceError:
    return ServiceError("UNAUTHENTICATED", message("send_seat_or_gm_token"), 401)


def bearer_token(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ServiceError("UNAUTHENTICATED", message("send_bearer_token"), 401)
    return token.strip()


async def caller_for_token(
    connection: HTTPConnection,
    session_factory: SessionFactory,
    game_id: uuid.UUID,
    token: str | None,
) -> Caller:
    """The GM or seat this token opens in this game; no token is the public (display) caller."""
    if token is None:
        return Caller("display")
    owner = await _owner(connection, session_factory, game_id, token)
    if owner == "gm":
        return Caller("gm")
    if isinstance(owner, SeatInfo):
        return Caller("seat", owner)
    if await token_elsewhere(session_factory, token):
        raise ServiceError("NOT_THIS_GAME", message("not_this_game_token"), 403)
    raise ServiceError("BAD_TOKEN", message("token_not_for_game"), 401)


async def _owner(
    connection: HTTPConnection, session_factory: SessionFactory, game_id: uuid.UUID, token: str
) -> SeatInfo | Literal["gm"] | None:
    """Whom the token opens: what the rate limit found for this request if it looked (it looks
    for the game in the path, as spelled there), else one look-up now."""
    found = connection.scope.get("state", {}).get(OWNER_FOUND)
    if found is not None and found[0] == str(game_id) and found[1] == token:
        known: SeatInfo | Literal["gm"] | None = found[2]
        return known
    return await token_owner(session_factory, game_id, token)


async def api_caller(
    connection: HTTPConnection,
    game_id: GameId,
    session_factory: SessionFactoryDep,
    authorization: Annotated[str | None, Header()] = None,
) -> Caller:
    """The JSON API: bearer tokens only, so a browser's cookies can never act through it."""
    token = bearer_token(authorization)
    return await caller_for_token(connection, session_factory, game_id, token)


async def screen_caller(
    connection: HTTPConnection,
    game_id: GameId,
    session_factory: SessionFactoryDep,
    authorization: Annotated[str | None, Header()] = None,
) -> Caller:
    """The browser screens: a bearer token if given, else the GM cookie, else the seat cookie."""
    token = bearer_token(authorization)
    if token is None:
        for name in (gm_cookie(game_id), seat_cookie(game_id)):
            token = connection.cookies.get(name)
            if token:
                break
    return await caller_for_token(connection, session_factory, game_id, token or None)


ApiCaller = Annotated[Caller, Depends(api_caller)]
ScreenCaller = Annotated[Caller, Depends(screen_caller)]
