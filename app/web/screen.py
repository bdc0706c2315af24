"""What the routers share: who is calling, the CSRF double submit, cookies, a screen's page and
its panels, and running a form's command.

Seats and the GM prove who they are with a token: `Authorization: Bearer <token>` (the JSON API,
props, scripts) or, for the browser screens, a per-game cookie holding the same token.

An action's answer carries only what the screen's socket does not: nothing when the command was
applied (204: the socket pushes the panels it changed, to this screen as to every other), or
the refusal as a toast with the server's {code, message}.
"""

from __future__ import annotations

import hmac
import secrets
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from fastapi import Depends, Header, Request
from fastapi.responses import HTMLResponse, Response
from starlette.requests import HTTPConnection

from app.rules import Actor
from app.rules.core.messages import message
from app.service import SeatInfo, ServiceError, Viewer, run_command
from app.service.commands import SessionFactory, game_key
from app.service.seats import token_elsewhere, token_owner

from .fields import plain_form_text
from .limits import OWNER_FOUND
from .live import Audience, Hub
from .reading import off_loop, read_view, speaking_game
from .render import render_page, render_push, render_template, render_toast

CSRF_COOKIE = "bc_csrf"
CSRF_HEADER = "x-csrf-token"
MONTH = 30 * 24 * 3600


def seat_cookie(game_id: uuid.UUID | str) -> str:
    """The cookie that holds a phone's seat token for one game (the raw token: it is already an
    unguessable secret checked against its stored hash, so signing would add nothing)."""
    return f"bc_seat_{game_id}"


def gm_cookie(game_id: uuid.UUID | str) -> str:
    return f"bc_gm_{game_id}"


def get_session_factory(connection: HTTPConnection) -> SessionFactory:
    factory: SessionFactory = connection.app.state.session_factory
    return factory


def get_hub(connection: HTTPConnection) -> Hub:
    hub: Hub = connection.app.state.hub
    return hub


# The dependencies are async (though they await nothing) so FastAPI calls them on the event loop:
# a plain `def` goes through the thread pool, a hop that costs more than they do, every request.
async def _session_factory_dep(connection: HTTPConnection) -> SessionFactory:
    return get_session_factory(connection)


SessionFactoryDep = Annotated[SessionFactory, Depends(_session_factory_dep)]


async def game_id_path(game_id: str) -> uuid.UUID:
    """The {game_id} of the URL; not a UUID means no such game (404, not a validation error)."""
    return game_key(game_id)


GameId = Annotated[uuid.UUID, Depends(game_id_path)]


@dataclass(frozen=True)
class Caller:
    """Who sent a request: the GM, one seat, or anyone (who sees what the projector shows)."""

    role: Literal["gm", "seat", "display"]
    seat: SeatInfo | None = None

    @property
    def viewer(self) -> Viewer:
        if self.role == "seat" and self.seat is not None:
            return self.seat.viewer
        return self.role

    @property
    def actor(self) -> Actor:
        if self.role == "gm":
            return Actor.gm()
        if self.role == "seat" and self.seat is not None:
            return Actor.for_seat(str(self.seat.id))
        raise unauthenticated()


def unauthenticated() -> ServiceError:
    return ServiceError("UNAUTHENTICATED", message("send_seat_or_gm_token"), 401)


def bearer_token(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ServiceError("UNAUTHENTICATED", message("send_bearer_token"), 401)
    return token.strip()


async def caller_for_token(
    connection: HTTPConnection,
    session_factory: SessionFactory,
    game_id: uuid.UUID,
    token: str | None,
) -> Caller:
    """The GM or seat this token opens in this game; no token is the public (display) caller."""
    if token is None:
        return Caller("display")
    owner = await _owner(connection, session_factory, game_id, token)
    if owner == "gm":
        return Caller("gm")
    if isinstance(owner, SeatInfo):
        return Caller("seat", owner)
    if await token_elsewhere(session_factory, token):
        raise ServiceError("NOT_THIS_GAME", message("not_this_game_token"), 403)
    raise ServiceError("BAD_TOKEN", message("token_not_for_game"), 401)


async def _owner(
    connection: HTTPConnection, session_factory: SessionFactory, game_id: uuid.UUID, token: str
) -> SeatInfo | Literal["gm"] | None:
    """Whom the token opens: what the rate limit found for this request if it looked (it looks
    for the game in the path, as spelled there), else one look-up now."""
    found = connection.scope.get("state", {}).get(OWNER_FOUND)
    if found is not None and found[0] == str(game_id) and found[1] == token:
        known: SeatInfo | Literal["gm"] | None = found[2]
        return known
    return await token_owner(session_factory, game_id, token)


async def api_caller(
    connection: HTTPConnection,
    game_id: GameId,
    session_factory: SessionFactoryDep,
    authorization: Annotated[str | None, Header()] = None,
) -> Caller:
    """The JSON API: bearer tokens only, so a browser's cookies can never act through it."""
    token = bearer_token(authorization)
    return await caller_for_token(connection, session_factory, game_id, token)


async def screen_caller(
    connection: HTTPConnection,
    game_id: GameId,
    session_factory: SessionFactoryDep,
    authorization: Annotated[str | None, Header()] = None,
) -> Caller:
    """The browser screens: a bearer token if given, else the GM cookie, else the seat cookie."""
    token = bearer_token(authorization)
    if token is None:
        for name in (gm_cookie(game_id), seat_cookie(game_id)):
            token = connection.cookies.get(name)
            if token:
                break
    return await caller_for_token(connection, session_factory, game_id, token or None)


ApiCaller = Annotated[Caller, Depends(api_caller)]
ScreenCaller = Annotated[Caller, Depends(screen_caller)]


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
    session_factory: SessionFactory,
    audience: Audience,
    game_id: uuid.UUID,
    viewer: Viewer,
    **extra: Any,
) -> HTMLResponse:
    """A screen's whole page, as `viewer` sees the game; `extra` holds what only some screens
    show (the join QR)."""
    try:
        version, view = await read_view(session_factory, game_id, viewer)
    except ServiceError as error:
        return error_page(request, error)
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
    session_factory: SessionFactory, audience: Audience, game_id: uuid.UUID, viewer: Viewer
) -> HTMLResponse:
    """Every panel of a screen, out of band: what a screen fetches when it wakes up."""
    version, view = await read_view(session_factory, game_id, viewer)
    async with speaking_game(session_factory, game_id):
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
    command_id = form_command_id(form, id_scope)
    return await act(run_command(session_factory, game_id, data, actor, command_id=command_id))


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
