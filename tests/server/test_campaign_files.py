"""A whole campaign as one file (G-CAMP-8): exported and imported on another laptop, the file
checked whole before anything is written, by replaying its commands through the rules. A newer
format, a changed roll or value, unkeyed dice, a forged roster, a running evening whose game is not
here: each refused with a code and a sentence, nothing written."""

from __future__ import annotations

import asyncio
import copy
import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from typer.testing import CliRunner

from app.cli import cli
from app.db.models import Campaign, CampaignEvening, CampaignPhone, Game
from app.db.session import create_engine, create_session_factory
from app.rules import Actor
from app.service import ServiceError, create_seat, run_command
from app.service.campaign_files import (
    campaign_file_bytes,
    export_campaign,
    import_campaign,
    replay_campaign,
)
from app.service.campaign_reads import evening_report, load_campaign
from app.service.campaigns import (
    begin_evening,
    create_campaign,
    end_evening,
    is_campaign_gm,
    run_campaign_command,
)

Sessions = async_sessionmaker[AsyncSession]
Data = dict[str, Any]


async def played(sessions: Sessions) -> uuid.UUID:
    """A campaign with one evening written back (a wound, Hull damage) and a Downtime done."""
    campaign_id, _ = await create_campaign(sessions, "Wanderer zwischen den Sternen")
    game_id, _, _ = await begin_evening(sessions, campaign_id, "skirmish")
    await create_seat(sessions, game_id, "kestrel", "weapons", "Ada", "amara-lind")
    for command in (
        {"type": "SetTrack", "ship": "kestrel", "track": "hull", "damage": 4},
        {"type": "SetCharacteristic", "character": "amara-lind", "field": "endurance", "value": 3},
    ):
        await run_command(sessions, game_id, command, Actor.gm(), command_id=uuid.uuid4().hex)
    await end_evening(sessions, game_id, "end-1")
    plan = {"type": "StartDowntime", "days": 2, "plans": {"amara-lind": {"care": "rest"}}}
    await run_campaign_command(sessions, campaign_id, plan, Actor.gm(), "downtime-1")
    return campaign_id


async def count(sessions: Sessions) -> int:
    async with sessions() as session:
        return int(await session.scalar(select(func.count()).select_from(Campaign)) or 0)


async def forget(sessions: Sessions, campaign_id: uuid.UUID) -> None:
    """This laptop no longer has the campaign: the file goes to another."""
    async with sessions() as session, session.begin():
        await session.execute(delete(Campaign).where(Campaign.id == campaign_id))


async def test_g_camp_8_a_campaign_moves_whole_and_replays_the_same(
    session_factory: Sessions,
) -> None:
    campaign_id = await played(session_factory)
    data = await export_campaign(session_factory, campaign_id)
    raw = campaign_file_bytes(data)
    with pytest.raises(ServiceError) as caught:  # this server has it already
        await import_campaign(session_factory, raw)
    assert caught.value.code == "CAMPAIGN_EXISTS"
    _, before = await load_campaign(session_factory, campaign_id)
    await forget(session_factory, campaign_id)
    imported, gm_token = await import_campaign(session_factory, raw)
    assert imported == campaign_id
    _, after = await load_campaign(session_factory, campaign_id)
    assert after == before
    assert await replay_campaign(session_factory, campaign_id) == after
    assert (await evening_report(session_factory, campaign_id, 1))["combats"] == []
    assert await is_campaign_gm(session_factory, campaign_id, gm_token)
    async with session_factory() as session:
        phones = await session.scalar(select(func.count()).select_from(CampaignPhone))
    assert phones == 1  # Ada's phone, by its seat's token hash
    # The campaign goes on where it was: the next evening begins from the imported roster.
    game_id, _, _ = await begin_evening(session_factory, campaign_id, "skirmish")
    assert game_id


def changed(change: Callable[[Data], None]) -> Callable[[Data], Data]:
    def make(data: Data) -> Data:
        copied = copy.deepcopy(data)
        change(copied)
        return copied

    return make


