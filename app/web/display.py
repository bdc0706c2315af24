"""The projector: public and read-only, built from display_view alone (nothing hidden in it)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from app.deps import GameId, SessionFactoryDep
from app.service import ServiceError, current_view, game_info
from app.service.commands import game_key

from .join import join_qr
from .render import render_page, render_push
from .screen import csrf_token, error_page, page

router = APIRouter(tags=["display"])


@router.get("/display/{game_id}", response_class=HTMLResponse)
async def display_page(
    request: Request, game_id: str, session_factory: SessionFactoryDep
) -> Response:
    try:
        key = game_key(game_id)
        info = await game_info(session_factory, key)
        version, view = await current_view(session_factory, key, "display")
    except ServiceError as error:
        return error_page(request, error)
    token = csrf_token(request)
    html = render_page(
        "display",
        view,
        game_id=str(key),
        csrf=token,
        version=version,
        heartbeat_s=request.app.state.heartbeat_s,
        **join_qr(request, info.join_code),
    )
    return page(html, token)


@router.get("/display/{game_id}/panels", response_class=HTMLResponse)
async def display_panels(game_id: GameId, session_factory: SessionFactoryDep) -> Response:
    version, view = await current_view(session_factory, game_id, "display")
    return HTMLResponse(
        render_push("display", view, version), headers={"Cache-Control": "no-store"}
    )
