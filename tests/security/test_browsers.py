"""Browsers: pages elsewhere can neither open our websockets nor post our forms; cookies are
httponly, SameSite and (over HTTPS) secure; every answer carries the hardening headers."""

import asyncio
import uuid
from collections.abc import AsyncIterator
from http.cookies import SimpleCookie

import httpx
import pytest
from fastapi.testclient import TestClient
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Origin

from tests.server.conftest import AsyncTable, LiveServer, Table, next_message

EVIL = "http://evil.example"


@pytest.fixture
async def async_table(live: LiveServer) -> AsyncIterator[AsyncTable]:
    async with httpx.AsyncClient(base_url=live.http, timeout=10) as http:
        yield await AsyncTable(http).create()


async def close_code(socket: ClientConnection) -> tuple[int | None, str]:
    with pytest.raises(ConnectionClosed):
        while True:
            await asyncio.wait_for(socket.recv(), 10)
    return socket.close_code, socket.close_reason or ""


async def test_websockets_refuse_pages_of_other_sites_whatever_token_they_hold(
    live: LiveServer, async_table: AsyncTable
) -> None:
    seat = await async_table.seat("weapons")
    game = async_table.game_id
    station = f"{live.ws}/ws/station/{game}?format=json&token={seat['seat_token']}"
    refused = [
        (station, Origin(EVIL)),
        (station, Origin("null")),
        (f"{live.ws}/ws/gm/{game}?token={async_table.gm_token}", Origin(EVIL)),
        (f"{live.ws}/ws/display/{game}", Origin(EVIL)),
        (f"{live.ws}/ws/events/{game}", Origin("https://127.0.0.1.evil.example")),
    ]
    for url, origin in refused:
        async with connect(url, origin=origin) as socket:
            code, reason = await close_code(socket)
            assert code == 1008 and reason.startswith("CROSS_SITE"), url
    ours = Origin(f"http://127.0.0.1:{live.port}")
    async with connect(station, origin=ours) as from_our_page:
        assert (await next_message(from_our_page))["view"]["me"]["station"] == "weapons"


async def test_a_client_without_origin_opens_its_socket_with_a_bearer_token(
    live: LiveServer, async_table: AsyncTable
) -> None:
    seat = await async_table.seat("pilot")
    url = f"{live.ws}/ws/station/{async_table.game_id}?format=json"
    bearer = {"Authorization": f"Bearer {seat['seat_token']}"}
    async with connect(url, additional_headers=bearer) as prop:
        assert (await next_message(prop))["view"]["me"]["station"] == "pilot"
    async with connect(url, additional_headers={"Authorization": "Bearer nope"}) as stranger:
        assert (await close_code(stranger))[0] == 1008


def _join(client: TestClient, table: Table, headers: dict[str, str]) -> httpx.Response:
    client.get(f"/join/{table.join_code}")
    response: httpx.Response = client.post(
        f"/join/{table.join_code}",
        data={"seat": "kestrel/weapons", "name": "Ada", "csrf": client.cookies.get("bc_csrf", "")},
        headers=headers,
        follow_redirects=False,
    )
    return response


def test_forms_refuse_other_sites_even_with_a_valid_csrf_token(table: Table) -> None:
    client = table.client
    for headers in ({"Origin": EVIL}, {"Referer": f"{EVIL}/trap.html"}, {"Origin": "null"}):
        answer = _join(client, table, headers)
        assert answer.status_code == 403 and answer.json()["code"] == "CROSS_SITE", headers
    host = {"Origin": "http://testserver"}
    client.cookies.delete("bc_csrf")
    forged = client.post(
        f"/join/{table.join_code}", data={"seat": "kestrel/weapons", "name": "Ada"}, headers=host
    )
    assert forged.status_code == 403  # no double-submit token: the UI's own check
    assert table.client.get(f"/api/games/{table.game_id}").json()["version"] == 0
    assert _join(client, table, host).status_code == 303


def test_every_form_route_checks_the_origin(table: Table) -> None:
    paths = table.client.get("/openapi.json").json()["paths"]
    posts = [p for p, methods in paths.items() if "post" in methods and not p.startswith("/api")]
    assert len(posts) >= 8
    for path in posts:
        # The content editor's routes name a kind of content and an item.
        url = path.format(
            game_id=table.game_id,
            code=table.join_code,
            kind="ship",
            item_id="frigate",
            campaign_id=uuid.uuid4(),  # a campaign's forms (G-CAMP-*)
            ask_id=1,
        )
        answer = table.client.post(url, headers={"Origin": EVIL})
        assert answer.status_code == 403 and answer.json()["code"] == "CROSS_SITE", path


def test_the_api_takes_bearer_tokens_from_anywhere_but_shares_nothing_with_pages(
    table: Table,
) -> None:
    """A bearer token is never attached by a browser on its own, so the API needs no Origin
    check; and with no CORS headers, a page elsewhere cannot read what it answers."""
    answer = table.client.post(
        f"/api/games/{table.game_id}/commands",
        json={"command_id": "a", "type": "SetRedAlert", "on": True},
        headers={**table.gm, "Origin": EVIL},
    )
    assert answer.status_code == 200
    assert "access-control-allow-origin" not in answer.headers
    preflight = table.client.options(
        f"/api/games/{table.game_id}/commands",
        headers={"Origin": EVIL, "Access-Control-Request-Method": "POST"},
    )
    assert "access-control-allow-origin" not in preflight.headers


def _cookies(response: httpx.Response) -> dict[str, SimpleCookie]:
    jar = {}
    for header in response.headers.get_list("set-cookie"):
        cookie: SimpleCookie = SimpleCookie()
        cookie.load(header)
        jar.update({name: cookie for name in cookie})
    return jar


def test_cookies_are_httponly_samesite_and_secure_over_https(table: Table) -> None:
    table.client.cookies.clear()
    scanned = table.client.get(f"/join/{table.join_code}")
    joined = _join(table.client, table, {})
    gm = table.client.get(
        f"/gm/{table.game_id}", params={"token": table.gm_token}, follow_redirects=False
    )
    page = table.client.get(f"/display/{table.game_id}")
    cookies = {**_cookies(scanned), **_cookies(joined), **_cookies(gm), **_cookies(page)}
    names = {f"bc_seat_{table.game_id}", f"bc_gm_{table.game_id}", "bc_csrf", "bc_phone"}
    assert names <= set(cookies)
    for name in names:
        morsel = cookies[name][name]
        assert morsel["httponly"] and morsel["samesite"].lower() == "lax" and morsel["path"] == "/"
    secure = table.client.get(f"https://testserver/display/{table.game_id}")
    morsel = _cookies(secure)["bc_csrf"]["bc_csrf"]
    assert morsel["secure"] and morsel["httponly"]


def test_every_answer_carries_the_hardening_headers(table: Table) -> None:
    for url in (f"/api/games/{table.game_id}", f"/display/{table.game_id}", "/nowhere", "/gm"):
        headers = table.client.get(url).headers
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"
        assert "frame-ancestors 'none'" in headers["content-security-policy"]
        assert headers["referrer-policy"] == "same-origin"
