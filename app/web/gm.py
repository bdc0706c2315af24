"""The GM's dashboard: create a game, open it with the GM link, and send any command from a form.

Every GM form posts `type` plus the command's fields by name to one route; `command_from_form`
turns the strings into what `parse_command` expects, using the command classes' own annotations.
"""

from __future__ import annotations

import collections
import dataclasses
import random
import secrets
import types
import typing
import uuid
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.i18n_content import speaking_content
from app.rules import COMMANDS, Actor
from app.rules.bot import propose, stations_to_order
from app.rules.content import MODULES
from app.rules.core.messages import message
from app.rules.modules.npc.tactic import npc_order
from app.service import (
    ServiceError,
    create_game,
    free_seat,
    game_info,
    is_gm_token,
    load_state,
    run_command,
    seats_of,
)
from app.service.commands import SessionFactory, command_fields, game_key
from app.service.games import SEED_MAX, games_held
from app.service.library import game_catalogue, library
from app.service.seats import free_address, seen_recently

from .fields import decimal_number, is_whole_number, whole_number
from .join import join_qr
from .reading import off_loop, read_view, speaking_game
from .render import render_template
from .screen import (
    CsrfChecked,
    GameId,
    SessionFactoryDep,
    act,
    csrf_token,
    error_page,
    form_command,
    gm_cookie,
    page,
    panels,
    screen_caller,
    screen_page,
    set_cookie,
    toast,
)

router = APIRouter(tags=["gm"])

# Bounds for reading the GM's numbers, not rules: the engine says what each field allows. No
# field needs more than a million; a timestamp (ExpireDeadline's `at`) needs ten digits.
GM_NUMBER_MAX = 1_000_000
GM_DECIMAL_MAX = 1e12


async def gm_only(request: Request, game_id: GameId, session_factory: SessionFactoryDep) -> None:
    try:
        caller = await screen_caller(request, game_id, session_factory, None)
    except ServiceError:
        caller = None
    if caller is None or caller.role != "gm":
        raise ServiceError("GM_ONLY", message("gm_link_needed"), 403)


GmOnly = Annotated[None, Depends(gm_only)]


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
            session_factory, scenario, chosen, switched_on, modules_off=switched_off
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
        await gm_only(request, key, session_factory)
        info = await game_info(session_factory, key)
    except ServiceError as error:
        return error_page(request, error)
    qr = join_qr(request, info.join_code)
    return await screen_page(request, session_factory, "gm", key, "gm", **qr)


@router.get("/gm/{game_id}/panels", response_class=HTMLResponse)
async def gm_panels(game_id: GameId, session_factory: SessionFactoryDep, gm: GmOnly) -> Response:
    return await panels(session_factory, "gm", game_id, "gm")


@router.post("/gm/{game_id}/command", response_class=HTMLResponse)
async def gm_command(
    request: Request,
    game_id: GameId,
    session_factory: SessionFactoryDep,
    gm: GmOnly,
    csrf: CsrfChecked,
) -> Response:
    return await form_command(
        request, session_factory, game_id, Actor.gm(), command_from_form, "gm"
    )


@router.post("/gm/{game_id}/npc-pass", response_class=HTMLResponse)
async def npc_pass(
    request: Request,
    game_id: GameId,
    session_factory: SessionFactoryDep,
    gm: GmOnly,
    csrf: CsrfChecked,
) -> Response:
    """One tap for the common case: every NPC station that has not been given an order passes."""
    return await _order_waiting_npcs(
        session_factory,
        game_id,
        lambda state, ship, station: {"type": "PassOrder", "ship": ship, "station": station},
    )


@router.post("/gm/{game_id}/npc-auto", response_class=HTMLResponse)
async def npc_auto(
    request: Request,
    game_id: GameId,
    session_factory: SessionFactoryDep,
    gm: GmOnly,
    csrf: CsrfChecked,
) -> Response:
    """Let the NPCs choose: a legal order (or a pass) for every NPC station still waiting. The
    choice is the GM's, not the game's dice, so it uses its own generator."""
    rng = random.Random()

    def choose(state: dict[str, Any], ship: str, station: str) -> dict[str, Any]:
        if "npc" in state["modules"]:  # M-NPC-2: the crew's tactic, rolled at the reveal
            order = npc_order(state, ship, station)
            if order is not None:
                return command_fields(order)
        return command_fields(propose(state, ship, station, rng, Actor.gm()))

    return await _order_waiting_npcs(session_factory, game_id, choose)


async def _order_waiting_npcs(
    session_factory: SessionFactory,
    game_id: uuid.UUID,
    choose: Callable[[dict[str, Any], str, str], dict[str, Any]],
) -> Response:
    _, state = await load_state(session_factory, game_id)
    waiting = [
        (ship, station)
        for ship, station, actor in stations_to_order(state)
        if actor.is_gm and state["phase"] == "orders"
    ]
    for ship_id, station_id in waiting:
        data = choose(state, ship_id, station_id)
        command_id = secrets.token_hex(12)
        answer = await act(
            run_command(session_factory, game_id, data, Actor.gm(), command_id=command_id)
        )
        if answer.status_code == 409:
            break  # the last order revealed the turn: the rest need no order any more
        if answer.status_code >= 400:
            return answer
    return Response(status_code=204)


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
    request: Request, game_id: GameId, session_factory: SessionFactoryDep, gm: GmOnly
) -> Response:
    return HTMLResponse(await _seats_panel(session_factory, request, game_id))


@router.post("/gm/{game_id}/seats/free", response_class=HTMLResponse)
async def free(
    request: Request,
    game_id: GameId,
    session_factory: SessionFactoryDep,
    gm: GmOnly,
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
    gm: GmOnly,
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
