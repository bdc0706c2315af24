"""The GM's dashboard: create a game, open it with the GM link, and send any command from a form.

Every GM form posts `type` plus the command's fields by name to one route; `command_from_form`
turns the strings into what `parse_command` expects, using the command classes' own annotations.
"""

from __future__ import annotations

import collections
import dataclasses
import secrets
import types
import typing
import uuid
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.i18n import requested
from app.i18n_content import speaking_content
from app.rules import COMMANDS
from app.rules.content import MODULES
from app.rules.core.messages import message
from app.service import (
    ServiceError,
    create_game,
    free_seat,
    game_info,
    is_gm_token,
    seats_of,
)
from app.service.campaign_reads import campaigns_held
from app.service.commands import SessionFactory, game_key
from app.service.games import SEED_MAX, games_held
from app.service.library import game_catalogue, library
from app.service.seats import free_address, seen_recently

from .deps import (
    CsrfChecked,
    GameId,
    Gm,
    GmCaller,
    SessionFactoryDep,
    csrf_token,
    get_hub,
    gm_caller,
    gm_cookie,
    set_cookie,
)
from .fields import decimal_number, is_whole_number, whole_number
from .join import join_qr, public_url
from .reading import off_loop, read_view, speaking_game
from .render import render_template
from .screen import (
    answer_command,
    error_page,
    form_command_id,
    page,
    panels,
    screen_page,
    toast,
)
from .templating import qr_svg

router = APIRouter(tags=["gm"])

# Bounds for reading the GM's numbers, not rules: the engine says what each field allows. No
# field needs more than a million; a timestamp (ExpireDeadline's `at`) needs ten digits.
GM_NUMBER_MAX = 1_000_000
GM_DECIMAL_MAX = 1e12
NPC_SEEDS = 1_000_000  # a command's whole numbers go up to a million (parse_command)
STATIONS_MAX = 40  # eight ships of five stations: more than a game holds is not read


# --- Lobby: a new game ----------------------------------------------------------------------------


@router.get("/gm", response_class=HTMLResponse)
async def lobby(request: Request, session_factory: SessionFactoryDep) -> Response:
    return await lobby_page(request, session_factory)


async def lobby_page(
    request: Request, session_factory: SessionFactoryDep, error: ServiceError | None = None
) -> HTMLResponse:
    """The lobby, with the reason the last game could not be made if it could not."""
    token = csrf_token(request)
    # Built-in and custom scenarios together (the content library), custom ones marked.
    found = await library(session_factory)
    if found.problem is not None:
        raise found.problem
    scenarios = sorted(found.catalogue.scenarios.values(), key=lambda s: s.name)
    held = await games_held(session_factory)
    campaigns = await campaigns_held(session_factory)
    with speaking_content(found.words):
        html = await off_loop(
            render_template,
            "gm_lobby.html",
            scenarios=scenarios,
            custom=set(found.items.get("scenario", {})),
            modules=MODULES,
            csrf=token,
            error=error.message if error else None,
            error_code=error.code if error else None,
            games_held=held,
            campaigns=campaigns,
            expiry=request.app.state.settings,
        )
    return page(html, token, error.status if error else 200)


@router.post("/gm")
async def new_game(
    request: Request,
    session_factory: SessionFactoryDep,
    csrf: CsrfChecked,
    scenario: Annotated[str, Form()],
    seed: Annotated[str, Form()] = "",
    modules: Annotated[list[str] | None, Form()] = None,
) -> Response:
    try:
        chosen = whole_number(seed, "seed", 0, SEED_MAX) if seed.strip() else None
        switched_on, switched_off = await _lobby_modules(
            request, session_factory, scenario, modules or []
        )
        game_id, _, gm_token = await create_game(
            session_factory,
            scenario,
            chosen,
            switched_on,
            modules_off=switched_off,
            language=requested.get(),
        )
    except ServiceError as error:
        return await lobby_page(request, session_factory, error)
    response = RedirectResponse(f"/gm/{game_id}", status_code=303)
    set_cookie(response, gm_cookie(game_id), gm_token)
    return response


async def _lobby_modules(
    request: Request, session_factory: SessionFactoryDep, scenario_id: str, extra: list[str]
) -> tuple[list[str], list[str]]:
    """(on, off). The lobby lists each scenario's modules as `modules.<scenario>` boxes, ticked
    as the scenario has them: what the GM ticks for the chosen one is the game's set. A form
    without them (a script's) only switches on the `modules` it names."""
    form = await request.form()
    scenario = (await game_catalogue(session_factory)).scenarios.get(scenario_id)
    if not form.get("choose_modules") or scenario is None:
        return extra, []
    ticked = {str(m) for m in form.getlist(f"modules.{scenario_id}")} | set(extra)
    return sorted(ticked), sorted(set(scenario.modules) - ticked)


# --- The dashboard --------------------------------------------------------------------------------


