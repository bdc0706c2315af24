"""Websockets: the full view on connect, the caller's own view after every change, the public
event stream, and a listener that survives losing its database connection."""

import asyncio
import json
import re
import sys
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from starlette.websockets import WebSocketState
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Origin

from app.content import load_catalogue
from app.rules import new_game
from app.service import canonical, notices
from app.service.commands import NOTIFY_CHANNEL, on_commit
from app.settings import Settings
from app.web.live import hub as live_hub
from app.web.live import listener
from app.web.live.hub import Connection, Hub
from app.web.words import sentence

from .conftest import AsyncTable, LiveServer, next_message


@pytest.fixture
async def table(live: LiveServer) -> AsyncIterator[AsyncTable]:
    async with httpx.AsyncClient(base_url=live.http, timeout=10) as http:
        yield await AsyncTable(http).create()


async def closed_with(socket: ClientConnection) -> int | None:
    with pytest.raises(ConnectionClosed):
        while True:
            await asyncio.wait_for(socket.recv(), 10)
    return socket.close_code


async def test_display_gets_its_full_view_on_connect_and_after_each_change(
    live: LiveServer, table: AsyncTable
) -> None:
    async with connect(f"{live.ws}/ws/display/{table.game_id}?format=json") as display:
        first = await next_message(display)
        assert (first["type"], first["audience"], first["version"]) == ("view", "display", 0)
        assert first["view"]["game"]["red_alert"] is False and "hands" not in first["view"]
        await table.gm_command(type="SetRedAlert", on=True)
        update = await next_message(display)
        assert update["version"] == 1 and update["view"]["game"]["red_alert"] is True


async def test_each_socket_gets_its_own_view_and_unchanged_screens_get_nothing(
    live: LiveServer, table: AsyncTable
) -> None:
    weapons, pilot = await table.seat("weapons"), await table.seat("pilot")
    base = f"{live.ws}/ws/station/{table.game_id}?format=json&token="
    async with (
        connect(base + weapons["seat_token"]) as mine,
        connect(base + pilot["seat_token"]) as theirs,
        connect(f"{live.ws}/ws/gm/{table.game_id}?format=json&token={table.gm_token}") as gm,
    ):
        assert (await next_message(mine))["view"]["me"]["station"] == "weapons"
        assert (await next_message(theirs))["view"]["me"]["station"] == "pilot"
        assert "hands" in (await next_message(gm))["view"]
        await table.gm_command(type="SendMessage", text="Weapons only", to="kestrel/weapons")
        got = await next_message(mine)
        assert [m["text"] for m in got["view"]["messages"]] == ["Weapons only"]
        assert (await next_message(gm))["version"] == 3
        await table.gm_command(type="SetRedAlert", on=True)
        # The pilot's screen did not change with the private message: its next push is the alert.
        following = await next_message(theirs)
        assert following["version"] == 4 and following["view"]["messages"] == []


async def test_station_socket_takes_the_seat_cookie_only_from_our_own_pages(
    live: LiveServer, table: AsyncTable
) -> None:
    seat = await table.seat("comms")
    url = f"{live.ws}/ws/station/{table.game_id}?format=json"
    cookie = {"Cookie": f"bc_seat_{table.game_id}={seat['seat_token']}"}
    ours = Origin(f"http://127.0.0.1:{live.port}")
    async with connect(url, additional_headers=cookie, origin=ours) as from_us:
        assert (await next_message(from_us))["view"]["me"]["station"] == "comms"
    elsewhere = Origin("http://evil.example")
    async with connect(url, additional_headers=cookie, origin=elsewhere) as from_elsewhere:
        assert await closed_with(from_elsewhere) == 1008


async def test_refused_sockets_are_closed_with_1008(live: LiveServer, table: AsyncTable) -> None:
    for path in (
        f"/ws/station/{table.game_id}?token=nope",
        f"/ws/station/{table.game_id}",
        f"/ws/gm/{table.game_id}?token=nope",
        "/ws/display/00000000-0000-0000-0000-000000000000",
        "/ws/display/junk",
    ):
        async with connect(live.ws + path) as socket:
            assert await closed_with(socket) == 1008, path


