"""Dependencies as Annotated aliases: the session factory, the live hub, and who is calling.

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
from app.service import SeatInfo, ServiceError, Viewer
from app.service.commands import SessionFactory, game_key
from app.service.seats import token_elsewhere, token_owner
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


async def _hub_dep(connection: HTTPConnection) -> Hub:
    return get_hub(connection)


SessionFactoryDep = Annotated[SessionFactory, Depends(_session_factory_dep)]
HubDep = Annotated[Hub, Depends(_hub_dep)]


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
    return ServiceError(
        "UNAUTHENTICATED", "Send your seat or GM token (Authorization: Bearer <token>).", 401
    )


def bearer_token(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ServiceError("UNAUTHENTICATED", "Use the header Authorization: Bearer <token>.", 401)
    return token.strip()


async def caller_for_token(
    session_factory: SessionFactory, game_id: uuid.UUID, token: str | None
) -> Caller:
    """The GM or seat this token opens in this game; no token is the public (display) caller."""
    if token is None:
        return Caller("display")
    owner = await token_owner(session_factory, game_id, token)
    if owner == "gm":
        return Caller("gm")
    if isinstance(owner, SeatInfo):
        return Caller("seat", owner)
    if await token_elsewhere(session_factory, token):
        raise ServiceError(
            "NOT_THIS_GAME",
            "That token belongs to another game: open the game it was made for.",
            403,
        )
    raise ServiceError(
        "BAD_TOKEN", "That token does not open this game (wrong game, or the seat was freed).", 401
    )


async def api_caller(
    game_id: GameId,
    session_factory: SessionFactoryDep,
    authorization: Annotated[str | None, Header()] = None,
) -> Caller:
    """The JSON API: bearer tokens only, so a browser's cookies can never act through it."""
    return await caller_for_token(session_factory, game_id, bearer_token(authorization))


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
    return await caller_for_token(session_factory, game_id, token or None)


async def require_seat(caller: Annotated[Caller, Depends(screen_caller)]) -> SeatInfo:
    if caller.role == "display":
        raise unauthenticated()
    if caller.role != "seat" or caller.seat is None:
        raise ServiceError("NOT_YOUR_SEAT", "This needs a seat: join the game first.", 403)
    return caller.seat


async def require_gm(caller: Annotated[Caller, Depends(screen_caller)]) -> Caller:
    if caller.role == "display":
        raise unauthenticated()
    if caller.role != "gm":
        raise ServiceError("GM_ONLY", "Only the GM can do that.")
    return caller


ApiCaller = Annotated[Caller, Depends(api_caller)]
ScreenCaller = Annotated[Caller, Depends(screen_caller)]
CurrentSeat = Annotated[SeatInfo, Depends(require_seat)]
CurrentGM = Annotated[Caller, Depends(require_gm)]
