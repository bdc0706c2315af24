"""The campaign's page (G-CAMP-*), for everyone at the table: a phone, the GM's laptop and the
projector (`?screen=display`, large type). Its evenings with their outcomes and reports, each
ship's Hull by evening (an SVG chart drawn here, as the report's), each character's injuries,
recoveries and deeds, and every Downtime day by day with each roll's breakdown. A phone the
campaign knows for a character places that character's restored points here.

A campaign holds no secret but its dice, which no view carries, so its page opens by its id
alone, as the projector's does.
"""

from __future__ import annotations

import logging
import secrets
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import TemplateError

from app.rules import campaign as camp
from app.rules.campaign.downtime import suggested
from app.rules.core.crew import CHARACTERISTICS
from app.rules.core.messages import message
from app.service import ServiceError
from app.service.campaign_phones import known_characters
from app.service.campaign_reads import (
    campaign_events,
    campaign_version,
    evening_report,
    evenings_of,
    load_campaign,
)
from app.service.campaigns import campaign_key, is_campaign_gm, run_campaign_command
from app.service.commands import SessionFactory

from .deps import CsrfChecked, SessionFactoryDep, campaign_gm_cookie, csrf_token, phone_key
from .fields import whole_number
from .join import drawn_qr, public_url
from .render import render_template
from .report import chart_lines
from .screen import error_page, page

log = logging.getLogger(__name__)
router = APIRouter(tags=["campaign"])

# The Hull chart's drawing box: one step across for each evening's start and end.
CHART_WIDTH = 320
CHART_HEIGHT = 120
CHART_PAD = 6
POINTS_MAX = 30  # a characteristic's points typed on a form


def hull_chart(view: dict[str, Any], ship: dict[str, Any]) -> dict[str, Any]:
    """A ship's Hull left as each evening began and ended, and as it stands now, as points in
    the chart's box: the first at the left, no boxes at the bottom."""
    marks: list[tuple[str, int]] = []
    for evening in [*view["evenings"], *([view["evening"]] if view["evening"] else [])]:
        for key, kind in (("hull_began", "began"), ("hull_ended", "ended")):
            hull = evening.get(key, {}).get(ship["id"])
            if hull is not None:
                marks.append((f"{kind}:{evening['number']}", hull["left"]))
    if not marks or marks[-1][1] != ship["hull"]["left"]:
        marks.append(("now:", ship["hull"]["left"]))
    across = (CHART_WIDTH - 2 * CHART_PAD) / max(len(marks) - 1, 1)
    up = (CHART_HEIGHT - 2 * CHART_PAD) / max(ship["hull"]["boxes"], 1)
    points = [
        (f"{CHART_PAD + n * across:.1f}", f"{CHART_HEIGHT - CHART_PAD - left * up:.1f}")
        for n, (_, left) in enumerate(marks)
    ]
    return {
        "points": points,
        "marks": [(*mark.split(":"), left) for mark, left in marks],
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT,
    }


async def campaign_context(
    request: Request, session_factory: SessionFactory, campaign_id: Any
) -> dict[str, Any]:
    """What the campaign's screens show: its view and story, its evenings' games, the charts,
    and the characters this phone plays with the points waiting for them."""
    key = campaign_key(campaign_id)
    version, state = await load_campaign(session_factory, key)
    view = camp.campaign_view(state)
    story = camp.campaign_story(state, await campaign_events(session_factory, key))
    settings = request.app.state.settings
    mine = await known_characters(session_factory, key, settings.secret_key, phone_key(request))
    waiting = (view["downtime"] or {}).get("waiting", {})
    yours = [
        {
            **ch,
            "waiting": waiting.get(ch["id"]),
            "suggested": suggested(state["characters"][ch["id"]], waiting[ch["id"]]["points"])
            if ch["id"] in waiting
            else None,
        }
        for ch in view["characters"]
        if ch["id"] in mine
    ]
    return {
        "campaign_id": str(key),
        "version": version,
        "view": view,
        "story": story,
        "evening_games": {e.number: e for e in await evenings_of(session_factory, key)},
        "charts": {ship["id"]: hull_chart(view, ship) for ship in view["ships"]},
        "yours": yours,
        "characteristics": CHARACTERISTICS,
        "is_gm": await is_campaign_gm(
            session_factory, key, request.cookies.get(campaign_gm_cookie(key))
        ),
    }


