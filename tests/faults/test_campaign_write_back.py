"""G-CAMP-1: a server killed in the middle of writing an evening's roster back loses nothing.

The write-back is one transaction: the campaign's new state and its events, then the evening's
report, then the phones that played. Here it is held in the middle (a lock the test takes on the
phones' table stops it there, its earlier writes made), and the server is SIGKILLed. Nothing of it
is in the database afterwards; the GM, on the server started again, sends the same request and the
roster has everything, once.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import asyncpg  # type: ignore[import-untyped]
import httpx
from sqlalchemy import func, select

from app.db.models import CampaignEvening, CampaignEvent, CampaignPhone
from app.db.session import create_engine, create_session_factory, plain_dsn
from app.rules import Actor
from app.service import create_seat, run_command
from app.service.campaign_reads import load_campaign
from app.service.campaigns import begin_evening, create_campaign
from tests.conftest import until
from tests.processes import Server

CSRF = "campaign-fault-test-csrf-value"


async def test_g_camp_1_a_server_killed_while_writing_the_roster_back_loses_nothing(
    db_url: str, tmp_path: Path
) -> None:
    engine = create_engine(db_url)
    sessions = create_session_factory(engine)
    server = Server(db_url, tmp_path, "campaign").start()
    blocker = await asyncpg.connect(plain_dsn(db_url))
    try:
        campaign_id, _ = await create_campaign(sessions, "Der lange Weg nach Hause")
        game_id, _, gm_token = await begin_evening(sessions, campaign_id, "convoy")
        await create_seat(sessions, game_id, "resolute", "captain", "Ada", "amara-lind")
        for command in (
            {"type": "StartTurn", "seconds": 0},
            {"type": "SetTrack", "ship": "resolute", "track": "hull", "damage": 7},
            {"type": "SetCharacteristic", "character": "amara-lind", "field": "endurance",
             "value": 2},
            {"type": "EndCombat"},
        ):  # fmt: skip
            await run_command(sessions, game_id, command, Actor.gm(), command_id=uuid.uuid4().hex)
        version, before = await load_campaign(sessions, campaign_id)
        await server.ready()

        # The phones' table locked: the write-back stops there, in the middle of its transaction.
        await blocker.execute("BEGIN")
        await blocker.execute("LOCK TABLE campaign_phones IN SHARE MODE")
        cookies = {f"bc_gm_{game_id}": gm_token, "bc_csrf": CSRF}
        headers = {"x-csrf-token": CSRF, "hx-request": "true"}

        async def write_back() -> httpx.Response:
            async with httpx.AsyncClient(base_url=server.http, cookies=cookies, timeout=60) as http:
                return await http.post(
                    f"/gm/{game_id}/campaign/end",
                    data={"command_id": "write-back-1"},
                    headers=headers,
                )

        sent = asyncio.create_task(write_back())

        async def waiting_in_the_middle() -> bool:
            assert not sent.done(), "the write-back did not wait for the phones' table"
            locks = await blocker.fetch(
                "SELECT l.pid, l.granted, c.relname FROM pg_locks l"
                " JOIN pg_class c ON c.oid = l.relation WHERE l.pid <> pg_backend_pid()"
                " AND l.mode = 'RowExclusiveLock'"
            )
            waiting = {r["pid"] for r in locks if r["relname"] == "campaign_phones"}
            # Its campaign's state and events and its evening are written, in that transaction.
            held = {r["relname"] for r in locks if r["pid"] in waiting and r["granted"]}
            return {"campaigns", "campaign_events", "campaign_evenings"} <= held

        await until(waiting_in_the_middle, within=30, what="the write-back held mid-way")
        server.kill()
        try:
            await sent
            raise AssertionError("the killed server answered")
        except httpx.TransportError:
            pass
        await blocker.execute("ROLLBACK")

        # Nothing of it was kept: the campaign, its evening and its events are as before.
        async def settled() -> bool:
            left = await blocker.fetchval(
                "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
                " WHERE c.relname = 'campaign_phones' AND l.pid <> pg_backend_pid()"
            )
            return bool(left == 0)

        await until(settled, within=30, what="the dead server's transaction gone")
        assert await load_campaign(sessions, campaign_id) == (version, before)
        async with sessions() as session:
            evening = await session.scalar(
                select(CampaignEvening).where(CampaignEvening.game_id == game_id)
            )
            assert evening is not None and evening.ended_at is None and evening.report is None
            assert await session.scalar(select(func.count()).select_from(CampaignPhone)) == 0

        # The GM sends it again to the server started again: all of it, once.
        server.start()
        await server.ready()
        for _ in range(2):  # and a retry of the retry changes nothing
            answer = await write_back()
            assert answer.status_code == 200, answer.text
            assert "Written back" in answer.text
        _, after = await load_campaign(sessions, campaign_id)
        assert after["ships"]["resolute"]["hull"]["damage"] == 7
        assert after["characters"]["amara-lind"]["endurance"]["value"] == 2
        assert after["characters"]["amara-lind"]["player"] == "Ada"
        async with sessions() as session:
            ended = await session.scalars(
                select(CampaignEvent.version).where(CampaignEvent.type == "EveningEnded")
            )
            assert len(list(ended)) == 1
            evening = await session.scalar(
                select(CampaignEvening).where(CampaignEvening.game_id == game_id)
            )
            assert evening is not None and evening.ended_at is not None and evening.report
            assert await session.scalar(select(func.count()).select_from(CampaignPhone)) == 1
    finally:
        await blocker.close()
        server.stop()
        await engine.dispose()
