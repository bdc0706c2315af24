"""The GM's side of a campaign (G-CAMP-*): starting one from the lobby or from a finished evening,
starting the next evening from the roster, writing an evening back, Downtime (days, what each
character does, placing points for an absent player, undo), phones asking for a character, and
the campaign's file. Each is a plain form posted back to the page it came from.

The campaign's GM holds its own token (a cookie, `campaign_gm_cookie`); an evening's game has its
GM token as every game does. Writing an evening back is the game GM's too: it is that evening's
end.
"""

from __future__ import annotations

import secrets
import uuid
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.i18n import requested
from app.rules import Actor
from app.rules.campaign.state import CARE
from app.rules.core.messages import message
from app.service import ServiceError
from app.service.campaign_files import campaign_file_bytes, export_campaign
from app.service.campaign_phones import answer_ask, asks_waiting
from app.service.campaign_reads import game_campaign, load_campaign
from app.service.campaigns import (
    begin_evening,
    campaign_from_game,
    campaign_key,
    create_campaign,
    end_evening,
    is_campaign_gm,
    run_campaign_command,
)
from app.service.commands import SessionFactory, load_state
from app.service.library import game_catalogue

from .campaign import campaign_context, placed_points
from .deps import (
    CsrfChecked,
    GameId,
    GmCaller,
    SessionFactoryDep,
    campaign_gm_cookie,
    csrf_token,
    gm_cookie,
    set_cookie,
)
from .fields import whole_number
from .gm import lobby_page
from .join import public_url
from .render import render_template
from .screen import error_page, page, toast
from .templating import qr_svg

router = APIRouter(tags=["gm"])


async def _gm(request: Request, session_factory: SessionFactory, campaign_id: Any) -> uuid.UUID:
    key = campaign_key(campaign_id)
    if not await is_campaign_gm(session_factory, key, request.cookies.get(campaign_gm_cookie(key))):
        raise ServiceError("GM_ONLY", message("campaign_gm_link_needed"), 403)
    return key


async def _gm_page(
    request: Request,
    session_factory: SessionFactory,
    campaign_id: Any,
    error: ServiceError | None = None,
) -> Response:
    try:
        key = await _gm(request, session_factory, campaign_id)
        context = await campaign_context(request, session_factory, key)
        scenarios = (await game_catalogue(session_factory)).scenarios.values()
        asks = await asks_waiting(session_factory, key)
    except ServiceError as refused:
        return error_page(request, refused)
    token = csrf_token(request)
    html = render_template(
        "campaign_gm.html",
        csrf=token,
        projector=False,
        scenarios=sorted(scenarios, key=lambda s: s.name),
        asks=asks,
        care=CARE,
        command_id=secrets.token_hex(12),
        error=error.message if error else None,
        error_code=error.code if error else None,
        **context,
    )
    return page(html, token, error.status if error else 200)


def _back(campaign_id: uuid.UUID, anchor: str = "") -> Response:
    return RedirectResponse(f"/campaign/{campaign_id}/gm{anchor}", status_code=303)


@router.get("/campaign/{campaign_id}/gm", response_class=HTMLResponse)
async def campaign_gm_page(
    request: Request, campaign_id: str, session_factory: SessionFactoryDep, token: str | None = None
) -> Response:
    if token is not None:  # the printed GM link: the token goes into a cookie, off the address bar
        if not await is_campaign_gm(session_factory, campaign_id, token):
            return error_page(request, ServiceError("GM_ONLY", message("gm_link_wrong"), 403))
        response = _back(campaign_key(campaign_id))
        set_cookie(response, campaign_gm_cookie(campaign_key(campaign_id)), token)
        return response
    return await _gm_page(request, session_factory, campaign_id)


@router.post("/campaign/{campaign_id}/gm/evening")
async def start_evening(
    request: Request,
    campaign_id: str,
    session_factory: SessionFactoryDep,
    csrf: CsrfChecked,
    scenario: Annotated[str, Form()] = "",
) -> Response:
    """G-CAMP-1: the next evening, a game begun from the roster; the GM goes to its dashboard."""
    try:
        key = await _gm(request, session_factory, campaign_id)
        game_id, _, gm_token = await begin_evening(
            session_factory, key, scenario, language=requested.get()
        )
    except ServiceError as error:
        return await _gm_page(request, session_factory, campaign_id, error)
    response = RedirectResponse(f"/gm/{game_id}", status_code=303)
    set_cookie(response, gm_cookie(game_id), gm_token)
    return response


