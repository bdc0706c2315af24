"""A phone's socket says what its screen shows (`?shown=`, static/js/app.js). When the game has
not moved on since, the server sends the version alone instead of every panel again: the socket a
page opens after loading, and one that comes back after the Wi-Fi dropped. When the game did move
on meanwhile, the whole screen comes, and the phone catches up."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Server
from tests.browser.screens import create_game, join

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT = 15_000
SERVICE_RESTART = 1012  # a close code htmx-ext-ws reconnects after


class Watched:
    """Routes a page's station sockets to the server and notes each one's address and first
    message; `deaf()` stops the newest one passing on what the server sends."""

    def __init__(self, page: Page) -> None:
        self.routes: list[Any] = []
        self.urls: list[str] = []
        self.first: dict[int, str] = {}
        self.muted: set[int] = set()
        page.route_web_socket(re.compile(re.escape("/ws/station/")), self._route)

    def _route(self, ws: Any) -> None:
        index = len(self.routes)
        self.routes.append(ws)
        self.urls.append(ws.url)
        upstream = ws.connect_to_server()

        def forward(message: str | bytes) -> None:
            self.first.setdefault(index, str(message))
            if index not in self.muted:
                ws.send(message)

        upstream.on_message(forward)

    def deaf(self) -> None:
        self.muted.add(len(self.routes) - 1)

    def drop(self, page: Page) -> None:
        """The page's side of the newest socket closes as when the server restarts; htmx-ext-ws
        opens a new one, which is waited for."""
        before = len(self.routes)
        self.routes[-1].close(code=SERVICE_RESTART, reason="restart")
        deadline = 40
        while len(self.routes) == before or len(self.first) < len(self.routes):
            page.wait_for_timeout(250)
            deadline -= 1
            assert deadline, "no new socket"


def panels(message: str) -> list[str]:
    return re.findall(r'<[a-z]+ id="([\w-]+)"[^>]*hx-swap-oob="true"', message)


def shown(url: str) -> str:
    found = re.search(r"[?&]shown=([^&]+)", url)
    assert found, url
    return found.group(1)


def test_a_phone_that_shows_the_game_as_it_stands_is_sent_no_panels_again(
    server: Server, browser: Any, playwright: Any
) -> None:
    gm = browser.new_context().new_page()
    code = create_game(gm, server.base)
    phone = browser.new_context(**playwright.devices["Pixel 7"]).new_page()
    watched = Watched(phone)
    join(phone, server.base, code, "kestrel/weapons", "Ann")
    expect(phone.locator("#status")).to_contain_text("Downtime", timeout=WAIT)
    while 0 not in watched.first:
        phone.wait_for_timeout(100)

    # The page's own socket: the page shows this version already.
    assert panels(watched.first[0]) == ["bc-version"]
    # The Wi-Fi drops and comes back with nothing new: the version alone again.
    watched.drop(phone)
    assert shown(watched.urls[1]) == shown(watched.urls[0])
    assert panels(watched.first[1]) == ["bc-version"]
    expect(phone.locator("#offline")).to_be_hidden(timeout=WAIT)
    gm.click("#turn button:has-text('Start combat')")
    expect(phone.locator("#status")).to_contain_text("T1 · Orders", timeout=WAIT)

    # Away while the game moves on: the phone comes back to the whole screen, and catches up.
    watched.deaf()
    gm.click("#turn button:has-text('RED ALERT')")
    expect(gm.locator("#turn")).to_contain_text("Stand down red alert", timeout=WAIT)
    phone.wait_for_timeout(500)
    expect(phone.locator("#status")).not_to_contain_text("RED ALERT")  # it did not hear
    watched.drop(phone)
    assert shown(watched.urls[2]) != shown(watched.urls[0])
    assert len(panels(watched.first[2])) > 5
    expect(phone.locator("#status")).to_contain_text("RED ALERT", timeout=WAIT)
