"""Campaigns through PostgreSQL (G-CAMP-1): an evening begun from the roster in the game's first
transaction, written back with its report and phones in one, carried through the next battle."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.models import Game
from app.rules import Actor
from app.service import ServiceError, canonical, create_seat, load_state, replay_state, run_command
from app.service.campaign_reads import evening_report, evenings_of, load_campaign
from app.service.campaigns import begin_evening, create_campaign, end_evening
from app.service.evening import move_table_on
from app.sweeper import Expiry, expire_games

Sessions = async_sessionmaker[AsyncSession]


async def gm(sessions: Sessions, game_id: uuid.UUID, **command: object) -> None:
    await run_command(sessions, game_id, dict(command), Actor.gm(), command_id=uuid.uuid4().hex)


async def test_g_camp_1_an_evening_begins_from_the_roster_and_writes_it_back(
    session_factory: Sessions,
) -> None:
    campaign_id, _ = await create_campaign(session_factory, "Die lange Reise der Zuversicht")
    game_id, _, _ = await begin_evening(session_factory, campaign_id, "skirmish")
    await create_seat(session_factory, game_id, "kestrel", "weapons", "Ada", "amara-lind")
    await gm(session_factory, game_id, type="SetTrack", ship="kestrel", track="hull", damage=4)
    await gm(session_factory, game_id, type="SetCharacteristic", character="amara-lind",
             field="endurance", value=3)  # fmt: skip
    with pytest.raises(ServiceError) as caught:
        await begin_evening(session_factory, campaign_id, "convoy")
    assert caught.value.code == "EVENING_RUNNING"
    assert await end_evening(session_factory, game_id, "end-1") == campaign_id
    assert await end_evening(session_factory, game_id, "end-1") == campaign_id  # a retry
    with pytest.raises(ServiceError) as caught:
        await end_evening(session_factory, game_id, "end-2")
    assert caught.value.code == "EVENING_ENDED"
    _, campaign = await load_campaign(session_factory, campaign_id)
    assert campaign["ships"]["kestrel"]["hull"]["damage"] == 4
    assert campaign["characters"]["amara-lind"]["endurance"]["value"] == 3
    assert [
        (e.number, e.ended, e.has_report) for e in await evenings_of(session_factory, campaign_id)
    ] == [(1, True, True)]

    second, _, _ = await begin_evening(session_factory, campaign_id, "torpedo-run")
    _, state = await load_state(session_factory, second)
    assert state["ships"]["harrier"]["class"] == "frigate"
    assert state["ships"]["harrier"]["hull"]["damage"] == 4
    assert canonical(await replay_state(session_factory, second)) == state
    # The next battle of the evening keeps the campaign's ship aboard.
    await move_table_on(session_factory, second, "skirmish", "gm:next")
    _, state = await load_state(session_factory, second)
    assert state["ships"]["kestrel"]["hull"]["damage"] == 4
    assert canonical(await replay_state(session_factory, second)) == state


async def test_g_camp_1_a_running_evening_keeps_its_game_and_a_written_one_keeps_its_report(
    session_factory: Sessions,
) -> None:
    expiry = Expiry(finished_after=timedelta(hours=24), idle_after=timedelta(days=7))
    now = datetime.now(UTC)
    campaign_id, _ = await create_campaign(session_factory, "Lange Nächte")
    game_id, _, _ = await begin_evening(session_factory, campaign_id, "skirmish")

    async def untouched_for(days: int) -> None:
        async with session_factory() as session, session.begin():
            await session.execute(
                update(Game).where(Game.id == game_id).values(updated_at=now - timedelta(days))
            )

    await untouched_for(30)
    assert await expire_games(session_factory, expiry, now) == []  # the roster is still in it
    await end_evening(session_factory, game_id, "end")
    await untouched_for(30)
    assert await expire_games(session_factory, expiry, now) == [game_id]
    report = await evening_report(session_factory, campaign_id, 1)
    assert report["battles"][0]["scenario"]["id"] == "skirmish"