async def test_event_stream_sends_public_events_and_replays_after_a_version(
    live: LiveServer, table: AsyncTable
) -> None:
    await table.gm_command(type="SendMessage", text="Before")
    async with connect(f"{live.ws}/ws/events/{table.game_id}") as events:
        assert await next_message(events) == {"type": "hello", "version": 1}
        await table.gm_command(type="SendMessage", text="Secret", to="kestrel/weapons")
        await table.gm_command(type="SetRedAlert", on=True)
        event = await next_message(events)
        assert (event["version"], event["seq"], event["event"]["type"]) == (3, 0, "RedAlertSet")
    async with connect(f"{live.ws}/ws/events/{table.game_id}?after=0") as replay:
        assert await next_message(replay) == {"type": "hello", "version": 3}
        kinds = [sentence((await next_message(replay))["event"]["words"]) for _ in range(2)]
        assert kinds == ["GM to all: Before", "RED ALERT."]


ANOTHER_PROCESS = "0123456789ab"


async def _as_another_process(live: LiveServer, table: AsyncTable, **command: Any) -> None:
    """A command committed as if by another process: this one hears of it only by LISTEN."""
    on_commit(live.app.state.session_factory, None)
    version = (await table.gm_command(**command))["version"]
    notice = notices.payload(uuid.UUID(table.game_id), version, ANOTHER_PROCESS)
    async with live.app.state.session_factory() as session, session.begin():
        await session.execute(
            text("SELECT pg_notify(:channel, :notice)"),
            {"channel": NOTIFY_CHANNEL, "notice": notice},
        )


async def test_a_change_heard_only_through_notify_still_reaches_the_socket(
    live: LiveServer, table: AsyncTable
) -> None:
    async with connect(f"{live.ws}/ws/display/{table.game_id}?format=json") as display:
        await next_message(display)
        await _as_another_process(live, table, type="SetRedAlert", on=True)
        assert (await next_message(display))["view"]["game"]["red_alert"] is True


async def test_a_process_s_own_commit_reaches_its_sockets_from_the_transaction_alone(
    live: LiveServer, table: AsyncTable
) -> None:
    """Its own notices are left alone: with the hub not told by the transaction, nothing comes."""
    async with connect(f"{live.ws}/ws/display/{table.game_id}?format=json") as display:
        await next_message(display)
        await table.gm_command(type="SetRedAlert", on=True)
        assert (await next_message(display))["version"] == 1
        on_commit(live.app.state.session_factory, None)
        await table.gm_command(type="SetRedAlert", on=False)
        with pytest.raises(TimeoutError):
            await next_message(display, within=1.0)


async def test_listener_reconnects_after_losing_its_connection_and_resyncs_every_socket(
    live: LiveServer, table: AsyncTable
) -> None:
    hub = live.app.state.hub
    async with connect(f"{live.ws}/ws/display/{table.game_id}?format=json") as display:
        await next_message(display)
        async with live.app.state.session_factory() as session:
            await session.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                    "datname = current_database() AND application_name = 'bridgecrew-listener'"
                )
            )
        resync = await next_message(display, within=20)  # full view again, once reconnected
        assert resync["type"] == "view" and resync["version"] == 0
        assert hub.listening
        await _as_another_process(live, table, type="SetRedAlert", on=True)
        assert (await next_message(display))["view"]["game"]["red_alert"] is True


async def test_heartbeats_keep_quiet_sockets_alive(settings: Settings) -> None:
    server = LiveServer(settings, heartbeat_seconds=0.2)
    await server.start()
    try:
        async with httpx.AsyncClient(base_url=server.http) as http:
            table = await AsyncTable(http).create()
        async with connect(f"{server.ws}/ws/display/{table.game_id}?format=json") as display:
            await next_message(display)
            beat = await next_message(display, within=5, skip_heartbeats=False)
            assert beat == {"type": "heartbeat"}
    finally:
        await server.stop()


