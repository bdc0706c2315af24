"""The broker as deploy/mosquitto.conf ships it, with the logins `bridgecrew props-broker` writes:
a stranger on the venue's network cannot listen or press, a board's login hears the game and
presses cues but cannot speak for the server or take the server's presses, and the topics name a
code only the GM sees."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import aiomqtt
import httpx
import pytest

from app.props.broker import PROPS_USER, SERVER_USER
from app.service import create_game, game_info
from app.settings import Settings
from tests.server.conftest import AsyncTable, LiveServer

from .conftest import (
    Heard,
    Mosquitto,
    alarms_fired,
    client,
    connected,
    listening,
    publish,
    running,
)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    yield from running(Mosquitto(tmp_path, shipped=True))


@pytest.fixture
def settings(db_url: str, tmp_path: Path, broker: Mosquitto) -> Settings:
    """The server with its login; room for every press at once (pacing has tests of its own)."""
    return Settings(
        database_url=db_url, data_dir=tmp_path, mqtt_url=broker.url, props_press_burst=50
    )


@pytest.fixture
async def heard(broker: Mosquitto) -> AsyncIterator[Heard]:
    """What a board hears, subscribed to everything with the props' login."""
    async with listening(broker, broker.props) as found:
        yield found


async def boarding_party(live: LiveServer) -> tuple[uuid.UUID, str]:
    """A game of the shipped scenario whose boarding alarm is a prop's button; its props code."""
    factory = live.app.state.session_factory
    game_id, _, _ = await create_game(factory, "boarding-party", seed=5)
    return game_id, (await game_info(factory, game_id)).props_code


async def test_the_generated_files_are_mosquittos_own_formats(broker: Mosquitto) -> None:
    assert broker.server is not None and broker.props is not None
    folder = broker.config.parent / "broker"
    lines = (folder / "passwords").read_text().splitlines()
    assert [line.split(":")[0] for line in lines] == [SERVER_USER, PROPS_USER]
    assert all(re.fullmatch(r"[\w-]+:\$7\$101\$[\w+/=]{16}\$[\w+/=]{88}", line) for line in lines)
    assert broker.server[1] not in (folder / "passwords").read_text()
    assert (folder / "server.env").stat().st_mode & 0o077 == 0  # the logins: their owner's alone
    assert (folder / "props.env").stat().st_mode & 0o077 == 0
    for login in (broker.server, broker.props):  # Mosquitto takes both logins
        async with client(broker, login):
            pass


@pytest.mark.parametrize("login", [None, (PROPS_USER, "a guess"), ("admin", "admin")])
async def test_a_stranger_can_neither_listen_nor_press(
    live: LiveServer, broker: Mosquitto, heard: Heard, login: tuple[str, str] | None
) -> None:
    await connected(live.app.state.props)
    game_id, code = await boarding_party(live)
    with pytest.raises(aiomqtt.MqttError):
        async with listening(broker, login):
            pass
    with pytest.raises(aiomqtt.MqttError):
        await publish(broker, f"bridgecrew/{code}/in/cue/alarm", b"pressed", login)
    await asyncio.sleep(0.5)
    assert await alarms_fired(live, game_id) == 0 and heard.messages == []


async def test_a_board_hears_the_game_and_presses_its_cue_but_cannot_speak_for_the_server(
    live: LiveServer, broker: Mosquitto, heard: Heard, table: AsyncTable
) -> None:
    await connected(live.app.state.props)
    game_id, code = await boarding_party(live)
    # A forged message on a game topic (a huge version would make a board ignore the server).
    forged = b'{"version": 999999999, "turn": 9, "on": true}'
    await publish(broker, f"bridgecrew/{code}/red-alert", forged, broker.props)
    await publish(broker, f"bridgecrew/{code}/in/cue/alarm", b"pressed", broker.props)
    await heard.until(3)  # the cue, its red alert, its sound (and more)
    await heard.quiet()
    assert await alarms_fired(live, game_id) == 1
    topics = heard.topics()
    assert f"bridgecrew/{code}/cue/alarm" in topics and f"bridgecrew/{code}/sound" in topics
    assert all("/in/" not in topic for topic in topics)  # nobody else's presses, nor its own
    assert all(payload["version"] < 1000 for _, payload in heard.messages)  # nothing forged
    # Every topic the server publishes in a game reaches the boards through the ACL.
    table_code = (await game_info(live.app.state.session_factory, table.game_id)).props_code
    await table.gm_command(type="StartTurn", seconds=5)  # its last ten seconds begin at once
    while f"bridgecrew/{table_code}/timer" not in heard.topics():
        await heard.until(len(heard.messages) + 1)
    await table.gm_command(type="DestroyShip", ship="rustjaw")
    await heard.quiet()
    kinds = {t.split("/", 2)[2] for t in heard.topics(f"bridgecrew/{table_code}/")}
    assert kinds == {"turn", "phase", "sound", "ship/rustjaw/destroyed", "timer"}


async def test_boards_in_the_servers_shared_group_take_none_of_its_presses(
    live: LiveServer, broker: Mosquitto
) -> None:
    """Four clients with the props' login join `$share` groups a stranger would try: every
    press still reaches the server."""
    await connected(live.app.state.props)
    game_id, code = await boarding_party(live)
    groups = ("bridgecrew", "bridgecrew-server", "server", "bridgecrew")
    takers = [
        listening(broker, broker.props, f"$share/{group}/bridgecrew/+/in/cue/+") for group in groups
    ]
    taken = [await taker.__aenter__() for taker in takers]
    try:
        async with client(broker, broker.props) as board:
            for _ in range(20):
                await board.publish(f"bridgecrew/{code}/in/cue/alarm", b"pressed", qos=1)
        fired = await alarms_fired(live, game_id, 20)
    finally:
        for taker in takers:
            await taker.__aexit__(None, None, None)
    assert fired == 20
    assert [found.messages for found in taken] == [[], [], [], []]


async def test_only_the_gm_sees_the_props_code(live: LiveServer, table: AsyncTable) -> None:
    info = await game_info(live.app.state.session_factory, table.game_id)
    assert info.props_code != info.join_code and re.fullmatch("[0-9a-f]{32}", info.props_code)
    async with httpx.AsyncClient(base_url=live.http, follow_redirects=True) as gm:
        dashboard = await gm.get(f"/gm/{table.game_id}", params={"token": table.gm_token})
        assert dashboard.status_code == 200 and info.props_code in dashboard.text
    async with httpx.AsyncClient(base_url=live.http, follow_redirects=True) as room:
        for path in (
            f"/display/{table.game_id}",
            f"/join/{info.join_code}",
            f"/api/games/{table.game_id}",
            f"/api/games/{table.game_id}/events",
        ):
            shown = await room.get(path)
            assert shown.status_code == 200 and info.props_code not in shown.text, path
