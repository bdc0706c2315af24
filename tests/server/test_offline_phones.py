"""A turn that waits on a phone gone offline: the GM's dashboard names the station and offers the
pass that moves the turn on; and while no projector is open, the dashboard says the room sees
nothing. Who is connected is the hub's (app/web/live/presence.py), pushed to the GM's screens as
phones and projectors come and go, never stored."""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import AsyncIterator, Callable

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect

from app.web.live import presence

from .conftest import AsyncTable, LiveServer

OFFLINE = "Waiting for Weapons on Kestrel — their phone is offline."
NO_PROJECTOR = "No projector is connected: the room sees nothing."


@pytest.fixture
async def table(live: LiveServer) -> AsyncIterator[AsyncTable]:
    async with httpx.AsyncClient(base_url=live.http, timeout=10) as http:
        yield await AsyncTable(http).create()


@pytest.fixture(autouse=True)
def short_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(presence, "GRACE_SECONDS", 0.5)


def _waiting(message: str) -> str | None:
    """The text of the GM's waiting panel in a push, if the push carries it."""
    found = re.search(r'<div id="waiting".*?</div>\s*(?=<|$)', message, re.S)
    return html.unescape(found.group(0)) if found else None


def _turn(message: str) -> str | None:
    """The text of the GM's turn panel in a push, if the push carries it."""
    found = re.search(r'<section id="turn".*?</section>', message, re.S)
    return html.unescape(found.group(0)) if found else None


async def _next_waiting(gm: ClientConnection, within: float = 10.0) -> str:
    """The waiting panel of the next push that carries one."""
    return await _next_panel(gm, _waiting, within)


async def _next_panel(
    gm: ClientConnection, panel: Callable[[str], str | None], within: float = 10.0
) -> str:
    """The panel of the next push that carries it."""
    while True:
        shown = panel(str(await asyncio.wait_for(gm.recv(), within)))
        if shown is not None:
            return shown


async def test_the_gm_is_told_which_station_waits_on_an_offline_phone_and_can_pass_for_it(
    live: LiveServer, table: AsyncTable
) -> None:
    token = (await table.seat("weapons"))["seat_token"]
    await table.gm_command(type="StartTurn", seconds=0)
    phone_url = f"{live.ws}/ws/station/{table.game_id}?token={token}"
    async with connect(f"{live.ws}/ws/gm/{table.game_id}?token={table.gm_token}") as gm:
        assert OFFLINE in (_waiting(str(await gm.recv())) or "")  # never connected yet
        async with connect(phone_url) as phone:
            await phone.recv()
            assert OFFLINE not in await _next_waiting(gm)  # the phone came: at once
        shown = await _next_waiting(gm)  # it went: once its grace is over
        assert OFFLINE in shown and 'value="PassOrder"' in shown

        # A page reload: the socket closes and comes back within the grace, and the GM's
        # screen never hears of it.
        async with connect(phone_url) as phone:
            await phone.recv()
            await _next_waiting(gm)
            await phone.close()
            async with connect(phone_url) as again:
                await again.recv()
                with pytest.raises(TimeoutError):
                    await _next_waiting(gm, within=presence.GRACE_SECONDS * 3)
        assert OFFLINE in await _next_waiting(gm)  # both gone: after the grace
        page = await table.http.get(
            f"/gm/{table.game_id}", params={"token": table.gm_token}, follow_redirects=True
        )
        assert OFFLINE in html.unescape(page.text)  # the dashboard's page says it too
        # A socket the page opens on the version it shows gets, of its panels, only those that
        # read who is connected (which the version does not say).
        marker = re.search(r'data-shown="([^"]+)"', page.text)
        assert marker is not None
        gm_url = f"{live.ws}/ws/gm/{table.game_id}?token={table.gm_token}&shown={marker.group(1)}"
        async with connect(gm_url) as opened:
            welcome = str(await asyncio.wait_for(opened.recv(), 10))
            panels = re.findall(r'<[a-z]+ id="([\w-]+)"[^>]*hx-swap-oob="true"', welcome)
            assert panels == ["bc-version", "turn", "waiting"] and OFFLINE in html.unescape(welcome)

        # The button's command: the GM passes for the station, and the turn is revealed.
        await table.gm_command(type="PassOrder", ship="kestrel", station="weapons")
        while OFFLINE in await _next_waiting(gm):
            pass
    view = (await table.http.get(f"/api/games/{table.game_id}/view", headers=table.gm)).json()
    assert view["view"]["game"]["phase"] != "orders" and view["view"]["revealed"]


async def test_the_gm_is_told_while_no_projector_is_connected(
    live: LiveServer, table: AsyncTable
) -> None:
    projector_url = f"{live.ws}/ws/display/{table.game_id}"
    async with connect(f"{live.ws}/ws/gm/{table.game_id}?token={table.gm_token}") as gm:
        assert NO_PROJECTOR in (_turn(str(await gm.recv())) or "")  # none opened yet
        async with connect(f"{live.ws}/ws/events/{table.game_id}") as prop:
            await prop.recv()  # a prop's event stream is no projector
            with pytest.raises(TimeoutError):
                await _next_panel(gm, _turn, within=1.0)
        async with connect(f"{projector_url}?watch=1") as spectator:
            await spectator.recv()  # nor is a spectator's phone (the join page's link)
            with pytest.raises(TimeoutError):
                await _next_panel(gm, _turn, within=1.0)
        async with connect(projector_url) as projector:
            await projector.recv()
            assert NO_PROJECTOR not in await _next_panel(gm, _turn)  # it came: at once
            # Its page reloads: the socket closes and comes back within the grace, and the
            # GM's screen never hears of it.
            await projector.close()
            async with connect(projector_url) as again:
                await again.recv()
                with pytest.raises(TimeoutError):
                    await _next_panel(gm, _turn, within=presence.GRACE_SECONDS * 3)
        shown = await _next_panel(gm, _turn)  # it went: once its grace is over
        assert NO_PROJECTOR in shown and '<a href="projector" target="_blank"' in shown
    # The line's link leads to the projector's page, as the dashboard's page shows it.
    page = await table.http.get(
        f"/gm/{table.game_id}", params={"token": table.gm_token}, follow_redirects=True
    )
    assert NO_PROJECTOR in html.unescape(page.text)
    opened = await table.http.get(f"/gm/{table.game_id}/projector", follow_redirects=True)
    assert opened.url.path == f"/display/{table.game_id}"
    assert f'ws-connect="/ws/display/{table.game_id}"' in opened.text
    # Once every station is crewed, the join page sends a newcomer to a spectator's screen,
    # whose socket says so.
    for station in ("weapons", "engineering", "pilot", "comms"):
        await table.seat(station)
    code = (await table.http.get(f"/api/games/{table.game_id}")).json()["join_code"]
    join = await table.http.get(f"/join/{code}")
    watch = await table.http.get(f"/display/{table.game_id}?watch=1")
    assert f'href="/display/{table.game_id}?watch=1"' in join.text, join.text
    assert f'ws-connect="/ws/display/{table.game_id}?watch=1"' in watch.text
