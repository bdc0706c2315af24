"""What the HTML routers share: the CSRF double submit, cookies, and answering an action with the
re-rendered panels or a toast carrying the server's {code, message}.
"""

from __future__ import annotations

import hmac
import secrets
import uuid
from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.responses import HTMLResponse, Response

from app.rules import Actor
from app.service import ServiceError, Viewer, run_command, view_for
from app.service.commands import SessionFactory

from .render import render_push, render_template, render_toast

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
        raise ServiceError("BAD_CSRF", "This page is out of date: reload it and try again.", 403)


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


async def act(
    session_factory: SessionFactory,
    game_id: uuid.UUID,
    data: dict[str, Any],
    actor: Actor,
    audience: str,
    viewer: Viewer,
    command_id: str | None,
) -> Response:
    """Run one command; answer with every panel of this screen (unchanged ones cost the browser
    nothing: it skips identical panels) or with the refusal as a toast."""
    try:
        result = await run_command(
            session_factory, game_id, data, actor, command_id=command_id or secrets.token_hex(12)
        )
    except ServiceError as error:
        return toast(error)
    return HTMLResponse(render_push(audience, view_for(result.state, viewer), result.version))
