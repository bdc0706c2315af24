"""The demo game `bridgecrew serve` makes sure of, and the links it prints for it.

Its GM token is derived from the server's secret key, not stored, so every start can print the GM
link again (the database keeps only the token's hash, as for every game).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import uuid
from collections.abc import Awaitable, Callable

from sqlalchemy import select

from app.db.models import Game
from app.db.session import create_engine, create_session_factory, database_url
from app.settings import get_settings

from .commands import SessionFactory
from .games import create_game, token_hash

DEMO_SCENARIO = "skirmish"


def demo_gm_token(game_id: uuid.UUID, secret_key: str) -> str:
    digest = hmac.new(secret_key.encode(), f"demo-gm:{game_id}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def links(game_id: uuid.UUID, join_code: str, gm_token: str) -> dict[str, str]:
    """Screen name -> path, as the CLI prints them (paths of the UI's routers)."""
    return {
        "GM dashboard": f"/gm/{game_id}?token={gm_token}",
        "Projector": f"/display/{game_id}",
        "Join (phones)": f"/join/{join_code}",
        "Lobby (new games)": "/gm",
        "API docs": "/docs",
    }


async def ensure_demo_game() -> dict[str, str]:
    """Links to the newest demo game, making one from "skirmish" first if there is none."""
    return await _with_database(_ensure)


async def create_demo_game() -> dict[str, str]:
    """Links to a brand-new demo game."""
    return await _with_database(_create)


async def _ensure(session_factory: SessionFactory) -> dict[str, str]:
    secret_key = get_settings().secret_key
    async with session_factory() as session:
        recent = (
            await session.execute(
                select(Game.id, Game.join_code, Game.gm_token_hash)
                .order_by(Game.created_at.desc())
                .limit(50)
            )
        ).all()
    for game_id, join_code, stored_hash in recent:
        token = demo_gm_token(game_id, secret_key)
        if hmac.compare_digest(stored_hash, token_hash(token)):
            return links(game_id, join_code, token)
    return await _create(session_factory)


async def _create(session_factory: SessionFactory) -> dict[str, str]:
    game_id = uuid.uuid4()
    token = demo_gm_token(game_id, get_settings().secret_key)
    _, join_code, _ = await create_game(
        session_factory, DEMO_SCENARIO, game_id=game_id, gm_token=token
    )
    return links(game_id, join_code, token)


async def _with_database(
    run: Callable[[SessionFactory], Awaitable[dict[str, str]]],
) -> dict[str, str]:
    # Called from the CLI before the server starts: its own short-lived engine.
    engine = create_engine(database_url(get_settings()))
    try:
        return await run(create_session_factory(engine))
    finally:
        await engine.dispose()