async def _command(
    request: Request,
    session_factory: SessionFactory,
    campaign_id: str,
    data: dict[str, Any] | None,
    anchor: str = "#campaign-downtime-plan",
) -> Response:
    """One GM command on the campaign, from a form; the page again, with the refusal if any."""
    form = await request.form()
    try:
        key = await _gm(request, session_factory, campaign_id)
        if data is None:
            data = _downtime(form)
        command_id = str(form.get("command_id") or secrets.token_hex(12))
        await run_campaign_command(session_factory, key, data, Actor.gm(), f"gm:{command_id}")
    except ServiceError as error:
        return await _gm_page(request, session_factory, campaign_id, error)
    return _back(key, anchor)


def _downtime(form: Any) -> dict[str, Any]:
    """StartDowntime from the form: `days`, and each character's `care.<id>`, `doctor.<id>` and
    `first_aid.<id>` (blank: none)."""
    plans: dict[str, dict[str, str]] = {}
    for name, value in form.multi_items():
        kind, _, character = str(name).partition(".")
        if kind in ("care", "doctor", "first_aid") and character and str(value).strip():
            plans.setdefault(character, {})[kind] = str(value).strip()
    days = whole_number(form.get("days", ""), "days", -1_000_000, 1_000_000)
    return {"type": "StartDowntime", "days": days, "plans": plans}


@router.post("/campaign/{campaign_id}/gm/downtime")
async def start_downtime(
    request: Request, campaign_id: str, session_factory: SessionFactoryDep, csrf: CsrfChecked
) -> Response:
    """G-CAMP-2: days pass; each character's plan; the rolls as far as the first choice."""
    return await _command(request, session_factory, campaign_id, None)


@router.post("/campaign/{campaign_id}/gm/place")
async def gm_place(
    request: Request, campaign_id: str, session_factory: SessionFactoryDep, csrf: CsrfChecked
) -> Response:
    """G-CAMP-4 for an absent player: the GM places their points as typed (`mode` points), as
    suggested (`suggested`), or as suggested on the later days of this Downtime too (`rest`).
    Without a character, every waiting one is placed as suggested."""
    form = await request.form()
    character = str(form.get("character", "")) or None
    mode = str(form.get("mode", "points"))
    if mode in ("suggested", "rest"):
        data: dict[str, Any] = {
            "type": "PlaceAsSuggested",
            "character": character,
            "rest": mode == "rest",
        }
    else:
        try:
            data = {
                "type": "PlaceRecovery",
                "character": character or "",
                "points": placed_points(form),
            }
        except ServiceError as error:
            return await _gm_page(request, session_factory, campaign_id, error)
    return await _command(request, session_factory, campaign_id, data)


@router.post("/campaign/{campaign_id}/gm/undo")
async def undo_downtime(
    request: Request, campaign_id: str, session_factory: SessionFactoryDep, csrf: CsrfChecked
) -> Response:
    return await _command(request, session_factory, campaign_id, {"type": "UndoDowntime"})


@router.post("/campaign/{campaign_id}/gm/repairs")
async def set_repairs(
    request: Request, campaign_id: str, session_factory: SessionFactoryDep, csrf: CsrfChecked
) -> Response:
    form = await request.form()
    try:
        data = {
            "type": "SetRepairs",
            "hull_per_day": whole_number(form.get("hull_per_day", ""), "points", 0, 20),
            "station_per_day": whole_number(form.get("station_per_day", ""), "points", 0, 20),
        }
    except ServiceError as error:
        return await _gm_page(request, session_factory, campaign_id, error)
    return await _command(request, session_factory, campaign_id, data)


@router.post("/campaign/{campaign_id}/gm/asks/{ask_id}")
async def answer(
    request: Request,
    campaign_id: str,
    ask_id: int,
    session_factory: SessionFactoryDep,
    csrf: CsrfChecked,
    approve: Annotated[str, Form()] = "",
) -> Response:
    """A new phone asked for a character another phone plays: the GM approves or refuses."""
    try:
        key = await _gm(request, session_factory, campaign_id)
        await answer_ask(session_factory, key, ask_id, approve == "1")
    except ServiceError as error:
        return await _gm_page(request, session_factory, campaign_id, error)
    return _back(key, "#campaign-asks")


@router.get("/campaign/{campaign_id}/gm/link", response_class=HTMLResponse)
async def campaign_gm_link(
    request: Request, campaign_id: str, session_factory: SessionFactoryDep, show: bool = False
) -> Response:
    """The campaign's GM link for another device, or with `show` off the button that asks for
    it: only for its GM, never cached."""
    try:
        key = await _gm(request, session_factory, campaign_id)
    except ServiceError as error:
        return error_page(request, error)
    link = None
    if show:
        token = request.cookies.get(campaign_gm_cookie(key), "")
        link = public_url(request, f"/campaign/{key}/gm?{urlencode({'token': token})}")
    html = render_template(
        "_campaign_gm_link.html",
        campaign_id=str(key),
        link=link,
        link_qr=qr_svg(link) if link else None,
    )
    return HTMLResponse(html, headers={"Cache-Control": "no-store"})


