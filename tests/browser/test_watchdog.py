"""A phone whose connection dies without a close (no close frame, no offline event) notices by
itself: after a few heartbeats of silence it shows the reconnecting banner, reconnects and catches
up with the game."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server
from tests.browser.screens import create_game, join

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT = 15_000
HEARTBEAT_S = 0.5  # the page's watchdog is three of these

# Notes every moment the reconnecting banner is shown: it may be up for only an instant when the
# fresh socket opens at once.
BANNER_SPY = """
window.__banner = [];
document.addEventListener("DOMContentLoaded", function () {
  var el = document.getElementById("offline");
  new MutationObserver(function () { if (!el.hidden) window.__banner.push(Date.now()); })
    .observe(el, { attributes: true });
});
"""


@pytest.fixture
def quick_heartbeat(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server process reads it when the `server` fixture starts it: name this one first."""
    monkeypatch.setenv("BRIDGECREW_HEARTBEAT_S", str(HEARTBEAT_S))


@pytest.mark.usefixtures("quick_heartbeat")
def test_a_phone_on_a_silently_dead_socket_shows_the_banner_and_catches_up(
    server: Server, browser: Any, playwright: Any
) -> None:
    base = server.base
    gm = browser.new_context().new_page()
    code = create_game(gm, base)

    context = browser.new_context(**playwright.devices["Pixel 7"])
    context.add_init_script(BANNER_SPY)
    phone = context.new_page()
    sockets: list[Any] = []
    black_hole = {"on": False}

    def route(ws: Any) -> None:
        # The first socket stops hearing the server once the black hole opens, and is never
        # closed: what a Wi-Fi hand-over or a forgetful router does. Later sockets are fine.
        first = not sockets
        sockets.append(ws)
        server = ws.connect_to_server()
        server.on_message(lambda message: None if first and black_hole["on"] else ws.send(message))

    phone.route_web_socket(re.compile(r"/ws/station/"), route)
    join(phone, base, code, "kestrel/weapons", "Ann")
    expect(phone.locator("#status")).to_contain_text("Downtime", timeout=WAIT)
    assert len(sockets) == 1
    assert phone.evaluate("window.__banner.length") == 0

    black_hole["on"] = True
    gm.click("#turn button:has-text('Start combat')")
    expect(gm.locator("#turn")).to_contain_text("Turn 1", timeout=WAIT)
    assert "T1 · Orders" not in phone.inner_text("#status")  # the phone did not hear of it

    # Three heartbeats (1.5 s), plus the slack of a loaded 2-core machine.
    phone.wait_for_function("window.__banner.length > 0", timeout=8_000)
    expect(phone.locator("#status")).to_contain_text("T1 · Orders", timeout=WAIT)
    expect(phone.locator("#offline")).to_be_hidden(timeout=WAIT)
    assert len(sockets) >= 2
