"""The player's phone: the station page, its panels for a resync, and the actions it posts."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.rules import Actor
from app.rules.core.messages import message
from app.service import SeatInfo, ServiceError, game_info, revoke_seat
from app.service.commands import game_key
from app.service.seats import change_position as move_seat

from .deps import CsrfChecked, CurrentSeat, GameId, SessionFactoryDep, seat_cookie, station_seat
from .fields import whole_number
from .screen import (
    act,
    answer_command,
    error_page,
    form_command_id,
    panels,
    screen_page,
    toast,
)

router = APIRouter(tags=["station"])

# Far past any map (at most 100 squares a side) or any hit: bounds for reading, not rules.
MAP_MAX = 999
POINTS_MAX = 999


@router.get("/play/{game_id}", response_class=HTMLResponse)
async def station_page(
    request: Request, game_id: str, session_factory: SessionFactoryDep
) -> Response:
    """The phone's station; a phone that holds no seat here joins first."""
    try:
        key = game_key(game_id)
        seat = await station_seat(request, key)
        if seat is None:
            info = await game_info(session_factory, key)
            return RedirectResponse(f"/join/{info.join_code}", status_code=303)
    except ServiceError as error:
        return error_page(request, error)
    return await screen_page(request, session_factory, "station", key, seat.viewer)


@router.get("/play/{game_id}/panels", response_class=HTMLResponse)
async def station_panels(
    game_id: GameId, seat: CurrentSeat, session_factory: SessionFactoryDep
) -> Response:
    """Every panel, out of band: what a phone fetches when it wakes up."""
    if seat is None:
        return _gone()
    return await panels(session_factory, "station", game_id, seat.viewer)


def _gone() -> Response:
    # A freed seat: reload, and the page route sends the phone to the join screen.
    return Response(status_code=204, headers={"HX-Refresh": "true"})


def order_data(seat: SeatInfo, form: Any) -> dict[str, Any]:
    """The order builder's fields as a SubmitOrder. Empty choices stay out, so the engine's own
    message says what is missing ("Choose a ship to attack.")."""
    data: dict[str, Any] = {
        "type": "SubmitOrder",
        "ship": seat.ship,
        "station": seat.station,
        "action": str(form.get("action", "")),
        "cards": [str(c) for c in form.getlist("cards")],
    }
    # Release has a list of its own beside the attack's, so each sends the ship ticked in it.
    target = str(form.get("release" if data["action"] == "release" else "target") or "")
    if data["action"] in ("attack", "jam", "release") and target:
        data["target"] = target
    if data["action"] == "attack":
        # One group of weapons per target ship too, each ticked for its own range.
        picked = form.getlist(f"weapons_{target}") or form.getlist("weapons")
        data["weapons"] = [str(w) for w in picked]
        aimed = str(form.get(f"ts_{target}") or "")  # one group of stations per target ship
        if aimed:
            data["target_station"] = aimed
    if data["action"] in ("repair", "command") and form.get("target_station"):
        data["target_station"] = str(form.get("target_station"))
    if data["action"] == "manoeuvre" and form.get("zone"):  # a zone map (G-ZONE-3)
        data["zone"] = str(form.get("zone"))
    elif data["action"] == "manoeuvre" and form.get("dest"):
        x, comma, y = str(form.get("dest")).partition(",")
        if not comma:
            raise ServiceError("BAD_COMMAND", message("tap_a_square"))
        # The engine says whether the square is on this map; this only reads the numbers.
        data["x"] = whole_number(x, "column", 0, MAP_MAX)
        data["y"] = whole_number(y, "row", 0, MAP_MAX)
    if data["action"] in ("shields_up", "shields_down", "release"):
        data["cards"] = []  # costs no cards, whatever is still selected
    if form.get("override"):  # M-SEATS-2: this order is another station's
        data["override"] = str(form.get("override"))
    return data


