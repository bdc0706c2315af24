"""Games made by strangers were never deleted (about 32 KB each, half a gigabyte
an hour from one address at the creation limit). A game nobody changes expires: out of combat
after `finished_game_hours` (24 unless set), any game after `idle_game_days` (7); never one a
phone is connected to, nor one a command holds. Exported first when `expired_games_dir` is set.

The clock is injected: each game's `updated_at` is set back, and `expire_games` is told the time."""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from app.backup import import_game
from app.db.models import AppliedCommand, Event, Game, Seat
from app.rules import Actor
from app.service import create_game, create_seat, is_gm_token, run_command
from app.service.commands import locked
from app.settings import Settings
from app.sweeper import DeadlineSweeper, Expiry, expire_games
from app.web.live.hub import CLOSE_GONE
from tests.conftest import until
from tests.server.conftest import LiveServer

Sessions = async_sessionmaker[AsyncSession]
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
EXPIRY = Expiry(finished_after=timedelta(hours=24), idle_after=timedelta(days=7))


START: dict[str, Any] = {"type": "StartTurn", "seconds": 0}
PLAYED: dict[str, list[dict[str, Any]]] = {
    "new": [],
    "after a combat": [START, {"type": "EndCombat"}],
    "in combat": [START],
}


async def _game(factory: Sessions, phase: str, unchanged_for: timedelta) -> tuple[uuid.UUID, str]:
    """A game in Downtime (never started, or after a combat) or in combat, last changed
    `unchanged_for` before NOW; and its GM token."""
    game_id, _, gm_token = await create_game(factory, "skirmish")
    commands = PLAYED[phase]
    for n, command in enumerate(commands):
        await run_command(factory, game_id, command, Actor.gm(), command_id=f"c{n}")
    await _changed(factory, game_id, NOW - unchanged_for)
    return game_id, gm_token


async def _changed(factory: Sessions, game_id: uuid.UUID, when: datetime) -> None:
    async with factory() as session, session.begin():
        await session.execute(update(Game).where(Game.id == game_id).values(updated_at=when))


async def _left(factory: Sessions) -> set[uuid.UUID]:
    async with factory() as session:
        return set(await session.scalars(select(Game.id)))


async def test_finished_and_idle_games_expire_and_games_in_play_stay(
    session_factory: Sessions,
) -> None:
    hours = timedelta(hours=1)
    finished, finished_gm = await _game(session_factory, "after a combat", 25 * hours)
    never_started, _ = await _game(session_factory, "new", 25 * hours)
    abandoned, _ = await _game(session_factory, "in combat", 8 * 24 * hours)
    recent, _ = await _game(session_factory, "new", 23 * hours)
    fighting, _ = await _game(session_factory, "in combat", 6 * 24 * hours)
    watched, _ = await _game(session_factory, "after a combat", 30 * hours)
    seat, _ = await create_seat(session_factory, watched, "kestrel", "pilot", "Ana")
    await _changed(session_factory, watched, NOW - 30 * hours)
    async with session_factory() as session, session.begin():  # its phone is connected
        await session.execute(
            update(Seat).where(Seat.id == seat).values(last_seen_at=NOW - timedelta(seconds=3))
        )
    assert await is_gm_token(session_factory, finished, finished_gm)

    deleted = await expire_games(session_factory, EXPIRY, now=NOW)

    assert set(deleted) == {finished, never_started, abandoned}
    assert await _left(session_factory) == {recent, fighting, watched}
    async with session_factory() as session:  # nothing of theirs is left behind
        for table in (Event, Seat, AppliedCommand):
            gone = select(func.count()).select_from(table).where(table.game_id.in_(deleted))
            assert await session.scalar(gone) == 0
    assert not await is_gm_token(session_factory, finished, finished_gm)  # forgotten at once
    assert await expire_games(session_factory, EXPIRY, now=NOW) == []


async def test_a_game_a_command_holds_is_not_deleted(
    session_factory: Sessions,
) -> None:
    """A command holding the game's row (its transaction not yet committed) makes the expiry
    pass the game by without waiting: the command may be changing it."""
    held, _ = await _game(session_factory, "new", timedelta(days=2))
    holding, release = asyncio.Event(), asyncio.Event()

    async def command_in_flight() -> None:
        async with locked(session_factory, held):
            holding.set()
            await release.wait()

    task = asyncio.create_task(command_in_flight())
    await holding.wait()
    try:
        deleted = await asyncio.wait_for(expire_games(session_factory, EXPIRY, now=NOW), 10)
    finally:
        release.set()
        await task
    assert deleted == []
    assert await _left(session_factory) == {held}
    assert await expire_games(session_factory, EXPIRY, now=NOW) == [held]


