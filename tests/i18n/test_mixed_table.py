"""A mixed table over real websockets: a German phone, an English phone and the projector in
one game, each pushed its own language; the projector's is the game's, set by the GM.
"""

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Origin

from tests.processes import LiveServer
from tests.tables import AsyncTable


@pytest.fixture
async def table(live: LiveServer) -> AsyncIterator[AsyncTable]:
    async with httpx.AsyncClient(base_url=live.http, timeout=10) as http:
        yield await AsyncTable(http).create()


async def received(socket: ClientConnection) -> str:
    """The next push, heartbeats skipped."""
    while True:
        message = str(await asyncio.wait_for(socket.recv(), 10))
        if message != "<!-- heartbeat -->":
            return message


async def test_each_socket_is_pushed_in_its_own_language(
    live: LiveServer,
    table: AsyncTable,
) -> None:
    await table.gm_command(type="SetDisplayLanguage", language="de")
    weapons, pilot = await table.seat("weapons"), await table.seat("pilot")
    station = f"{live.ws}/ws/station/{table.game_id}?token="
    ours = Origin(f"http://127.0.0.1:{live.port}")
    german = {"Accept-Language": "de-DE,de;q=0.9"}
    # This phone's browser asks for German too, but its player chose English on the switcher.
    english = {"Accept-Language": "de-DE,de;q=0.9", "Cookie": "bc_lang=en"}
    async with (
        connect(station + weapons["seat_token"], additional_headers=german, origin=ours) as de,
        connect(station + pilot["seat_token"], additional_headers=english, origin=ours) as en,
        connect(f"{live.ws}/ws/display/{table.game_id}", additional_headers=english) as wall,
    ):
        welcome = {"de": await received(de), "en": await received(en), "wall": await received(wall)}
        assert "Ruhephase: Warte, bis die SL den Kampf startet." in welcome["de"]
        assert "Downtime: waiting for the GM to start combat." in welcome["en"]
        assert "Kontakte" in welcome["de"] and "Contacts" not in welcome["de"]
        assert "Contacts" in welcome["en"] and "Kontakte" not in welcome["en"]
        # The projector follows its game, whatever the browser showing it asks for.
        assert "Vor dem Kampf" in welcome["wall"] and "Before combat" not in welcome["wall"]

        await table.gm_command(type="SetRedAlert", on=True)
        alert = {"de": await received(de), "en": await received(en), "wall": await received(wall)}
        # (The log's "RED ALERT." is the engine's sentence: the words helper's message ids.)
        assert 'alert-strip">ROTER ALARM<' in alert["de"]
        assert 'alert-strip">RED ALERT<' in alert["en"] and "ROTER ALARM" not in alert["en"]
        assert 'red-alert-word">ROTER ALARM<' in alert["wall"]

        # The GM switches the projector to English: it is shown everything again, in English;
        # the German phone stays German.
        await table.gm_command(type="SetDisplayLanguage", language="en")
        wall_now = await received(wall)
        assert "Before combat" in wall_now and 'red-alert-word">RED ALERT<' in wall_now
        assert "Vor dem Kampf" not in wall_now and "ROTER ALARM" not in wall_now
        await table.gm_command(type="SendMessage", text="Steady.", to="all")
        later = await received(de)
        while "Steady." not in later:  # (the setting's own push to the phone comes first)
            assert 'alert-strip">RED ALERT' not in later
            later = await received(de)
        assert "<b>SL:</b> Steady." in later and "GM:" not in later