@router.get("/campaign/{campaign_id}/gm/export")
async def export(
    request: Request, campaign_id: str, session_factory: SessionFactoryDep
) -> Response:
    """The whole campaign as one file, for another laptop. It holds the dice's key: the GM's."""
    try:
        key = await _gm(request, session_factory, campaign_id)
        data = await export_campaign(session_factory, key)
    except ServiceError as error:
        return error_page(request, error)
    return Response(
        campaign_file_bytes(data),
        media_type="application/json",
        headers={
            "Content-Disposition": 'attachment; filename="campaign.json"',
            "Cache-Control": "no-store",
        },
    )


# --- From the lobby --------------------------------------------------------------------------


@router.post("/gm/campaigns")
async def new_campaign(
    request: Request,
    session_factory: SessionFactoryDep,
    csrf: CsrfChecked,
    name: Annotated[str, Form()] = "",
) -> Response:
    try:
        campaign_id, gm_token = await create_campaign(session_factory, name)
    except ServiceError as error:
        return await lobby_page(request, session_factory, error)
    response = _back(campaign_id)
    set_cookie(response, campaign_gm_cookie(campaign_id), gm_token)
    return response


# --- On an evening's dashboard ---------------------------------------------------------------


async def _panel(
    request: Request, session_factory: SessionFactory, game_id: uuid.UUID
) -> HTMLResponse:
    found = await game_campaign(session_factory, game_id)
    _, state = await load_state(session_factory, game_id)
    context: dict[str, Any] = {"phase": state["phase"], "command_id": secrets.token_hex(12)}
    if found is not None:
        campaign_id, number, running = found
        _, campaign = await load_campaign(session_factory, campaign_id)
        context.update(
            campaign_id=str(campaign_id),
            campaign_name=campaign["name"],
            evening_number=number,
            running=running,
            asks=await asks_waiting(session_factory, campaign_id) if running else [],
            characters={cid: ch["name"] for cid, ch in state["characters"].items()},
        )
    return HTMLResponse(render_template("_gm_campaign.html", **context))


@router.get("/gm/{game_id}/campaign", response_class=HTMLResponse)
async def campaign_panel(
    request: Request, game_id: GameId, session_factory: SessionFactoryDep, gm: GmCaller
) -> Response:
    return await _panel(request, session_factory, game_id)


@router.post("/gm/{game_id}/campaign", response_class=HTMLResponse)
async def make_campaign(
    request: Request,
    game_id: GameId,
    session_factory: SessionFactoryDep,
    gm: GmCaller,
    csrf: CsrfChecked,
    name: Annotated[str, Form()] = "",
    command_id: Annotated[str, Form()] = "",
) -> Response:
    """A finished evening becomes a campaign's first (its GM gets the campaign's cookie)."""
    try:
        campaign_id, gm_token = await campaign_from_game(
            session_factory, game_id, name, f"gm:{command_id or secrets.token_hex(12)}"
        )
    except ServiceError as error:
        return toast(error)
    response = await _panel(request, session_factory, game_id)
    set_cookie(response, campaign_gm_cookie(campaign_id), gm_token)
    return response


@router.post("/gm/{game_id}/campaign/end", response_class=HTMLResponse)
async def write_back(
    request: Request,
    game_id: GameId,
    session_factory: SessionFactoryDep,
    gm: GmCaller,
    csrf: CsrfChecked,
    command_id: Annotated[str, Form()] = "",
) -> Response:
    """G-CAMP-1: the evening's end writes the roster back."""
    try:
        await end_evening(session_factory, game_id, f"gm:{command_id or secrets.token_hex(12)}")
    except ServiceError as error:
        return toast(error)
    return await _panel(request, session_factory, game_id)


@router.post("/gm/{game_id}/campaign/asks/{ask_id}", response_class=HTMLResponse)
async def answer_from_dashboard(
    request: Request,
    game_id: GameId,
    ask_id: int,
    session_factory: SessionFactoryDep,
    gm: GmCaller,
    csrf: CsrfChecked,
    approve: Annotated[str, Form()] = "",
) -> Response:
    """The evening's GM answers a phone's asking, from the dashboard where they are."""
    try:
        found = await game_campaign(session_factory, game_id)
        if found is None:
            raise ServiceError("NOT_A_CAMPAIGN_GAME", message("not_a_campaign_game"), 404)
        await answer_ask(session_factory, found[0], ask_id, approve == "1")
    except ServiceError as error:
        return toast(error)
    return await _panel(request, session_factory, game_id)
