"""The FastAPI application: database, live hub, deadline sweeper (and props, with a broker) for its
lifetime, the routers.

Migrations are not run here: `bridgecrew serve` (app.cli) migrates before any worker starts.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.middleware.gzip import GZipMiddleware

from app.db.session import create_engine, create_session_factory, database_url, plain_dsn
from app.i18n import LanguageMiddleware
from app.nesting import NESTING_MAX
from app.props import PropsBridge
from app.service.commands import on_commit
from app.settings import Settings, get_settings
from app.sweeper import DeadlineSweeper, Expiry
from app.web import (
    api,
    campaign,
    campaign_gm,
    display,
    editor,
    evening,
    gm,
    join,
    report,
    station,
    ws,
)
from app.web.errors import BodyLimit, install_error_handlers
from app.web.limits import JoinLookups, RateLimit, SocketLimit
from app.web.live import Hub
from app.web.logs import redact_server_logs
from app.web.security import BrowserGuard
from app.web.serving import raise_file_limit

STATIC_DIR = Path(__file__).resolve().parents[1] / "static"

SHIPPED = Settings.model_construct()  # the limits as shipped, for the API's description

DESCRIPTION = f"""
Starship combat for LARP events. One server holds each game; phones, the GM's dashboard and the
projector follow it over websockets.

**Tokens.** `POST /api/games` returns the GM's token, `POST /api/games/{{id}}/seats` a seat's.
Send it as `Authorization: Bearer <token>`. Without a token you see what the projector shows. A
seat acts only for its own station (403 `NOT_YOUR_STATION`, `NOT_YOUR_SHIP`); a token of another
game gets 403 `NOT_THIS_GAME`; a freed seat's token 401 `BAD_TOKEN`.

**Commands.** `POST /api/games/{{id}}/commands` with a `command_id` you choose (a retry with the
same id is applied once; ids are yours alone, another token's same id is another command) and
optionally `expected_version` (else 409 `STALE_VERSION`). Every command type is listed on that
endpoint.

**Errors.** Every 4xx and 5xx body is `{{"code": ..., "message": ...}}`.

**Limits** (as shipped; the server's settings may change them). Bodies up to
{SHIPPED.max_body_bytes // 1024} KiB (413 `TOO_LARGE`), arriving within
{SHIPPED.body_timeout_s:g} s (408 `REQUEST_TIMEOUT`), JSON nested at most {NESTING_MAX} levels
(400 `TOO_DEEP`). Per seat or GM token,
{SHIPPED.command_rate:g} commands a second with bursts of {SHIPPED.command_burst}; per address
for everything else (no token, a token that opens nothing here, creating games and joining them)
{SHIPPED.anonymous_rate:g} a second with bursts of {SHIPPED.anonymous_burst}; reads per address
{SHIPPED.read_rate:g} a second with bursts of {SHIPPED.read_burst} (429 `RATE_LIMITED`, with
`Retry-After`). Per address at once: {SHIPPED.connections_per_address}
connections (503 `TOO_MANY_CONNECTIONS`) and {SHIPPED.sockets_per_address} websockets.

**Websockets.** `/ws/station/{{id}}`, `/ws/gm/{{id}}` (token as `Authorization: Bearer`, or
`?token=`), `/ws/display/{{id}}` push the screen's view (HTML fragments for htmx, or JSON with
`?format=json`) on connect and after every change; `/ws/events/{{id}}?after=N` streams public
events as JSON. Clients send nothing: a frame over {SHIPPED.ws_max_frame_bytes // 1024} KiB
closes the socket with 1009, a flood of frames with 1008. A page on another site is refused
(1008 `CROSS_SITE`), as is a freed seat (1008 `SEAT_FREED`); a socket over its address's cap is
closed with 4429 `TOO_MANY_SOCKETS`, and every socket of a game deleted as expired with 4410
`GAME_GONE`.
"""


def create_app(
    settings: Settings | None = None,
    *,
    heartbeat_seconds: float | None = None,
) -> FastAPI:
    """Settings are read when the app starts, not when it is built, so importing has no effects."""

    def current_settings() -> Settings:
        return settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        redact_server_logs()
        raise_file_limit()
        chosen = current_settings()
        url = await asyncio.to_thread(database_url, chosen)  # may start the embedded server
        engine = create_engine(url)
        session_factory = create_session_factory(engine)
        heartbeat = heartbeat_seconds or chosen.heartbeat_s
        seat_watch = ws.SeatWatch(session_factory)
        hub = Hub(session_factory, plain_dsn(url), heartbeat, seat_watch.notice)
        sweeper = DeadlineSweeper(session_factory, expiry=Expiry.of(chosen))
        app.state.settings = chosen
        app.state.session_factory = session_factory
        app.state.hub = hub
        app.state.heartbeat_s = heartbeat  # pages render it: their watchdog counts in heartbeats
        app.state.seat_watch = seat_watch
        await hub.start()
        props = None
        if chosen.mqtt_url:
            props = PropsBridge(session_factory, chosen)
            await props.start()
            # Replaces the hook the hub set: commits now reach the hub first, then the props.
            on_commit(session_factory, props.after(hub.committed))
        app.state.props = props
        await seat_watch.start()
        sweeper.start()
        try:
            yield
        finally:
            await sweeper.stop()
            if props is not None:
                await props.stop()
            await seat_watch.stop()
            await hub.stop()
            await engine.dispose()

    app = FastAPI(title="Bridge Crew", description=DESCRIPTION, version="0.1.0", lifespan=lifespan)
    install_error_handlers(app)
    app.state.join_lookups = JoinLookups(current_settings)
    # The last added runs first: refuse cross-site posts, then callers that are too fast, then
    # bodies that are too big or too slow, before any route reads anything.
    app.add_middleware(BodyLimit, settings=current_settings)
    app.add_middleware(SocketLimit, settings=current_settings)
    app.add_middleware(RateLimit, settings=current_settings)
    app.add_middleware(BrowserGuard, public_base_url=lambda: current_settings().public_base_url)
    # Phones on venue Wi-Fi: pages are HTML and text, which gzip shrinks well. At zlib's default
    # level: compressing runs on the event loop, and Starlette's default (9) costs much more CPU
    # for hardly fewer bytes.
    app.add_middleware(GZipMiddleware, minimum_size=1000, compresslevel=6)
    # Outermost: every answer, refusals included, in the device's language (app/i18n.py).
    app.add_middleware(LanguageMiddleware, pseudo=lambda: current_settings().pseudo_language)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    app.include_router(api.router)
    app.include_router(api.health)
    app.include_router(ws.router)
    # The browser screens, one router per audience (owned by the UI).
    for router in (
        station.router,
        gm.router,
        evening.router,
        display.router,
        join.router,
        report.router,
        editor.router,
        campaign.router,
        campaign_gm.router,
    ):
        app.include_router(router)
    return app


app = create_app()