@router.get("/gm/{game_id}", response_class=HTMLResponse)
async def dashboard(
    request: Request, game_id: str, session_factory: SessionFactoryDep, token: str | None = None
) -> Response:
    try:
        key = game_key(game_id)
        if token is not None:
            # The printed GM link: keep the token in a cookie, and off the address bar (and the
            # projector, if the GM drags this tab there).
            if not await is_gm_token(session_factory, key, token):
                raise ServiceError("GM_ONLY", message("gm_link_wrong"), 403)
            response = RedirectResponse(f"/gm/{key}", status_code=303)
            set_cookie(response, gm_cookie(key), token)
            return response
        await gm_caller(request, key)
        info = await game_info(session_factory, key)
    except ServiceError as error:
        return error_page(request, error)
    qr = join_qr(request, info.join_code)
    # Only a server with a broker has props to tell it to.
    props_code = info.props_code if getattr(request.app.state, "props", None) else None
    connected = get_hub(request).presence(key)
    return await screen_page(
        request, session_factory, "gm", key, "gm", parts=connected, props_code=props_code, **qr
    )


@router.get("/gm/{game_id}/link", response_class=HTMLResponse)
async def gm_link(request: Request, game_id: GameId, gm: GmCaller, show: bool = False) -> Response:
    """The dashboard's own GM link and its QR code, for another GM device (a co-GM's tablet), or
    with `show` off the button that asks for them. The link is a secret: the page holds only the
    button, and the link never goes into a cache, the server's or the browser's."""
    link = public_url(request, f"/gm/{game_id}?{urlencode({'token': gm.token})}") if show else None
    html = render_template("_gm_link.html", link=link, link_qr=qr_svg(link) if link else None)
    return HTMLResponse(html, headers={"Cache-Control": "no-store"})


@router.get("/gm/{game_id}/projector", include_in_schema=False)
async def gm_projector(game_id: GameId) -> Response:
    """The projector's page, from the turn panel's relative link: panels are pushed to the GM's
    screens without the game's id."""
    return RedirectResponse(f"/display/{game_id}", status_code=303)


@router.get("/gm/{game_id}/panels", response_class=HTMLResponse)
async def gm_panels(
    request: Request, game_id: GameId, session_factory: SessionFactoryDep, gm: GmCaller
) -> Response:
    return await panels(session_factory, "gm", game_id, "gm", get_hub(request).presence(game_id))


@router.post("/gm/{game_id}/command", response_class=HTMLResponse)
async def gm_command(
    request: Request,
    game_id: GameId,
    session_factory: SessionFactoryDep,
    gm: GmCaller,
    csrf: CsrfChecked,
) -> Response:
    form = await request.form()
    try:
        data = command_from_form(form)
    except ServiceError as error:
        return toast(error)
    command_id = form_command_id(form, "gm")
    return await answer_command(session_factory, game_id, data, gm.actor, command_id)


@router.post("/gm/{game_id}/npc-pass", response_class=HTMLResponse)
async def npc_pass(
    game_id: GameId, session_factory: SessionFactoryDep, gm: GmCaller, csrf: CsrfChecked
) -> Response:
    """One tap for the common case: every NPC station that has not been given an order passes."""
    return await _npc_orders(session_factory, game_id, gm, pass_all=True)


@router.post("/gm/{game_id}/npc-auto", response_class=HTMLResponse)
async def npc_auto(
    game_id: GameId, session_factory: SessionFactoryDep, gm: GmCaller, csrf: CsrfChecked
) -> Response:
    """Let the NPCs choose: a legal order (or a pass) for every NPC station still waiting."""
    return await _npc_orders(session_factory, game_id, gm, pass_all=False)


@router.post("/gm/{game_id}/offline-pass", response_class=HTMLResponse)
async def offline_pass(
    game_id: GameId,
    session_factory: SessionFactoryDep,
    gm: GmCaller,
    csrf: CsrfChecked,
    station: Annotated[list[str], Form(max_length=200)],
) -> Response:
    """Pass for each station the dashboard listed as waiting with its phone offline ("ship/
    station"): the GM's PassOrder for each, the first refusal answered as a toast."""
    for key in station[:STATIONS_MAX]:
        ship, _, station_id = key.partition("/")
        data = {"type": "PassOrder", "ship": ship, "station": station_id}
        answer = await answer_command(
            session_factory, game_id, data, gm.actor, secrets.token_hex(12)
        )
        if answer.status_code != 204:
            return answer
    return Response(status_code=204)


async def _npc_orders(
    session_factory: SessionFactory, game_id: uuid.UUID, gm: Gm, *, pass_all: bool
) -> Response:
    # One command (the npc module's GiveNpcOrders): its choices follow a seed of the GM's, not
    # the game's dice, and the command keeps it, so a replay chooses the same.
    data = {"type": "GiveNpcOrders", "pass_all": pass_all, "seed": secrets.randbelow(NPC_SEEDS)}
    return await answer_command(session_factory, game_id, data, gm.actor, secrets.token_hex(12))


