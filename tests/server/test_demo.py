"""`bridgecrew serve` makes sure of a demo game and can print its GM link on every start."""

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.service import create_game, ensure_demo_game, game_by_join_code, is_gm_token
from app.settings import get_settings


@pytest.fixture
def demo_env(db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("DATABASE_URL", db_url)
    monkeypatch.setenv("BRIDGECREW_DATA_DIR", str(tmp_path))
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


async def test_demo_game_is_made_once_and_its_gm_link_works_after_a_restart(
    demo_env: None, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    await create_game(session_factory, "convoy")  # someone's own game does not count as a demo
    links = await ensure_demo_game()
    assert await ensure_demo_game() == links  # a second start prints the same game
    gm = urlsplit(links["GM dashboard"])
    game_id = gm.path.rsplit("/", 1)[-1]
    assert await is_gm_token(session_factory, game_id, parse_qs(gm.query)["token"][0])
    join_code = links["Join (phones)"].rsplit("/", 1)[-1]
    game = await game_by_join_code(session_factory, join_code.lower())
    assert game is not None and str(game.id) == game_id and game.scenario == "skirmish"
    assert links["Projector"] == f"/display/{game_id}"
    assert links["Lobby (new games)"] == "/gm"
