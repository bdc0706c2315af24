"""Presses come at each game's pace, and floods cost no real press: on an open broker (a venue's
own, without logins) strangers' oversized payloads and presses for made-up codes are turned away
before they wait, so the presses of the game's own board all fire and the server stays connected;
the shipped broker cuts off a client that sends a packet too big."""

from __future__ import annotations

import asyncio
import logging
import secrets
import uuid
from collections.abc import Iterator
from pathlib import Path

import aiomqtt
import pytest

from app.props.inbound import PAYLOAD_BYTES
from app.rules import Actor
from app.service import create_game, load_state, run_command
from app.settings import Settings
from tests.server.conftest import LiveServer

from .conftest import Mosquitto, alarms_fired, client, connected, props_code, publish, running


@pytest.fixture
def settings(db_url: str, tmp_path: Path, broker: Mosquitto) -> Settings:
    """The shipped burst of three presses, refilled too slowly to matter within a test."""
    return Settings(
        database_url=db_url, data_dir=tmp_path, mqtt_url=broker.url, props_press_rate=0.01
    )


async def boarding_party(live: LiveServer) -> tuple[uuid.UUID, str]:
    """A game whose boarding alarm is a prop's button, which the bridge has published for."""
    factory = live.app.state.session_factory
    game_id, _, _ = await create_game(factory, "boarding-party", seed=5)
    command = {"type": "SendMessage", "text": "Stand by.", "to": "all"}
    await run_command(factory, game_id, command, Actor.gm(), command_id="hello")
    return game_id, await props_code(factory, game_id)


async def test_presses_come_at_each_games_pace_and_keep_the_gms_words_in_view(
    live: LiveServer, broker: Mosquitto
) -> None:
    await connected(live.app.state.props)
    game_id, code = await boarding_party(live)
    other_id, other = await boarding_party(live)
    async with client(broker) as board:
        for _ in range(25):
            await board.publish(f"bridgecrew/{code}/in/cue/alarm", b"pressed", qos=1)
        for _ in range(2):
            await board.publish(f"bridgecrew/{other}/in/cue/alarm", b"pressed", qos=1)
    assert await alarms_fired(live, game_id, 3) == 3  # the burst, then nothing for a while
    assert await alarms_fired(live, other_id, 2) == 2  # another game has its own pace
    _, state = await load_state(live.app.state.session_factory, game_id)
    shown = [entry["words"]["msg"] for entry in state["log"][-20:]]
    assert "message_to_all" in shown  # the GM's own words are still among the last 20


async def test_floods_cost_no_real_press_and_the_server_stays_connected(
    live: LiveServer, broker: Mosquitto, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "app.props")
    bridge = live.app.state.props
    await connected(bridge)
    game_id, code = await boarding_party(live)
    big = b"x" * (1024 * 1024)

    async def stranger(number: int) -> None:
        async with client(broker, max_inflight_messages=1000) as flood:
            for _ in range(10):  # too big: were one taken, it would fire the alarm
                await flood.publish(f"bridgecrew/{code}/in/cue/alarm", big, qos=0)
            for n in range(600):  # made-up codes, and no code at all
                made_up = secrets.token_hex(16) if n % 2 else f"nothex-{number}-{n}"
                await flood.publish(f"bridgecrew/{made_up}/in/cue/alarm", b"pressed", qos=0)

    async def board() -> None:
        async with client(broker) as own:
            for _ in range(3):  # the game's burst, pressed while the flood goes on
                await asyncio.sleep(0.2)
                await own.publish(f"bridgecrew/{code}/in/cue/alarm", b"pressed", qos=1)

    await asyncio.gather(*(stranger(n) for n in range(4)), board())
    assert await alarms_fired(live, game_id, 3) == 3
    assert bridge.connected
    assert "lost the broker" not in caplog.text and "Discarding" not in caplog.text


async def test_a_press_bigger_than_a_button_sends_fires_nothing(
    live: LiveServer, broker: Mosquitto
) -> None:
    await connected(live.app.state.props)
    game_id, code = await boarding_party(live)
    await publish(broker, f"bridgecrew/{code}/in/cue/alarm", b"x" * (PAYLOAD_BYTES + 1))
    await publish(broker, f"bridgecrew/{code}/in/cue/alarm", b"x" * PAYLOAD_BYTES)
    assert await alarms_fired(live, game_id, 1) == 1


@pytest.fixture
def shipped(tmp_path: Path) -> Iterator[Mosquitto]:
    yield from running(Mosquitto(tmp_path / "shipped", shipped=True))


@pytest.mark.processes  # a Mosquitto of its own
async def test_the_shipped_broker_cuts_off_a_client_that_sends_a_packet_too_big(
    shipped: Mosquitto,
) -> None:
    async with client(shipped, shipped.props) as board:
        with pytest.raises(aiomqtt.MqttError):
            await board.publish("bridgecrew/x/in/cue/alarm", b"x" * 5000, qos=1, timeout=5)
            await board.publish("bridgecrew/x/in/cue/alarm", b"pressed", qos=1, timeout=5)
