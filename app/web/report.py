"""The after-action report (G-END-2): JSON for scripts, a printable page for people. The GM reads
it at any time; players and the projector once the combat has ended."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.deps import ApiCaller, GameId, ScreenCaller, SessionFactoryDep
from app.rules.core.messages import message
from app.service import ServiceError
from app.service.report import game_report

from .render import render_template
from .screen import csrf_token, error_page, page

router = APIRouter(tags=["report"])


@router.get("/api/games/{game_id}/report", tags=["api"])
async def report_json(
    game_id: GameId, caller: ApiCaller, session_factory: SessionFactoryDep
) -> dict[str, Any]:
    """Every combat of the game: turns played; per ship damage dealt, taken and repaired, attacks
    made and hit, torpedoes launched and shot down; crew injuries; the biggest hit; the log."""
    return await game_report(session_factory, game_id, caller.viewer)


@router.get("/report/{game_id}", response_class=HTMLResponse)
async def report_page(
    request: Request, game_id: GameId, caller: ScreenCaller, session_factory: SessionFactoryDep
) -> Response:
    try:
        report = await game_report(session_factory, game_id, caller.viewer)
    except ServiceError as error:
        return error_page(request, error)
    token = csrf_token(request)
    html = render_template("report.html", report=report, game_id=str(game_id), csrf=token)
    return page(html, token)


# Every screen links to "report" relative to its own <base href> (/play/<id>/, /gm/<id>/,
# /display/<id>/), so the panels pushed to a whole audience need no game id.
@router.get("/{screen}/{game_id}/report", include_in_schema=False)
async def report_from_screen(screen: str, game_id: GameId) -> Response:
    if screen not in ("play", "gm", "display"):
        raise ServiceError("NOT_FOUND", message("no_such_page"), 404)
    return RedirectResponse(f"/report/{game_id}", status_code=303)
