"""The organisers' content editor (issue 33): ship classes, decks, characters and scenarios
(with their zone maps) in the content library, which every game on this server can use.

Content is shared by the whole server, so the editor opens with the organiser key that
`bridgecrew serve` prints (settings.organiser_key), never with a game's GM or seat token. The key
rides in the printed link once, then in a cookie of its own. Who saves a version is the name the
organiser gives the editor (a cookie too); the key says only that they may.
"""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.deps import SessionFactoryDep
from app.rules.core.messages import message
from app.service import ServiceError
from app.service.library import KINDS, items

from .fields import checked_name
from .render import render_template
from .screen import CsrfChecked, csrf_token, error_page, page, set_cookie

router = APIRouter(tags=["editor"])

KEY_COOKIE = "bc_organiser"
NAME_COOKIE = "bc_editor_name"


def _key_matches(request: Request, key: str) -> bool:
    wanted = request.app.state.settings.organiser_key
    return bool(key) and hmac.compare_digest(key.encode(), wanted.encode())


async def organiser_only(request: Request) -> None:
    """The organiser key's cookie, or a refusal (a page: people open these URLs)."""
    if not _key_matches(request, request.cookies.get(KEY_COOKIE, "")):
        raise ServiceError("ORGANISER_ONLY", message("organiser_key_needed"), 403)


OrganiserOnly = Annotated[None, Depends(organiser_only)]


def author(request: Request) -> str:
    """Who saves: the name this browser gave the editor, else 'organiser'."""
    return request.cookies.get(NAME_COOKIE, "") or "organiser"


def refused(request: Request, error: ServiceError) -> HTMLResponse:
    """A refusal as a page; the organiser key's refusal offers the key's form."""
    if error.code != "ORGANISER_ONLY":
        return error_page(request, error)
    token = csrf_token(request)
    html = render_template("editor_key.html", csrf=token, message=error.message, code=error.code)
    return page(html, token, error.status)


@router.get("/editor", response_class=HTMLResponse)
async def home(
    request: Request, session_factory: SessionFactoryDep, organiser_token: str | None = None
) -> Response:
    if organiser_token is not None:
        # The printed link: keep the key in a cookie and off the address bar.
        if not _key_matches(request, organiser_token):
            return refused(
                request, ServiceError("ORGANISER_ONLY", message("organiser_key_wrong"), 403)
            )
        response = RedirectResponse("/editor", status_code=303)
        set_cookie(response, KEY_COOKIE, organiser_token)
        return response
    try:
        await organiser_only(request)
    except ServiceError as error:
        return refused(request, error)
    token = csrf_token(request)
    html = render_template(
        "editor.html",
        csrf=token,
        kinds=KINDS,
        items=await items(session_factory),
        author=author(request),
    )
    return page(html, token)


@router.post("/editor/key")
async def typed_key(request: Request, csrf: CsrfChecked, key: Annotated[str, Form()]) -> Response:
    """The key typed in, for an organiser who has it but not the printed link."""
    if not _key_matches(request, key.strip()):
        return refused(request, ServiceError("ORGANISER_ONLY", message("organiser_key_wrong"), 403))
    response = RedirectResponse("/editor", status_code=303)
    set_cookie(response, KEY_COOKIE, key.strip())
    return response


@router.post("/editor/name")
async def my_name(
    request: Request, csrf: CsrfChecked, organiser: OrganiserOnly, name: Annotated[str, Form()]
) -> Response:
    """The name versions this browser saves are signed with."""
    try:
        chosen = checked_name(name)
    except ServiceError as error:
        return error_page(request, error)
    response = RedirectResponse("/editor", status_code=303)
    set_cookie(response, NAME_COOKIE, chosen)
    return response