async def _page(
    request: Request,
    session_factory: SessionFactory,
    campaign_id: str,
    screen: str | None,
    error: ServiceError | None = None,
) -> Response:
    try:
        context = await campaign_context(request, session_factory, campaign_id)
    except ServiceError as refused:
        return error_page(request, refused)
    token = csrf_token(request)
    projector = screen == "display"
    here = public_url(request, f"/campaign/{context['campaign_id']}")
    html = render_template(
        "campaign.html",
        csrf=token,
        projector=projector,
        page_qr=drawn_qr(here) if projector else None,
        error=error.message if error else None,
        error_code=error.code if error else None,
        **context,
    )
    return page(html, token, error.status if error else 200)


@router.get("/campaign/{campaign_id}", response_class=HTMLResponse)
async def campaign_page(
    request: Request,
    campaign_id: str,
    session_factory: SessionFactoryDep,
    screen: str | None = None,
) -> Response:
    return await _page(request, session_factory, campaign_id, screen)


@router.get("/campaign/{campaign_id}/main", response_class=HTMLResponse)
async def campaign_main(
    request: Request,
    campaign_id: str,
    session_factory: SessionFactoryDep,
    v: int = -1,
    screen: str | None = None,
) -> Response:
    """The page's body again when the campaign has moved on from version `v` (the page asks
    every few seconds); 204, nothing to swap, when it has not."""
    try:
        if await campaign_version(session_factory, campaign_id) == v:
            return Response(status_code=204)
        context = await campaign_context(request, session_factory, campaign_id)
    except ServiceError as refused:
        return error_page(request, refused)
    here = public_url(request, f"/campaign/{context['campaign_id']}")
    html = render_template(
        "campaign.html",
        csrf=csrf_token(request),
        projector=screen == "display",
        page_qr=drawn_qr(here) if screen == "display" else None,
        error=None,
        **context,
    )
    return HTMLResponse(html, headers={"Cache-Control": "no-store"})


def placed_points(form: Any) -> dict[str, int]:
    """A placement form's points by characteristic (`points.<characteristic>`, blank is 0)."""
    points = {}
    for name in CHARACTERISTICS:
        raw = str(form.get(f"points.{name}", "")).strip()
        points[name] = whole_number(raw, "points", 0, POINTS_MAX) if raw else 0
    return points


@router.post("/campaign/{campaign_id}/place")
async def place_points(
    request: Request, campaign_id: str, session_factory: SessionFactoryDep, csrf: CsrfChecked
) -> Response:
    """G-CAMP-4: a player places their character's restored points from their phone."""
    form = await request.form()
    character = str(form.get("character", ""))
    try:
        key = campaign_key(campaign_id)
        secret = request.app.state.settings.secret_key
        if character not in await known_characters(
            session_factory, key, secret, phone_key(request)
        ):
            raise ServiceError("NOT_YOUR_CHARACTER", message("not_your_phone_character"), 403)
        data = {"type": "PlaceRecovery", "character": character, "points": placed_points(form)}
        command_id = str(form.get("command_id") or secrets.token_hex(12))
        await run_campaign_command(
            session_factory, key, data, camp.player(character), f"phone:{command_id}"
        )
    except ServiceError as error:
        return await _page(request, session_factory, campaign_id, None, error)
    return RedirectResponse(f"/campaign/{key}#campaign-yours", status_code=303)


@router.get("/campaign/{campaign_id}/evening/{number}", response_class=HTMLResponse)
async def evening_page(
    request: Request, campaign_id: str, number: int, session_factory: SessionFactoryDep
) -> Response:
    """An evening's after-action report as it was kept when it was written back: the game it
    was played in may have expired since."""
    try:
        report = await evening_report(session_factory, campaign_id, number)
    except ServiceError as error:
        return error_page(request, error)
    token = csrf_token(request)
    try:
        html = render_template(
            "report.html",
            report=report,
            game_id=None,
            csrf=token,
            projector=request.query_params.get("screen") == "display",
            chart_lines=chart_lines,
        )
    except (TemplateError, TypeError, KeyError, AttributeError, ValueError):
        # A report this server kept always reads; one an imported file brought may not.
        log.warning("campaign %s: evening %s's kept report cannot be shown", campaign_id, number)
        unreadable = ServiceError("REPORT_UNREADABLE", message("report_unreadable"), 422)
        return error_page(request, unreadable)
    return page(html, token)


@router.get("/api/campaigns/{campaign_id}", tags=["api"])
async def campaign_json(campaign_id: str, session_factory: SessionFactoryDep) -> dict[str, Any]:
    """A campaign as every screen may see it: its roster, evenings, Downtime and story (each
    event's words as a message, as the game's events are)."""
    version, state = await load_campaign(session_factory, campaign_id)
    events = await campaign_events(session_factory, campaign_id)
    return {
        "version": version,
        "campaign": camp.campaign_view(state),
        "story": camp.campaign_story(state, events),
    }
