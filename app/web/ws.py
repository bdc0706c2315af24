"""Websocket routes: one per audience. Each socket gets its full view on connect, then its view
again after every change (HTML out-of-band fragments for htmx, or JSON with ?format=json).

A refused socket is accepted and then closed with 1008 (policy violation): htmx-ext-ws does not
reconnect after that code, so a phone with a stale token stops knocking.
"""

from __future__ import annotations

import uuid
from typing import Annotated
from urllib.parse import urlsplit

from fastapi import APIRouter, Query, WebSocket

from app.deps import get_hub, get_session_factory, gm_cookie, seat_cookie
from app.live import HTML_AVAILABLE, Audience, Format
from app.service import ServiceError, game_info, is_gm_token, seat_by_token
from app.service.commands import Viewer, game_key
from app.settings import get_settings

router = APIRouter()
CLOSE_REFUSED = 1008

FormatQuery = Annotated[str, Query(alias="format", pattern="^(html|json)$")]


@router.websocket("/ws/station/{game_id}")
async def station_socket(
    websocket: WebSocket, game_id: str, token: str | None = None, fmt: FormatQuery = "html"
) -> None:
    """One phone's station. Its seat token comes from ?token= or the game's seat cookie."""
    await websocket.accept()
    try:
        key = await _existing_game(websocket, game_id)
        seat = await seat_by_token(
            get_session_factory(websocket), key, token or _cookie(websocket, seat_cookie(key))
        )
        if seat is None:
            raise ServiceError("BAD_TOKEN", "This phone holds no seat in this game.", 401)
    except ServiceError as error:
        await _refuse(websocket, error)
        return
    await _serve(websocket, key, "station", seat.viewer, fmt)


@router.websocket("/ws/gm/{game_id}")
async def gm_socket(
    websocket: WebSocket, game_id: str, token: str | None = None, fmt: FormatQuery = "html"
) -> None:
    """The GM's dashboard: the GM token from ?token= or the game's GM cookie."""
    await websocket.accept()
    try:
        key = await _existing_game(websocket, game_id)
        given = token or _cookie(websocket, gm_cookie(key))
        if not await is_gm_token(get_session_factory(websocket), key, given):
            raise ServiceError("BAD_TOKEN", "That is not this game's GM token.", 401)
    except ServiceError as error:
        await _refuse(websocket, error)
        return
    await _serve(websocket, key, "gm", "gm", fmt)


@router.websocket("/ws/display/{game_id}")
async def display_socket(websocket: WebSocket, game_id: str, fmt: FormatQuery = "html") -> None:
    """The projector: public, it shows nothing secret."""
    await websocket.accept()
    try:
        key = await _existing_game(websocket, game_id)
    except ServiceError as error:
        await _refuse(websocket, error)
        return
    await _serve(websocket, key, "display", "display", fmt)


@router.websocket("/ws/events/{game_id}")
async def events_socket(
    websocket: WebSocket, game_id: str, after: Annotated[int | None, Query(ge=0)] = None
) -> None:
    """Public events as JSON, one message each, e.g. for a prop that flashes when the hull is hit:
    first {"type": "hello", "version": v}, then {"type": "event", "version", "seq", "event"}.
    With ?after=N the events after version N come right after the hello."""
    await websocket.accept()
    try:
        key = await _existing_game(websocket, game_id)
    except ServiceError as error:
        await _refuse(websocket, error)
        return
    await get_hub(websocket).serve(
        websocket, key, "events", "display", "json", events_after_version=after
    )


async def _serve(
    websocket: WebSocket, game_id: uuid.UUID, audience: Audience, viewer: Viewer, fmt: str
) -> None:
    chosen: Format = "html" if fmt == "html" and HTML_AVAILABLE else "json"
    await get_hub(websocket).serve(websocket, game_id, audience, viewer, chosen)


async def _existing_game(websocket: WebSocket, game_id: str) -> uuid.UUID:
    key = game_key(game_id)
    await game_info(get_session_factory(websocket), key)
    return key


def _cookie(websocket: WebSocket, name: str) -> str | None:
    """A token from a cookie, only when the page asking is ours: a page elsewhere must not open
    a socket with the phone's cookies (browsers send them with websocket handshakes)."""
    token = websocket.cookies.get(name)
    if not token:
        return None
    origin = websocket.headers.get("origin")
    if origin is None:
        return token  # not a browser
    ours = {websocket.headers.get("host"), websocket.headers.get("x-forwarded-host")}
    public = get_settings().public_base_url
    if public:
        ours.add(urlsplit(public).netloc)
    return token if urlsplit(origin).netloc in ours else None


async def _refuse(websocket: WebSocket, error: ServiceError) -> None:
    # The reason travels in the close frame, which allows at most 123 bytes.
    reason = f"{error.code}: {error.message}".encode()[:120].decode(errors="ignore")
    await websocket.close(CLOSE_REFUSED, reason)
