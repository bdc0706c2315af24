"""Who may do what: a seat token acts only for its own seat, ship and game; GM actions need the
GM token (shared by any number of GMs); the projector reads and never acts; tokens are long,
random and stored hashed; a freed seat loses its token and its socket at once."""

import asyncio
import base64
import hashlib
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests.server.conftest import AsyncTable, LiveServer, Table, next_message
from tests.web.test_routes import csrf_of

# Unsafe routes anyone may call: making a game and taking a free station (the join code is the
# invitation). Every other one must refuse a caller without the right token.
OPEN_TO_ALL = {("POST", "/api/games"), ("POST", "/api/games/{game_id}/seats"), ("POST", "/gm")}
OPEN_TO_ALL |= {("POST", "/join/{code}")}
OPEN_TO_ALL |= {("POST", "/gm/campaigns")}  # anyone makes a campaign, as anyone makes a game


def version(table: Table) -> int:
    return int(table.client.get(f"/api/games/{table.game_id}").json()["version"])


def test_a_seat_acts_only_for_its_own_station_ship_and_game(table: Table) -> None:
    weapons = table.seat("weapons")
    table.gm_command(type="StartTurn", seconds=0)
    before = version(table)
    refusals: dict[str, dict[str, Any]] = {
        "NOT_YOUR_STATION": {"type": "PassOrder", "ship": "kestrel", "station": "pilot"},
        "NOT_YOUR_SHIP": {"type": "PassOrder", "ship": "rustjaw", "station": "weapons"},
        "NOT_THIS_GAME": {
            "type": "PassOrder",
            "ship": "kestrel",
            "station": "weapons",
            "game_id": str(uuid.uuid4()),
        },
        "GM_ONLY": {"type": "SetTrack", "ship": "kestrel", "track": "hull", "damage": 0},
    }
    for code, command in refusals.items():
        answer = table.command(weapons["headers"], **command)
        assert answer.status_code == 403, answer.text
        assert answer.json()["code"] == code and answer.json()["message"]
    # Engineering's damage prompt of another ship is not this seat's either.
    other_ship = table.command(weapons["headers"], type="AllocateDamage", ship="rustjaw")
    assert other_ship.status_code == 403 and other_ship.json()["code"] == "NOT_YOUR_SHIP"
    assert version(table) == before
    assert table.command(weapons["headers"], type="PassOrder", ship="kestrel", station="weapons")


def test_tokens_of_another_game_are_refused_with_403(table: Table) -> None:
    other = Table(table.client, seed=8)
    stranger = other.seat("weapons")
    base = f"/api/games/{table.game_id}"
    before = version(table)
    for headers in (other.gm, stranger["headers"]):
        for answer in (
            table.client.get(f"{base}/view", headers=headers),
            table.client.get(f"{base}/events", headers=headers),
            table.command(headers, type="SetRedAlert", on=True),
            table.client.delete(f"{base}/seats/{stranger['seat_id']}", headers=headers),
        ):
            assert answer.status_code == 403, answer.text
            assert answer.json()["code"] == "NOT_THIS_GAME"
    assert version(table) == before


def test_the_projector_and_strangers_can_change_nothing(table: Table) -> None:
    """Every unsafe route, called without a token (as the projector is), leaves the game as it
    was: the API says 401, the screens refuse or send the phone to the join page."""
    seat = table.seat("weapons")
    before = version(table)
    client = table.client
    client.get(f"/display/{table.game_id}")  # the projector's page: it sets only a CSRF cookie
    csrf = client.cookies.get("bc_csrf")
    assert csrf and not [c for c in client.cookies if c.startswith(("bc_seat", "bc_gm"))]
    routes = [
        (method.upper(), path)
        for path, methods in client.get("/openapi.json").json()["paths"].items()
        for method in methods
        if method.upper() in ("POST", "PUT", "PATCH", "DELETE")
    ]
    assert len(routes) >= 10
    for method, path in routes:
        if (method, path) in OPEN_TO_ALL:
            continue
        url = path.format(
            game_id=table.game_id,
            seat_id=seat["seat_id"],
            code=table.join_code,
            kind="ship",  # the content editor's routes
            item_id="frigate",
            campaign_id=uuid.uuid4(),  # a campaign's: only its GM, or a phone it knows
            ask_id=1,
        )
        answer = client.request(
            method,
            url,
            headers={"X-CSRF-Token": csrf},
            json={"command_id": "p", "type": "SetRedAlert", "on": True},
        )
        if path.startswith("/api/"):
            assert answer.status_code == 401, (path, answer.text)
        elif path.startswith("/campaign/"):  # a made-up campaign is none: 404, or only its GM
            assert answer.status_code in (403, 404), (path, answer.status_code)
        else:
            assert answer.status_code in (204, 401, 403), (path, answer.status_code)
    assert version(table) == before