async def test_a_socket_that_was_sent_pushes_meanwhile_gets_no_heartbeat(
    settings: Settings,
) -> None:
    """Any message tells a screen its socket is alive: a socket pushed to more often than the
    heartbeat's period is sent no heartbeat; once quiet, it is."""
    server = LiveServer(settings, heartbeat_seconds=0.6)
    await server.start()
    try:
        async with httpx.AsyncClient(base_url=server.http) as http:
            table = await AsyncTable(http).create()
            async with connect(f"{server.ws}/ws/display/{table.game_id}?format=json") as display:
                await next_message(display)
                kinds = []
                for turn in range(8):  # a push every 0.2 s for 1.6 s: more than two periods
                    await table.gm_command(type="SetRedAlert", on=turn % 2 == 0)
                    kinds.append((await next_message(display, skip_heartbeats=False))["type"])
                    await asyncio.sleep(0.2)
                assert "heartbeat" not in kinds
                beat = await next_message(display, within=5, skip_heartbeats=False)
                assert beat == {"type": "heartbeat"}
    finally:
        await server.stop()


async def test_server_shutdown_closes_sockets_with_1012_so_htmx_reconnects(
    settings: Settings,
) -> None:
    server = LiveServer(settings)
    await server.start()
    async with httpx.AsyncClient(base_url=server.http) as http:
        table = await AsyncTable(http).create()
    async with connect(f"{server.ws}/ws/display/{table.game_id}?format=json") as display:
        await next_message(display)
        await server.stop()
        assert await closed_with(display) == 1012


@pytest.mark.parametrize("audience", ["display", "gm", "station"])
async def test_html_sockets_get_out_of_band_panels_rendered_by_the_ui(
    live: LiveServer, table: AsyncTable, audience: str
) -> None:
    token = {
        "display": "",
        "gm": table.gm_token,
        "station": (await table.seat("weapons"))["seat_token"],
    }[audience]
    async with connect(f"{live.ws}/ws/{audience}/{table.game_id}?token={token}") as socket:
        first = await asyncio.wait_for(socket.recv(), 10)
        assert 'hx-swap-oob="true"' in first
        await table.gm_command(type="SetRedAlert", on=True)
        assert 'hx-swap-oob="true"' in await asyncio.wait_for(socket.recv(), 10)


def _panel_ids(message: str) -> list[str]:
    return re.findall(r'<[a-z]+ id="([\w-]+)"[^>]*hx-swap-oob="true"', message)


async def test_html_pushes_name_their_version_and_carry_only_the_panels_that_changed(
    live: LiveServer, table: AsyncTable
) -> None:
    from app.web.render import PANELS

    async with connect(f"{live.ws}/ws/display/{table.game_id}") as socket:
        first = str(await asyncio.wait_for(socket.recv(), 10))
        ids = _panel_ids(first)
        assert ids[0] == "bc-version" and 'data-version="0"' in first.split(">", 1)[0]
        assert len(ids) == 1 + len(PANELS["display"])  # on connect: every panel
        await table.gm_command(type="SetRedAlert", on=True)
        update = str(await asyncio.wait_for(socket.recv(), 10))
        ids = _panel_ids(update)
        assert ids[0] == "bc-version" and 'data-version="1"' in update.split(">", 1)[0]
        assert "alert" in ids  # the red alert banner changed...
        assert "map" not in ids and len(ids) < 1 + len(PANELS["display"])  # ...not all of it


def _shown(message: str) -> str:
    found = re.search(r'id="bc-version"[^>]*data-shown="([^"]+)"', message)
    assert found, message[:300]
    return found.group(1)


