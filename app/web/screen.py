"""What the HTML routers share: the CSRF double submit, cookies, a screen's page and its panels,
and running a form's command.

An action's answer carries only what the screen's socket does not: nothing when the command was
applied (204: the socket pushes the panels it changed, to this screen as to every other), or
the refusal as a toast with the server's {code, message}.
"""

from __future__ import annotations

import hmac
import secrets
import uuid
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.responses import HTMLResponse, Response

from app.rules import Actor
from app.rules.core.messages import message
from app.service import ServiceError, run_command
from app.service.commands import SessionFactory

from .fields import plain_form_text
from .live import Audience
from .reading import off_loop
from .render import render_page, render_push, render_template, render_toast

CSRF_COOKIE = "bc_csrf"
CSRF_HEADER = "x-csrf-token"
MONTH = 30 * 24 * 3600


def csrf_token(request: Request) -> str:
    """This browser's token: the one in its cookie, else a new one (set by `page`)."""
    token = request.cookies.get(CSRF_COOKIE, "")
    return token if 20 <= len(token) <= 100 else secrets.token_urlsafe(24)


async def check_csrf(request: Request) -> None:
    """Double submit: the token in the page (header, or a form field for plain forms) must equal the
    cookie. Another site can make a browser send the cookie, never read it to copy it."""
    cookie = request.cookies.get(CSRF_COOKIE, "")
    sent = request.headers.get(CSRF_HEADER)
    if sent is None:
        sent = str((await request.form()).get("csrf", ""))
    if not cookie or not hmac.compare_digest(cookie.encode(), sent.encode()):
        raise ServiceError("BAD_CSRF", message("bad_csrf"), 403)


CsrfChecked = Annotated[None, Depends(check_csrf)]


def set_cookie(response: Response, name: str, value: str, max_age: int = MONTH) -> None:
    # httponly: scripts never need these; Lax: links from a QR code still carry them.
    response.set_cookie(name, value, max_age=max_age, httponly=True, samesite="lax", path="/")


def page(html: str, token: str, status: int = 200) -> HTMLResponse:
    response = HTMLResponse(html, status_code=status, headers={"Cache-Control": "no-store"})
    set_cookie(response, CSRF_COOKIE, token)
    return response


def error_page(request: Request, error: ServiceError) -> HTMLResponse:
    """A refused page as a page, not as JSON: people, not scripts, open these URLs."""
    titles = {404: "No such game", 403: "Not for this device"}
    token = csrf_token(request)
    html = render_template(
        "error.html",
        title=titles.get(error.status, "Cannot open this"),
        message=error.message,
        csrf=token,
    )
    return page(html, token, error.status)


def toast(error: ServiceError) -> HTMLResponse:
    return HTMLResponse(render_toast(error.message, error.code), status_code=error.status)


async def screen_page(
    request: Request,
    audience: Audience,
    game_id: uuid.UUID,
    version: int,
    view: dict[str, Any],
    **extra: Any,
) -> HTMLResponse:
    """A screen's whole page; `extra` holds what only some screens show (the join QR)."""
    token = csrf_token(request)
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


async def panels(audience: Audience, version: int, view: dict[str, Any]) -> HTMLResponse:
    """Every panel of a screen, out of band: what a screen fetches when it wakes up."""
    html = await off_loop(render_push, audience, view, version)
    return HTMLResponse(html, headers={"Cache-Control": "no-store"})


async def form_command(
    request: Request,
    session_factory: SessionFactory,
    game_id: uuid.UUID,
    actor: Actor,
    build: Callable[[Any], dict[str, Any]],
    id_scope: str,
) -> Response:
    """Build a command from the posted form and run it (see `act`). The form's command_id is the
    caller's own: `id_scope` (the seat, or the GM) keeps it apart from other callers' ids."""
    form = await request.form()
    try:
        data = build(form)
        plain_form_text(data)
    except ServiceError as error:
        return toast(error)
    command_id = str(form.get("command_id") or "")
    return await act(
        session_factory, game_id, data, actor, f"{id_scope}:{command_id}" if command_id else None
    )


async def act(
    session_factory: SessionFactory,
    game_id: uuid.UUID,
    data: dict[str, Any],
    actor: Actor,
    command_id: str | None,
) -> Response:
    """Run one command: 204 once it is applied, or the refusal as a toast."""
    try:
        await run_command(
            session_factory, game_id, data, actor, command_id=command_id or secrets.token_hex(12)
        )
    except ServiceError as error:
        return toast(error)
    return Response(status_code=204)