def test_tokens_are_long_random_and_stored_only_as_hashes(table: Table) -> None:
    seats = [table.seat(st) for st in ("weapons", "pilot", "comms", "engineering")]
    tokens = [table.gm_token] + [s["seat_token"] for s in seats]
    for token in tokens:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        assert len(raw) * 8 >= 128
    assert len(set(tokens)) == len(tokens)

    async def stored_rows() -> list[str]:
        factory = table.client.app.state.session_factory  # type: ignore[attr-defined]
        async with factory() as session:
            tables = await session.scalars(
                text("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
            )
            rows: list[str] = []
            for name in list(tables):
                found = await session.scalars(text(f'SELECT t::text FROM "{name}" t'))
                rows += list(found)
            return rows

    assert table.client.portal is not None
    everything = "\n".join(table.client.portal.call(stored_rows))
    for token in tokens:
        assert token not in everything
        assert hashlib.sha256(token.encode()).hexdigest() in everything


def test_several_gms_share_one_game_from_their_own_browsers(client: TestClient) -> None:
    table = Table(client)
    browsers: list[dict[str, str]] = []  # each GM's cookie jar
    for _ in range(2):
        client.cookies.clear()
        opened = client.get(f"/gm/{table.game_id}", params={"token": table.gm_token})
        assert opened.status_code == 200 and f"bc_gm_{table.game_id}" in client.cookies
        browsers.append(dict(client.cookies))
    assert browsers[0]["bc_csrf"] != browsers[1]["bc_csrf"]
    for n, jar in enumerate((browsers[0], browsers[1], browsers[0])):
        client.cookies.clear()
        client.cookies.update(jar)
        sent = client.post(
            f"/gm/{table.game_id}/command",
            data={"type": "SendMessage", "text": f"from GM {n}"},
            headers={"X-CSRF-Token": jar["bc_csrf"]},
        )
        assert sent.status_code == 204, sent.text
    view = client.get(f"/api/games/{table.game_id}/view", headers=table.gm).json()["view"]
    assert [m["text"] for m in view["messages"]] == ["from GM 0", "from GM 1", "from GM 2"]


def test_the_csrf_value_a_page_shows_brings_back_no_seat(table: Table) -> None:
    """Every page carries its CSRF value in its HTML (anyone who sees the screen or its source
    may copy it). Getting a seat back after a lost answer takes a secret no page shows: the
    phone's own key, in a cookie scripts cannot read."""
    client, code, game = table.client, table.join_code, table.game_id
    client.cookies.clear()
    page = client.get(f"/join/{code}")
    csrf = csrf_of(page.text)
    form = {"seat": "kestrel/pilot", "name": "Ada", "csrf": csrf}
    joined = client.post(f"/join/{code}", data=form, follow_redirects=False)
    ada = joined.cookies.get(f"bc_seat_{game}")
    assert joined.status_code == 303 and ada
    phone = client.cookies.get("bc_phone")
    strangers = ({"bc_csrf": csrf}, {"bc_phone": csrf}, {"bc_csrf": csrf, "bc_phone": csrf})
    for cookies, station in zip(strangers, ("comms", "weapons", "engineering"), strict=True):
        client.cookies.clear()
        client.cookies.update(cookies)
        scanned = client.get(f"/join/{code}", follow_redirects=False)
        assert scanned.status_code == 200 and not scanned.cookies.get(f"bc_seat_{game}")
        sent = client.post(
            f"/join/{code}", data={**form, "seat": f"kestrel/{station}"}, follow_redirects=False
        )
        assert sent.status_code in (303, 403), sent.text
        assert sent.cookies.get(f"bc_seat_{game}") != ada, cookies
    crew = client.get(f"/api/games/{game}/view", headers=table.gm).json()["view"]["ships"][0]
    assert {st["id"]: st["crew"] for st in crew["stations"]}["pilot"] == "Ada"
    # The phone's key is a cookie of its own, and no page of the phone's shows it.
    assert phone and phone != csrf
    client.cookies.clear()
    client.cookies.update({"bc_csrf": csrf, "bc_phone": phone, f"bc_seat_{game}": ada})
    for url in (f"/join/{code}", f"/play/{game}", f"/play/{game}/panels", f"/display/{game}"):
        assert phone not in client.get(url).text, url


# --- Against a running server ---------------------------------------------------------------------


@pytest.fixture
async def async_table(live: LiveServer) -> AsyncIterator[AsyncTable]:
    async with httpx.AsyncClient(base_url=live.http, timeout=10) as http:
        yield await AsyncTable(http).create()


async def closed(socket: ClientConnection, within: float = 10) -> tuple[int | None, str]:
    with pytest.raises(ConnectionClosed):
        while True:
            await asyncio.wait_for(socket.recv(), within)
    return socket.close_code, socket.close_reason or ""


async def test_two_gm_sockets_on_one_token_both_follow_the_game(
    live: LiveServer, async_table: AsyncTable
) -> None:
    url = f"{live.ws}/ws/gm/{async_table.game_id}?format=json"
    bearer = {"Authorization": f"Bearer {async_table.gm_token}"}
    async with (
        connect(url, additional_headers=bearer) as one,
        connect(url, additional_headers=bearer) as two,
    ):
        await next_message(one), await next_message(two)
        await async_table.gm_command(type="SetRedAlert", on=True)
        for socket in (one, two):
            assert (await next_message(socket))["view"]["game"]["red_alert"] is True


async def test_a_freed_seat_loses_its_token_and_its_socket(
    live: LiveServer, async_table: AsyncTable
) -> None:
    seat = await async_table.seat("weapons")
    bystander = await async_table.seat("pilot")
    base = f"{live.ws}/ws/station/{async_table.game_id}?format=json&token="
    http = async_table.http
    async with (
        connect(base + seat["seat_token"]) as phone,
        connect(base + bystander["seat_token"]) as other,
    ):
        await next_message(phone), await next_message(other)
        freed = await http.delete(
            f"/api/games/{async_table.game_id}/seats/{seat['seat_id']}", headers=async_table.gm
        )
        assert freed.status_code == 200
        code, reason = await closed(phone, within=5)
        assert code == 1008 and reason.startswith("SEAT_FREED")
        mine = {"Authorization": f"Bearer {seat['seat_token']}"}
        view = await http.get(f"/api/games/{async_table.game_id}/view", headers=mine)
        assert view.status_code == 401 and view.json()["code"] == "BAD_TOKEN"
        command = await http.post(
            f"/api/games/{async_table.game_id}/commands",
            headers=mine,
            json={"command_id": "x", "type": "PassOrder", "ship": "kestrel", "station": "weapons"},
        )
        assert command.status_code == 401
        async with connect(base + seat["seat_token"]) as again:
            assert (await closed(again))[0] == 1008
        await async_table.gm_command(type="SetRedAlert", on=True)
        update: dict[str, Any] = await next_message(other)
        while not update["view"]["game"]["red_alert"]:
            update = await next_message(other)


async def test_a_seat_freed_by_another_process_loses_its_socket_within_seconds(
    live: LiveServer, async_table: AsyncTable
) -> None:
    """No commit in this process tells the watch: only its periodic look finds it."""
    seat = await async_table.seat("comms")
    url = f"{live.ws}/ws/station/{async_table.game_id}?format=json&token={seat['seat_token']}"
    async with connect(url) as phone:
        await next_message(phone)
        async with live.app.state.session_factory() as session, session.begin():
            await session.execute(
                text("UPDATE seats SET revoked_at = now() WHERE id = :id"), {"id": seat["seat_id"]}
            )
        assert (await closed(phone, within=8))[0] == 1008
