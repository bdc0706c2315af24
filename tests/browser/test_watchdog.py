"""A phone whose connection dies without a close (no close frame, no offline event) notices by
itself: after a few heartbeats of silence it shows the reconnecting banner, reconnects and catches
up with the game."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Server
from tests.browser.screens import create_game, join

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT = 15_000
HEARTBEAT_S = 0.5  # the page's watchdog is three of these

# Notes every moment the reconnecting banner is shown (it may be up for only an instant when the
# fresh socket opens at once), and every message the page heard.
BANNER_SPY = """
window.__banner = [];
window.__heard = [];
document.addEventListener("htmx:wsBeforeMessage", function () { window.__heard.push(Date.now()); });
document.addEventListener("DOMContentLoaded", function () {
  var el = document.getElementById("offline");
  new MutationObserver(function () { if (!el.hidden) window.__banner.push(Date.now()); })
    .observe(el, { attributes: true });
});
"""


class BlackHole:
    """Routes a page's websockets: the first one stops hearing the server once `open()` is
    called, and is never closed (what a Wi-Fi hand-over or a forgetful router does); later ones
    are left alone."""

    def __init__(self, page: Page, path: str) -> None:
        self.sockets: list[Any] = []
        self.opened = False
        page.route_web_socket(re.compile(re.escape(path)), self._route)

    def open(self) -> None:
        self.opened = True

    def _route(self, ws: Any) -> None:
        first = not self.sockets
        self.sockets.append(ws)
        upstream = ws.connect_to_server()
        upstream.on_message(lambda message: None if first and self.opened else ws.send(message))


def spied_page(browser: Any, **device: Any) -> Page:
    context = browser.new_context(**device)
    context.add_init_script(BANNER_SPY)
    page: Page = context.new_page()
    return page


def wait_for_banner(page: Page) -> None:
    # Three heartbeats (1.5 s), plus the slack of a loaded 2-core machine.
    page.wait_for_function("window.__banner.length > 0", timeout=8_000)


@pytest.fixture
def quick_heartbeat(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server process reads it when the `server` fixture starts it: name this one first."""
    monkeypatch.setenv("BRIDGECREW_HEARTBEAT_S", str(HEARTBEAT_S))


def seated_phone(server: Server, browser: Any, playwright: Any) -> tuple[Page, Page, BlackHole]:
    """The GM's page, and a phone at Weapons whose first socket can be made to stall."""
    gm = browser.new_context().new_page()
    code = create_game(gm, server.base)
    phone = spied_page(browser, **playwright.devices["Pixel 7"])
    hole = BlackHole(phone, "/ws/station/")
    join(phone, server.base, code, "kestrel/weapons", "Ann")
    expect(phone.locator("#status")).to_contain_text("Downtime", timeout=WAIT)
    return gm, phone, hole


@pytest.mark.usefixtures("quick_heartbeat")
def test_a_phone_on_a_silently_dead_socket_shows_the_banner_and_catches_up(
    server: Server, browser: Any, playwright: Any
) -> None:
    gm, phone, hole = seated_phone(server, browser, playwright)
    assert len(hole.sockets) == 1
    assert phone.evaluate("window.__banner.length") == 0

    hole.open()
    gm.click("#turn button:has-text('Start combat')")
    expect(gm.locator("#turn")).to_contain_text("Turn 1", timeout=WAIT)
    assert "T1 · Orders" not in phone.inner_text("#status")  # the phone did not hear of it

    wait_for_banner(phone)
    expect(phone.locator("#status")).to_contain_text("T1 · Orders", timeout=WAIT)
    expect(phone.locator("#offline")).to_be_hidden(timeout=WAIT)
    assert len(hole.sockets) >= 2


# A stalled phone showed the old turn for 43 s. With the shipped heartbeat the banner
# must be up within 20 s of the last thing the phone heard.
STALL_LIMIT_MS = 20_000


def test_with_the_shipped_heartbeat_a_stalled_phone_shows_the_banner_within_20_s(
    server: Server, browser: Any, playwright: Any
) -> None:
    gm, phone, hole = seated_phone(server, browser, playwright)
    # The socket's welcome heard first: the stall is timed from the last message that came.
    phone.wait_for_function("window.__heard.length > 0", timeout=WAIT)
    hole.open()
    phone.wait_for_function("window.__banner.length > 0", timeout=STALL_LIMIT_MS + 10_000)
    stalled = phone.evaluate("window.__banner[0] - window.__heard[window.__heard.length - 1]")
    assert stalled <= STALL_LIMIT_MS
    gm.click("#turn button:has-text('Start combat')")
    expect(phone.locator("#status")).to_contain_text("T1 · Orders", timeout=WAIT)
    assert len(hole.sockets) >= 2


@pytest.mark.usefixtures("quick_heartbeat")
def test_the_projector_on_a_silently_dead_socket_catches_up_too(
    server: Server, browser: Any
) -> None:
    gm = browser.new_context().new_page()
    create_game(gm, server.base)
    game_id = gm.url.rsplit("/", 1)[1]
    display = spied_page(browser, viewport={"width": 1920, "height": 1080})
    hole = BlackHole(display, "/ws/display/")
    display.goto(f"{server.base}/display/{game_id}")
    expect(display.locator("#timer")).to_contain_text("Before combat", timeout=WAIT)
    display.wait_for_timeout(300)  # the socket is open and heard from

    hole.open()
    gm.click("#turn button:has-text('Start combat')")
    expect(gm.locator("#turn")).to_contain_text("Turn 1", timeout=WAIT)

    wait_for_banner(display)
    expect(display.locator("#timer")).to_contain_text("Turn 1", timeout=WAIT)
    assert len(hole.sockets) >= 2
