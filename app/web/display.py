"""The projector: public and read-only, built from display_view alone (nothing hidden in it)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from app.service import ServiceError, game_info
from app.service.commands import game_key

from .deps import GameId, SessionFactoryDep
from .join import join_qr
from .screen import error_page, panels, screen_page

router = APIRouter(tags=["display"])


@router.get("/display/{game_id}", response_class=HTMLResponse)
async def display_page(
    request: Request, game_id: str, session_factory: SessionFactoryDep, watch: bool = False
) -> Response:
    """The projector's screen; with ?watch=1 a spectator's (the join page's link), which the
    GM's dashboard does not count as the room's projector."""
    try:
        key = game_key(game_id)
        info = await game_info(session_factory, key)
    except ServiceError as error:
        return error_page(request, error)
    qr = join_qr(request, info.join_code)
    return await screen_page(request, session_factory, "display", key, "display", watch=watch, **qr)


@router.get("/display/{game_id}/panels", response_class=HTMLResponse)
async def display_panels(game_id: GameId, session_factory: SessionFactoryDep) -> Response:
    return await panels(session_factory, "display", game_id, "display")
