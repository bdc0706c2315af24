"""What the screens' routers share: a screen's page and its panels, a refusal as a page or a
toast, and running a form's command. Who is calling, and the cookies, are `deps.py`'s.

An action's answer carries only what the screen's socket does not: nothing when the command was
applied (204: the socket pushes the panels it changed, to this screen as to every other), or
the refusal as a toast with the server's {code, message}.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Awaitable
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse, Response

from app.i18n import N_
from app.rules import Actor
from app.service import ServiceError, Viewer, run_command
from app.service.commands import SessionFactory

from .deps import CSRF_COOKIE, csrf_token, set_cookie
from .fields import plain_form_text
from .live import Audience
from .reading import off_loop, read_view, speaking_game
from .render import render_page, render_push, render_template, render_toast


def page(html: str, token: str, status: int = 200) -> HTMLResponse:
    response = HTMLResponse(html, status_code=status, headers={"Cache-Control": "no-store"})
    set_cookie(response, CSRF_COOKIE, token)
    return response


def error_page(request: Request, error: ServiceError) -> HTMLResponse:
    """A refused page as a page, not as JSON: people, not scripts, open these URLs."""
    titles = {404: N_("No such game"), 403: N_("Not for this device")}
    token = csrf_token(request)
    html = render_template(
        "error.html",
        title=titles.get(error.status, N_("Cannot open this")),
        message=error.message,
        csrf=token,
    )
    return page(html, token, error.status)


def toast(error: ServiceError) -> HTMLResponse:
    return HTMLResponse(render_toast(error.message, error.code), status_code=error.status)


async def screen_page(
    request: Request,
    session_factory: SessionFactory,
    audience: Audience,
    game_id: uuid.UUID,
    viewer: Viewer,
    parts: dict[str, Any] | None = None,
    **extra: Any,
) -> HTMLResponse:
    """A screen's whole page, as `viewer` sees the game, with `parts` of its view that are not
    the game's (the GM's phones connected); `extra` holds what only some screens show (the join
    QR)."""
    try:
        version, view = await read_view(session_factory, game_id, viewer)
    except ServiceError as error:
        return error_page(request, error)
    view = {**view, **(parts or {})}
    token = csrf_token(request)
    async with speaking_game(session_factory, game_id):
        html = await off_loop(
            render_page,
            audience,
            view,
            game_id=str(game_id),
            csrf=token,
            version=version,
            heartbeat_s=request.app.state.heartbeat_s,
            **extra,
        )
    return page(html, token)


async def panels(
    session_factory: SessionFactory,
    audience: Audience,
    game_id: uuid.UUID,
    viewer: Viewer,
    parts: dict[str, Any] | None = None,
) -> HTMLResponse:
    """Every panel of a screen, out of band: what a screen fetches when it wakes up (`parts` as
    for `screen_page`)."""
    version, view = await read_view(session_factory, game_id, viewer)
    view = {**view, **(parts or {})}
    async with speaking_game(session_factory, game_id):
        html = await off_loop(render_push, audience, view, version)
    return HTMLResponse(html, headers={"Cache-Control": "no-store"})


async def answer_command(
    session_factory: SessionFactory,
    game_id: uuid.UUID,
    data: dict[str, Any],
    actor: Actor,
    command_id: str,
) -> Response:
    """Run one command a screen's form built: 204 once it is applied, or the refusal as a toast.
    A form's text is plain (no control characters) before anything runs."""
    try:
        plain_form_text(data)
        await run_command(session_factory, game_id, data, actor, command_id=command_id)
    except ServiceError as error:
        return toast(error)
    return Response(status_code=204)


def form_command_id(form: Any, id_scope: str) -> str:
    """The command id a form sent, kept apart from other callers' by `id_scope`; a fresh one if it
    sent none."""
    sent = str(form.get("command_id") or "")
    return f"{id_scope}:{sent}" if sent else secrets.token_hex(12)


async def act(command: Awaitable[Any]) -> Response:
    """Run one command: 204 once it is applied, or the refusal as a toast."""
    try:
        await command
    except ServiceError as error:
        return toast(error)
    return Response(status_code=204)
