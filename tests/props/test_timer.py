"""A turn timer's last ten seconds reach props once, when they begin; a paused timer says
nothing."""

from __future__ import annotations

import asyncio
import time
import uuid

from app.service import game_info, load_state
from tests.server.conftest import AsyncTable, LiveServer

from .conftest import Heard, connected


async def test_the_last_ten_seconds_of_the_orders_timer_are_announced_when_they_begin(
    live: LiveServer, table: AsyncTable, heard: Heard
) -> None:
    await connected(live.app.state.props)
    factory = live.app.state.session_factory
    code = (await game_info(factory, uuid.UUID(table.game_id))).props_code
    await table.gm_command(type="StartTurn", seconds=13)
    _, state = await load_state(factory, uuid.UUID(table.game_id))
    deadline = state["deadline"]["at"]
    topic = f"bridgecrew/{code}/timer"
    while not heard.payloads(topic):
        assert time.time() < deadline, "no word of the timer before it ran out"
        await asyncio.sleep(0.05)
    heard_at = time.time()
    # Not before its last ten seconds; the rest is slack for a loaded machine.
    assert deadline - 10.5 < heard_at < deadline - 6
    assert heard.payloads(topic) == [{"kind": "orders", "deadline": deadline, "seconds_left": 10}]


async def test_a_timer_paused_before_its_last_ten_seconds_is_not_announced(
    live: LiveServer, table: AsyncTable, heard: Heard
) -> None:
    await connected(live.app.state.props)
    await table.gm_command(type="StartTurn", seconds=11)
    await table.gm_command(type="PauseTimer")
    await table.gm_command(type="SetRedAlert", on=True)  # the news after the pause, as a mark
    await asyncio.sleep(1.5)
    await heard.until(5)  # turn, phase, red alert, and the sounds of the turn and the alert
    news = [t.rsplit("/", 1)[1] for t in heard.topics() if not t.endswith("/sound")]
    assert news == ["turn", "phase", "red-alert"]