def _rolled_higher(data: Data) -> None:
    event = next(e for e in data["events"] if e["data"]["type"] == "RecoveryRolled")
    event["data"]["points"] += 3


def _armoured(data: Data) -> None:
    data["campaign"]["state"]["characters"]["amara-lind"]["armour"] = 9


def _unkeyed(data: Data) -> None:
    data["campaign"]["seed"] = {"state": "0123456789abcdef"}


def _hidden_name(data: Data) -> None:
    command = next(c for c in data["commands"] if c["result"]["command"]["type"] == "EndEvening")
    command["result"]["command"]["roster"]["ships"]["kestrel"]["name"] = "Kes\u202etrel"


def _newer(data: Data) -> None:
    data["format_version"] = 2


def _too_deep(data: Data) -> None:
    deep: Any = []
    for _ in range(40):
        deep = [deep]
    data["evenings"][0]["report"] = {"deep": deep}


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (_newer, "CAMPAIGN_FILE_NEWER"),
        (_rolled_higher, "BAD_CAMPAIGN_FILE"),
        (_armoured, "BAD_CAMPAIGN_FILE"),
        (_unkeyed, "BAD_CAMPAIGN_FILE"),
        (_hidden_name, "BAD_CAMPAIGN_FILE"),
        (_too_deep, "TOO_DEEP"),
        (lambda data: data.update(format="bridgecrew-game"), "NOT_A_CAMPAIGN_FILE"),
    ],
)
async def test_g_camp_8_a_bad_campaign_file_is_refused_whole(
    session_factory: Sessions, change: Callable[[Data], None], code: str
) -> None:
    campaign_id = await played(session_factory)
    data = await export_campaign(session_factory, campaign_id)
    await forget(session_factory, campaign_id)
    with pytest.raises(ServiceError) as caught:
        await import_campaign(session_factory, campaign_file_bytes(changed(change)(data)))
    assert caught.value.code == code
    assert isinstance(caught.value.message, dict) and caught.value.message["msg"]  # worded later
    assert await count(session_factory) == 0


async def test_a_running_evening_needs_its_game_on_this_server(session_factory: Sessions) -> None:
    campaign_id = await played(session_factory)
    game_id, _, _ = await begin_evening(session_factory, campaign_id, "skirmish")
    data = await export_campaign(session_factory, campaign_id)
    await forget(session_factory, campaign_id)
    async with session_factory() as session, session.begin():  # the game stayed on the old laptop
        await session.execute(delete(Game).where(Game.id == game_id))
    with pytest.raises(ServiceError) as caught:
        await import_campaign(session_factory, campaign_file_bytes(data))
    assert caught.value.code == "EVENING_GAME_MISSING"
    assert await count(session_factory) == 0
    async with session_factory() as session:
        assert await session.scalar(select(func.count()).select_from(CampaignEvening)) == 0


def _run(db_url: str, work: Callable[[Sessions], Any]) -> Any:
    async def go() -> Any:
        engine = create_engine(db_url)
        try:
            return await work(create_session_factory(engine))
        finally:
            await engine.dispose()

    return asyncio.run(go())


def test_the_cli_exports_and_imports_a_campaign(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", db_url)
    monkeypatch.setenv("BRIDGECREW_DATA_DIR", str(tmp_path))
    from app.settings import get_settings

    get_settings.cache_clear()
    runner = CliRunner()
    campaign_id = _run(db_url, played)
    out = tmp_path / "campaign.json"
    exported = runner.invoke(cli, ["campaign-export", str(campaign_id), "--out", str(out)])
    assert exported.exit_code == 0, exported.output
    _run(db_url, lambda sessions: forget(sessions, campaign_id))
    imported = runner.invoke(cli, ["campaign-import", str(out)])
    assert imported.exit_code == 0, imported.output
    assert f"/campaign/{campaign_id}/gm?token=" in imported.output
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({"format": "bridgecrew-campaign", "format_version": 9}))
    refused = runner.invoke(cli, ["campaign-import", str(newer)])
    assert refused.exit_code == 1
    assert "newer Bridge Crew" in refused.output and "Nothing was imported" in refused.output