# --- Seats ----------------------------------------------------------------------------------------


async def _connected(
    session_factory: SessionFactory, request: Request, game_id: uuid.UUID
) -> set[str]:
    """Seat ids with a station socket open: in this process (it knows at once), or in any
    process as the seats' presence stamps say (app/service/seats.py)."""
    online = await seen_recently(session_factory, game_id)
    watch = getattr(request.app.state, "seat_watch", None)
    if watch is not None:
        online |= {str(seat) for seat in watch.connected()}
    return online


async def _seats_panel(
    session_factory: SessionFactory, request: Request, game_id: uuid.UUID
) -> str:
    _, view = await read_view(session_factory, game_id, "gm")
    seats = {(s.ship, s.station): s for s in await seats_of(session_factory, game_id)}
    connected = await _connected(session_factory, request, game_id)
    characters = {ch["id"]: ch["name"] for ch in view["characters"]}
    held_from = collections.Counter(s.taken_from for s in seats.values() if s.taken_from)
    async with speaking_game(session_factory, game_id):
        return render_template(
            "_gm_seats.html",
            view=view,
            seats=seats,
            connected=connected,
            characters=characters,
            held_from=held_from,
        )


@router.get("/gm/{game_id}/seats", response_class=HTMLResponse)
async def seats_panel(
    request: Request, game_id: GameId, session_factory: SessionFactoryDep, gm: GmCaller
) -> Response:
    return HTMLResponse(await _seats_panel(session_factory, request, game_id))


@router.post("/gm/{game_id}/seats/free", response_class=HTMLResponse)
async def free(
    request: Request,
    game_id: GameId,
    session_factory: SessionFactoryDep,
    gm: GmCaller,
    csrf: CsrfChecked,
    ship: Annotated[str, Form()],
    station: Annotated[str, Form()],
) -> Response:
    """Free a station (a lost phone, a player swapping seats): the old token stops working and
    anyone can join it with the code."""
    try:
        await free_seat(session_factory, game_id, ship, station)
    except ServiceError as error:
        return toast(error)
    return HTMLResponse(await _seats_panel(session_factory, request, game_id))


@router.post("/gm/{game_id}/seats/free-address", response_class=HTMLResponse)
async def free_from_address(
    request: Request,
    game_id: GameId,
    session_factory: SessionFactoryDep,
    gm: GmCaller,
    csrf: CsrfChecked,
    address: Annotated[str, Form(max_length=100)],
) -> Response:
    """Free every station one client address holds (a stranger who took them all): each seat
    ends as Free ends one."""
    try:
        await free_address(session_factory, game_id, address)
    except ServiceError as error:
        return toast(error)
    return HTMLResponse(await _seats_panel(session_factory, request, game_id))


# --- Forms to commands ----------------------------------------------------------------------------


def command_from_form(form: Any) -> dict[str, Any]:
    """{"type": ..., fields...} from form strings. Blank fields are left out (the command's
    default, or the engine's own "needs the field" message); dict fields come as name.key."""
    kind = str(form.get("type", ""))
    cls = COMMANDS.get(kind)
    if cls is None:
        raise ServiceError("UNKNOWN_COMMAND", message("no_such_command", command=kind))
    hints = typing.get_type_hints(cls)
    data: dict[str, Any] = {"type": kind}
    for f in dataclasses.fields(cls):
        if f.name in ("actor", "now"):
            continue
        hint = hints[f.name]
        if typing.get_origin(hint) is dict:
            prefix = f"{f.name}."
            values = {
                k.removeprefix(prefix): v
                for k, v in form.multi_items()
                if k.startswith(prefix) and str(v).strip()
            }
            data[f.name] = {
                k: _value(v, typing.get_args(hint)[1], f.name) for k, v in values.items()
            }
        elif typing.get_origin(hint) is tuple:
            data[f.name] = [str(v) for v in form.getlist(f.name) if str(v).strip()]
        elif f.name in form and str(form.get(f.name)).strip():
            data[f.name] = _value(form.get(f.name), hint, f.name)
    return data


def _value(raw: Any, hint: Any, name: str) -> Any:
    text = str(raw).strip()
    options = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        for option in options:  # str | int: a number if it reads as one
            if option is bool and text.lower() in ("true", "false", "on", "off"):
                return _value(text, bool, name)
            if option is int and is_whole_number(text):
                return _value(text, int, name)
        return text if str in options else _value(text, options[0], name)
    if hint is bool:
        return text.lower() in ("true", "on", "1", "yes")
    if hint is int:
        return whole_number(text, name, -GM_NUMBER_MAX, GM_NUMBER_MAX)
    if hint is float:
        return decimal_number(text, name, -GM_DECIMAL_MAX, GM_DECIMAL_MAX)
    return text