async def test_a_screen_that_comes_back_to_a_game_that_has_not_moved_on_gets_no_panels_again(
    live: LiveServer, table: AsyncTable
) -> None:
    """A socket opened again (the venue's Wi-Fi back, or a page's own socket) says what its
    screen shows, as the server named it in the last version marker: if the game is still there,
    only the marker comes; later pushes carry what changed since. Anything else is shown whole."""
    from app.web.render import PANELS

    token = (await table.seat("weapons"))["seat_token"]
    station = f"{live.ws}/ws/station/{table.game_id}?token={token}"
    async with connect(station) as socket:
        first = str(await asyncio.wait_for(socket.recv(), 10))
    assert len(_panel_ids(first)) == 1 + len(PANELS["station"])
    shown = _shown(first)

    async with connect(f"{station}&shown={shown}") as socket:
        again = str(await asyncio.wait_for(socket.recv(), 10))
        assert _panel_ids(again) == ["bc-version"] and _shown(again) == shown
        await table.gm_command(type="SetRedAlert", on=True)
        update = str(await asyncio.wait_for(socket.recv(), 10))
        ids = _panel_ids(update)
        assert ids[0] == "bc-version" and "status" in ids
        assert len(ids) < 1 + len(PANELS["station"])  # only what changed since
        now = _shown(update)
    assert now != shown

    # An older version, another language, another process's name, or junk: the whole screen.
    renderer, version, locale = now.split("-")
    for stale in (shown, f"{renderer}-{version}-de", f"z{renderer[1:]}-{version}-{locale}", "x"):
        async with connect(f"{station}&shown={stale}") as socket:
            whole = str(await asyncio.wait_for(socket.recv(), 10))
            assert len(_panel_ids(whole)) == 1 + len(PANELS["station"]), stale
    # The projector, too: its page's marker names what the page shows.
    page = (await table.http.get(f"/display/{table.game_id}")).text
    async with connect(f"{live.ws}/ws/display/{table.game_id}?shown={_shown(page)}") as socket:
        assert _panel_ids(str(await asyncio.wait_for(socket.recv(), 10))) == ["bc-version"]


async def test_compression_is_as_the_settings_say(live: LiveServer, table: AsyncTable) -> None:
    """Off as shipped (settings' ws_deflate): a browser's permessage-deflate offer is declined,
    so no socket keeps a zlib stream between pushes, and every message still arrives whole."""
    url = f"{live.ws}/ws/gm/{table.game_id}?token={table.gm_token}"
    async with connect(url, compression="deflate") as gm:
        assert gm.response is not None
        assert "permessage-deflate" not in gm.response.headers.get("Sec-WebSocket-Extensions", "")
        await asyncio.wait_for(gm.recv(), 10)
        await table.gm_command(type="SetRedAlert", on=True)
        update = str(await asyncio.wait_for(gm.recv(), 10))
        assert 'data-version="1"' in update.split(">", 1)[0]


def _listener() -> tuple[listener.Listener, list[tuple[uuid.UUID, int]]]:
    """A listener whose wanted versions are recorded, not pushed."""
    wanted: list[tuple[uuid.UUID, int]] = []
    heard = listener.Listener(
        "",
        lambda game, v: wanted.append((game, v)),
        lambda: None,
        lambda game: None,
        lambda game: None,
    )
    return heard, wanted


def test_a_notice_that_seats_ended_or_a_game_is_gone_is_passed_on_whoever_sent_it() -> None:
    ended: list[uuid.UUID] = []
    gone: list[uuid.UUID] = []
    heard = listener.Listener("", lambda game, v: None, lambda: None, ended.append, gone.append)
    game, deleted = uuid.uuid4(), uuid.uuid4()
    heard.on_notify(None, 0, NOTIFY_CHANNEL, f"seats:{game}")
    heard.on_notify(None, 0, NOTIFY_CHANNEL, "seats:not-a-game")  # ignored
    heard.on_notify(None, 0, NOTIFY_CHANNEL, f"gone:{deleted}")
    heard.on_notify(None, 0, NOTIFY_CHANNEL, "gone:not-a-game")  # ignored
    assert (ended, gone) == ([game], [deleted])


async def test_another_process_s_notice_is_passed_on_and_odd_ones_are_not() -> None:
    heard, wanted = _listener()
    game = uuid.uuid4()
    heard.on_notify(None, 0, NOTIFY_CHANNEL, notices.payload(game, 5, ANOTHER_PROCESS))
    assert wanted == [(game, 5)]
    heard.on_notify(None, 0, NOTIFY_CHANNEL, f"{game}:6:odd")  # not a notice: ignored
    heard.on_notify(None, 0, NOTIFY_CHANNEL, f"{game}:6")
    assert wanted == [(game, 5)]


async def test_a_notice_of_this_process_s_own_commit_is_left_alone() -> None:
    """The transaction hands the hub its own commits (app/service/commands.py, on_commit)."""
    heard, wanted = _listener()
    heard.on_notify(None, 0, NOTIFY_CHANNEL, notices.payload(uuid.uuid4(), 5))
    assert wanted == []


