"""The FastAPI application: database, live hub and deadline sweeper for its lifetime, the routers.

Migrations are not run here: `bridgecrew serve` (app.cli) migrates before any worker starts.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from app.db.session import create_engine, create_session_factory, database_url
from app.live import HEARTBEAT_SECONDS, Hub
from app.settings import Settings, get_settings
from app.sweeper import DeadlineSweeper
from app.web import api, display, gm, join, station, ws
from app.web.errors import BodyLimit, install_error_handlers

STATIC_DIR = Path(__file__).resolve().parents[1] / "static"

DESCRIPTION = """
Starship combat for LARP events. One server holds each game; phones, the GM's dashboard and the
projector follow it over websockets.

**Tokens.** `POST /api/games` returns the GM's token, `POST /api/games/{id}/seats` a seat's. Send
it as `Authorization: Bearer <token>`. Without a token you see what the projector shows.

**Commands.** `POST /api/games/{id}/commands` with a `command_id` you choose (a retry with the same
id is applied once) and optionally `expected_version` (else 409 `STALE_VERSION`). Every command
type is listed on that endpoint.

**Errors.** Every 4xx and 5xx body is `{"code": ..., "message": ...}`.

**Websockets.** `/ws/station/{id}?token=`, `/ws/gm/{id}?token=`, `/ws/display/{id}` push the
screen's view (HTML fragments for htmx, or JSON with `?format=json`) on connect and after every
change; `/ws/events/{id}?after=N` streams public events as JSON.
"""


def create_app(
    settings: Settings | None = None, *, heartbeat_seconds: float = HEARTBEAT_SECONDS
) -> FastAPI:
    """Settings are read when the app starts, not when it is built, so importing has no effects."""

    def current_settings() -> Settings:
        return settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        chosen = current_settings()
        url = await asyncio.to_thread(database_url, chosen)  # may start the embedded server
        engine = create_engine(url)
        session_factory = create_session_factory(engine)
        hub = Hub(session_factory, url, heartbeat_seconds)
        sweeper = DeadlineSweeper(session_factory)
        app.state.settings = chosen
        app.state.session_factory = session_factory
        app.state.hub = hub
        await hub.start()
        sweeper.start()
        try:
            yield
        finally:
            await sweeper.stop()
            await hub.stop()
            await engine.dispose()

    app = FastAPI(title="Bridge Crew", description=DESCRIPTION, version="0.1.0", lifespan=lifespan)
    install_error_handlers(app)
    app.add_middleware(BodyLimit, max_bytes=lambda: current_settings().max_body_bytes)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    app.include_router(api.router)
    app.include_router(api.health)
    app.include_router(ws.router)
    # The browser screens, one router per audience (owned by the UI).
    for router in (station.router, gm.router, display.router, join.router):
        app.include_router(router)
    return app


app = create_app()
