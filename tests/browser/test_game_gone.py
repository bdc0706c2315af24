"""A game the sweeper deletes while only the GM and the projector watch it: each screen says so,
in its own language, instead of showing a game that is no more."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from playwright.sync_api import expect
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from app.db.session import create_session_factory
from app.sweeper import Expiry, expire_games
from tests.browser.conftest import Server
from tests.browser.screens import create_game

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT = 15_000


async def expire_every_game(db_url: str) -> list[Any]:
    """Every game made a day and a half old, then the sweeper's expiry, as it runs."""
    engine = create_async_engine(db_url)
    try:
        async with engine.begin() as connection:
            await connection.execute(text("UPDATE games SET updated_at = now() - interval '36h'"))
        expiry = Expiry(finished_after=timedelta(hours=24), idle_after=timedelta(days=7))
        return await expire_games(create_session_factory(engine), expiry, datetime.now(UTC))
    finally:
        await engine.dispose()


def test_the_gm_and_the_projector_of_an_expired_game_are_told_in_their_language(
    server: Server, browser: Any
) -> None:
    gm = browser.new_context().new_page()
    create_game(gm, server.base)
    game = re.search(r"/gm/([0-9a-f-]+)", gm.url)
    assert game is not None
    gm.goto(f"{server.base}/gm/{game.group(1)}?lang=de")  # the GM's laptop speaks German
    projector = browser.new_context().new_page()
    projector.goto(f"{server.base}/display/{game.group(1)}")
    for page in (gm, projector):
        expect(page.locator("#bc-version")).to_have_attribute("data-shown", re.compile("."))
    with ThreadPoolExecutor(max_workers=1) as worker:  # Playwright's loop runs in this thread
        assert server.db_url is not None
        expired = worker.submit(asyncio.run, expire_every_game(server.db_url)).result()
    assert len(expired) == 1
    expect(gm.locator("#offline")).to_have_text(re.compile("^Dieses Spiel wurde gelöscht"))
    expect(projector.locator("#offline")).to_have_text(re.compile("^This game was deleted"))
    expect(projector.locator("#offline")).to_be_visible()