class Phone:
    """A socket as the hub sees one: what it was sent, and whether it has gone."""

    client_state = WebSocketState.CONNECTED

    def __init__(self, stays: bool) -> None:
        self.sent: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.stays = stays

    async def send_text(self, message: str) -> None:
        self.sent.put_nowait(json.loads(message))

    async def receive(self) -> dict[str, str]:
        if self.stays:
            await asyncio.Event().wait()  # until the test ends
        await asyncio.sleep(0.05)
        return {"type": "websocket.disconnect"}

    async def close(self, code: int) -> None:
        return None


async def test_a_socket_welcomed_at_a_newer_version_brings_the_others_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A socket can join between a commit and the hub hearing of it, so its welcome already shows
    the new version. The sockets already there are a version behind it and must be pushed to,
    though the hub hears of no commit (tests/faults/test_chaos.py caught a projector left one
    version behind)."""
    catalogue = load_catalogue()
    older = canonical(new_game(catalogue.scenarios["skirmish"], catalogue, seed=1))
    newer = canonical({**older, "red_alert": True})
    versions = [(26, older), (27, newer)]  # the database: the first read, then every later one

    async def load_state(_factory: Any, _game: Any, **_: Any) -> tuple[int, Any]:
        return versions.pop(0) if len(versions) > 1 else versions[0]

    async def game_words(_factory: Any, _game: Any) -> dict[str, Any]:
        return {}  # a game of built-in content only

    monkeypatch.setattr(live_hub, "load_state", load_state)
    monkeypatch.setattr(live_hub, "game_words", game_words)
    hub, game = Hub(None, ""), uuid.uuid4()  # type: ignore[arg-type]
    first, late = Phone(stays=True), Phone(stays=False)
    there = asyncio.create_task(hub.serve(first, game, "display", "display"))  # type: ignore[arg-type]
    try:
        assert (await asyncio.wait_for(first.sent.get(), 5))["version"] == 26
        await hub.serve(late, game, "display", "display")  # type: ignore[arg-type]
        assert (await late.sent.get())["version"] == 27
        brought = await asyncio.wait_for(first.sent.get(), 5)
        assert brought["version"] == 27 and brought["view"]["game"]["red_alert"] is True
    finally:
        there.cancel()


async def test_a_socket_lets_go_of_each_message_once_sent() -> None:
    """A socket's sender waits for its whole life; it must not keep its welcome (a whole screen)
    or its last push alive meanwhile (bench/load.py measures memory per socket)."""
    sent: asyncio.Queue[int] = asyncio.Queue()

    class Sink:
        async def send_text(self, message: str) -> None:
            sent.put_nowait(len(message))

    welcome, push = "w" * 30_000 + str(uuid.uuid4()), "p" * 5_000 + str(uuid.uuid4())
    alone = sys.getrefcount(push)  # only this test's own reference
    sink: Any = Sink()
    connection = Connection(sink, "station", ("seat", "s1"), "html", welcome=[welcome])
    sender = asyncio.create_task(connection.send_forever())
    try:
        assert await asyncio.wait_for(sent.get(), 5) == len(welcome)
        await asyncio.sleep(0.01)  # the sender waits for the next push now
        assert sys.getrefcount(welcome) == alone
        connection.offer(1, push)
        assert await asyncio.wait_for(sent.get(), 5) == len(push)
        await asyncio.sleep(0.01)
        assert sys.getrefcount(push) == alone
    finally:
        sender.cancel()


async def test_a_socket_speaks_the_language_its_page_asks_for(
    live: LiveServer, table: AsyncTable
) -> None:
    """A page's socket says the page's language (`?lang=`, static/js/app.js): a browser may open
    it with another Accept-Language than its pages (Chromium with a German page, seen), and the
    pushes must not switch the screen to English."""
    token = (await table.seat("weapons"))["seat_token"]
    url = f"{live.ws}/ws/station/{table.game_id}?token={token}&lang=de"
    async with connect(url, additional_headers={"Accept-Language": "en-US,en;q=0.9"}) as socket:
        welcome = str(await asyncio.wait_for(socket.recv(), 10))
        assert "-de" in _shown(welcome) and "Waffen" in welcome
        await table.gm_command(type="StartTurn")
        push = str(await asyncio.wait_for(socket.recv(), 10))
        assert "Aktion und Karten wählen" in push and "Choose an action" not in push