async def test_expired_games_are_exported_first_and_import_again(
    session_factory: Sessions, tmp_path: Path
) -> None:
    game_id, gm_token = await _game(session_factory, "after a combat", timedelta(days=2))
    await create_seat(session_factory, game_id, "kestrel", "pilot", "Ana")
    await _changed(session_factory, game_id, NOW - timedelta(days=2))
    folder = tmp_path / "expired"
    exporting = Expiry(EXPIRY.finished_after, EXPIRY.idle_after, folder)

    assert await expire_games(session_factory, exporting, now=NOW) == [game_id]

    files = list(folder.iterdir())
    assert [file.name for file in files] == [f"{game_id}.json"]
    data = json.loads(files[0].read_text(encoding="utf-8"))
    assert data["game"]["id"] == str(game_id) and len(data["seats"]) == 1
    back = await import_game(session_factory, data, keep_tokens=True)
    assert back.game_id == str(game_id)
    assert await is_gm_token(session_factory, game_id, gm_token)


async def test_a_game_whose_export_fails_is_kept(session_factory: Sessions, tmp_path: Path) -> None:
    game_id, _ = await _game(session_factory, "new", timedelta(days=2))
    blocked = tmp_path / "a file, not a folder"
    blocked.write_text("")
    exporting = Expiry(EXPIRY.finished_after, EXPIRY.idle_after, blocked)
    assert await expire_games(session_factory, exporting, now=NOW) == []
    assert await _left(session_factory) == {game_id}


async def test_the_sweeper_expires_games_as_it_runs(session_factory: Sessions) -> None:
    game_id, _ = await _game(session_factory, "new", timedelta(days=30))
    expiry = Expiry(timedelta(hours=24), timedelta(days=7))
    sweeper = DeadlineSweeper(session_factory, 0.01, expiry=expiry, expire_every=0.01)
    sweeper.start()
    try:

        async def gone() -> bool:
            return game_id not in await _left(session_factory)

        await until(gone, what="the sweeper to expire the game")
    finally:
        await sweeper.stop()


async def test_the_screens_of_an_expired_game_are_closed_with_a_sentence_in_their_language(
    session_factory: Sessions, live: LiveServer
) -> None:
    """A game only the GM and the projector watch has no phone to keep it: once expired, their
    sockets close with the reason, each in its screen's language, rather than stay open on a
    game that is no more."""
    game_id, gm_token = await _game(session_factory, "new", timedelta(days=2))
    gm = f"{live.ws}/ws/gm/{game_id}?token={gm_token}"
    async with (
        connect(gm, additional_headers={"Cookie": "bc_lang=de"}) as german_gm,
        connect(f"{live.ws}/ws/display/{game_id}") as projector,
    ):
        for socket in (german_gm, projector):
            await asyncio.wait_for(socket.recv(), 10)  # the welcome: the screen is live
        await _changed(session_factory, game_id, NOW - timedelta(days=2))
        assert await expire_games(session_factory, EXPIRY, now=NOW) == [game_id]
        for socket in (german_gm, projector):
            with pytest.raises(ConnectionClosed):
                while True:
                    await asyncio.wait_for(socket.recv(), 10)
        assert german_gm.close_code == projector.close_code == CLOSE_GONE
        assert str(german_gm.close_reason).startswith("GAME_GONE: Dieses Spiel wurde gelöscht")
        assert str(projector.close_reason).startswith("GAME_GONE: This game was deleted")


def test_the_settings_say_when_games_expire(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path,
        finished_game_hours=2,
        idle_game_days=0.5,
        expired_games_dir=tmp_path / "out",
    )
    assert Expiry.of(settings) == Expiry(timedelta(hours=2), timedelta(hours=12), tmp_path / "out")
    with pytest.raises(ValueError, match="greater than 0"):
        Settings(data_dir=tmp_path, idle_game_days=0)


def test_the_lobby_shows_how_many_games_the_server_holds(client: TestClient) -> None:
    def held() -> str:
        lobby: str = client.get("/gm").text
        start = lobby.index('class="muted games-held">') + len('class="muted games-held">')
        return lobby[start : lobby.index("</p>", start)]

    assert held().startswith("This server holds 0 live games.")
    client.post("/api/games", json={"scenario": "skirmish"})
    assert held().startswith("This server holds 1 live game.")
    client.post("/api/games", json={"scenario": "skirmish"})
    assert held() == (
        "This server holds 2 live games. A game nobody changes is deleted: out of combat "
        "after 24 h, in combat after 7 days."
    )
