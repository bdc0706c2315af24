"""A broker that dies mid-game costs no command: the game goes on, the bridge connects again on
its own, and what it could not publish meanwhile is kept only up to its backlog."""

from __future__ import annotations

import uuid

from websockets.asyncio.client import connect

from app.props import PropsBridge
from app.rules import Actor
from app.service import create_game, game_info, run_command
from app.service.commands import SessionFactory, on_commit
from app.settings import Settings
from tests.server.conftest import AsyncTable, LiveServer, next_message

from .conftest import Heard, Mosquitto, connected, listening, props_code


async def test_the_game_goes_on_while_the_broker_is_dead_and_props_hear_it_again_after(
    live: LiveServer, table: AsyncTable, broker: Mosquitto, heard: Heard
) -> None:
    bridge = live.app.state.props
    await connected(bridge)
    code = (await game_info(live.app.state.session_factory, uuid.UUID(table.game_id))).props_code
    await table.gm_command(type="SetRedAlert", on=True)
    await heard.until(2)  # the phase first seen, the red alert

    broker.kill()
    await connected(bridge, want=False)
    async with connect(f"{live.ws}/ws/events/{table.game_id}") as screen:
        assert (await next_message(screen))["type"] == "hello"
        await table.gm_command(type="StartTurn", seconds=0)
        # Every command is answered, as ever (gm_command asserts 200). The whole test stays
        # well inside the GM's burst of 20 commands, so the rate limit never comes into it.
        for i in range(8):
            await table.gm_command(type="SendMessage", text=f"All hands, {i}")
        await table.gm_command(type="SetRedAlert", on=False)
        # The screens go on being pushed to: the hub hears of each commit before the bridge.
        while (event := (await next_message(screen))["event"])["type"] != "RedAlertSet":
            # (the NPC crews give their orders by themselves as the turn starts)
            assert event["type"] in ("TurnStarted", "CombatStarted", "MessageSent", "OrderGiven")
        assert event["on"] is False

    broker.start()
    async with listening(broker) as after:
        await connected(bridge)
        await table.gm_command(type="DestroyShip", ship="rustjaw")
        destroyed = f"bridgecrew/{code}/ship/rustjaw/destroyed"
        while destroyed not in after.topics():
            await after.until(len(after.messages) + 1)
    # What the backlog still held when the broker came back may come first; then the news.
    versions = [payload["version"] for _, payload in after.messages]
    assert versions == sorted(versions)


async def red_alerts(factory: SessionFactory, game_id: uuid.UUID, count: int) -> None:
    for i in range(count):
        command = {"type": "SetRedAlert", "on": i % 2 == 0}
        await run_command(factory, game_id, command, Actor.gm(), command_id=f"alert-{i}")


async def test_what_props_miss_while_the_broker_is_away_is_kept_only_to_the_backlogs_size(
    session_factory: SessionFactory, broker: Mosquitto, settings: Settings
) -> None:
    game_id, _, _ = await create_game(session_factory, "skirmish", seed=1)
    code = await props_code(session_factory, game_id)
    bridge = PropsBridge(session_factory, settings, backlog=5)
    on_commit(session_factory, bridge.committed)
    broker.kill()
    await red_alerts(session_factory, game_id, 12)  # the bridge cannot publish any of them
    assert bridge.forgotten == 7
    broker.start()
    async with listening(broker) as heard:
        await bridge.start()  # only now, so the subscriber is there before the backlog goes
        try:
            await heard.until(7)
            await heard.quiet()
        finally:
            await bridge.stop()
    # The newest five notes, the oldest forgotten (with the phase, seen with the first alert).
    alerts = heard.payloads(f"bridgecrew/{code}/red-alert")
    assert [(a["version"], a["on"]) for a in alerts] == [
        (version, version % 2 == 1) for version in range(8, 13)
    ]
    # Each alert set on sounds the projector's, and the props hear that too.
    assert [p["version"] for p in heard.payloads(f"bridgecrew/{code}/sound")] == [9, 11]
    assert len(heard.messages) == 7