async def _seat_action(
    request: Request,
    game_id: uuid.UUID,
    seat: SeatInfo | None,
    session_factory: SessionFactoryDep,
    build: Callable[[SeatInfo, Any], dict[str, Any]],
) -> Response:
    """An action of the phone's seat: its command built from the form here, run for the seat.
    The form's command_id is the seat's own, kept apart from other callers' ids."""
    if seat is None:
        return _gone()
    form = await request.form()
    try:
        data = build(seat, form)
    except ServiceError as error:  # a field that does not read (a square, a number)
        return toast(error)
    command_id = form_command_id(form, f"seat:{seat.id}")
    actor = Actor.for_seat(str(seat.id))
    return await answer_command(session_factory, game_id, data, actor, command_id)


@router.post("/play/{game_id}/order", response_class=HTMLResponse)
async def give_order(
    request: Request,
    game_id: GameId,
    seat: CurrentSeat,
    session_factory: SessionFactoryDep,
    csrf: CsrfChecked,
) -> Response:
    return await _seat_action(request, game_id, seat, session_factory, order_data)


@router.post("/play/{game_id}/pass", response_class=HTMLResponse)
async def pass_turn(
    request: Request,
    game_id: GameId,
    seat: CurrentSeat,
    session_factory: SessionFactoryDep,
    csrf: CsrfChecked,
) -> Response:
    return await _seat_action(
        request,
        game_id,
        seat,
        session_factory,
        lambda seat, form: {"type": "PassOrder", "ship": seat.ship, "station": seat.station},
    )


@router.post("/play/{game_id}/withdraw", response_class=HTMLResponse)
async def withdraw(
    request: Request,
    game_id: GameId,
    seat: CurrentSeat,
    session_factory: SessionFactoryDep,
    csrf: CsrfChecked,
) -> Response:
    return await _seat_action(
        request,
        game_id,
        seat,
        session_factory,
        lambda seat, form: {"type": "WithdrawOrder", "ship": seat.ship, "station": seat.station},
    )


def allocation_data(seat: SeatInfo, form: Any) -> dict[str, Any]:
    allocations: dict[str, int] = {}
    for name, value in form.multi_items():
        if name.startswith("alloc_") and str(value).strip():
            points = whole_number(value, "diverted", 0, POINTS_MAX)
            if points:
                allocations[name.removeprefix("alloc_")] = points
    return {"type": "AllocateDamage", "ship": seat.ship, "allocations": allocations}


@router.post("/play/{game_id}/allocate", response_class=HTMLResponse)
async def allocate(
    request: Request,
    game_id: GameId,
    seat: CurrentSeat,
    session_factory: SessionFactoryDep,
    csrf: CsrfChecked,
) -> Response:
    return await _seat_action(request, game_id, seat, session_factory, allocation_data)


@router.post("/play/{game_id}/discard", response_class=HTMLResponse)
async def discard(
    request: Request,
    game_id: GameId,
    seat: CurrentSeat,
    session_factory: SessionFactoryDep,
    csrf: CsrfChecked,
) -> Response:
    """G-CARD-5: drop the selected cards from the hand."""
    return await _seat_action(
        request,
        game_id,
        seat,
        session_factory,
        lambda seat, form: {
            "type": "DiscardCards",
            "cards": [str(c) for c in form.getlist("discard")],
        },
    )


@router.post("/play/{game_id}/leave")
async def leave(
    request: Request,
    game_id: GameId,
    seat: CurrentSeat,
    session_factory: SessionFactoryDep,
    csrf: CsrfChecked,
) -> Response:
    """Give the station up (a player swapping phones or going home): the token stops working."""
    info = await game_info(session_factory, game_id)
    if seat is not None:
        await revoke_seat(session_factory, game_id, seat.id)
    response = Response(status_code=204, headers={"HX-Redirect": f"/join/{info.join_code}"})
    response.delete_cookie(seat_cookie(game_id), path="/")
    return response


@router.post("/play/{game_id}/position", response_class=HTMLResponse)
async def change_position(
    request: Request,
    game_id: GameId,
    seat: CurrentSeat,
    session_factory: SessionFactoryDep,
    csrf: CsrfChecked,
) -> Response:
    """M-SEATS-1: move to another station of my ship (its seat row moves with me)."""
    if seat is None:
        return _gone()
    form = await request.form()
    station, command_id = str(form.get("station") or ""), form_command_id(form, f"seat:{seat.id}")
    # 204 once moved: the seat's socket pushes its new station.
    return await act(move_seat(session_factory, game_id, seat.id, station, command_id))
