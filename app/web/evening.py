"""The GM's Evening panel (E-EVENING-1): move the same table on to the next battle. Phones and the
projector need nothing: they are on the same game, so its next version reaches them by socket."""

from __future__ import annotations

import secrets
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, Response

from app.i18n_content import speaking_content
from app.service import ServiceError, load_state
from app.service.evening import move_table_on, scenario_versions
from app.service.library import items, library

from .deps import CsrfChecked, GameId, GmCaller, SessionFactoryDep
from .render import render_template
from .screen import toast

router = APIRouter(tags=["gm"])


async def _panel(session_factory: SessionFactoryDep, game_id: GameId) -> HTMLResponse:
    _, state = await load_state(session_factory, game_id)
    # The next battle comes from the library as it is now: the panel lists it in its words.
    found = await library(session_factory)
    scenarios = sorted(found.catalogue.scenarios.values(), key=lambda s: s.name)
    newest, uses_newest = await scenario_versions(session_factory, game_id, state["scenario"]["id"])
    versions = {i.id: i.version for i in (await items(session_factory))["scenario"]}
    with speaking_content(found.words):
        html = render_template(
            "_gm_evening.html",
            scenarios=scenarios,
            current=state["scenario"],
            newest=newest,
            uses_newest=uses_newest,
            versions=versions,
            phase=state["phase"],
            bench=state.get("bench") or [],  # on the table's roster, with no station this battle
            command_id=secrets.token_hex(12),
        )
    return HTMLResponse(html)


@router.get("/gm/{game_id}/evening", response_class=HTMLResponse)
async def evening_panel(
    game_id: GameId, session_factory: SessionFactoryDep, gm: GmCaller
) -> Response:
    return await _panel(session_factory, game_id)


@router.post("/gm/{game_id}/evening/next", response_class=HTMLResponse)
async def next_battle(
    request: Request,
    game_id: GameId,
    session_factory: SessionFactoryDep,
    gm: GmCaller,
    csrf: CsrfChecked,
    scenario: Annotated[str, Form()],
    command_id: Annotated[str, Form()],
) -> Response:
    """The table moves on to `scenario`; the GM's other panels come by the socket."""
    try:
        await move_table_on(session_factory, game_id, scenario, f"gm:{command_id}")
    except ServiceError as error:
        return toast(error)
    return await _panel(session_factory, game_id)
