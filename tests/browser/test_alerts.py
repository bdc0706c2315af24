"""The loud moments: red alert across the room, a station knocked out, a private word from the GM;
and the projector still fitting five ships on 1920×1080."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server
from tests.browser.screens import VIBRATE_SPY, create_game, join, shot

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT = 15_000


def test_red_alert_station_down_and_a_private_message(
    server: Server, browser: Any, playwright: Any
) -> None:
    gm = browser.new_context(viewport={"width": 1600, "height": 1000}).new_page()
    gm.goto(f"{server.base}/gm")
    gm.click("label.choice:has(input[value=convoy])")
    gm.click("button:has-text('Create game')")
    gm.wait_for_url(re.compile(r"/gm/[0-9a-f-]+$"))
    game_id = gm.url.rsplit("/", 1)[1]
    code = gm.inner_text(".gm-join .d-code").strip()

    context = browser.new_context(**playwright.devices["Pixel 7"])
    context.add_init_script(VIBRATE_SPY)
    phone = context.new_page()
    join(phone, server.base, code, "resolute/pilot", "Zed")
    other = browser.new_context(**playwright.devices["iPhone 13"]).new_page()
    join(other, server.base, code, "kestrel/comms", "Yu")
    display = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    display.goto(f"{server.base}/display/{game_id}")

    gm.click("#turn button:has-text('Start combat')")
    expect(phone.locator("#status")).to_contain_text("T1 · Orders", timeout=WAIT)
    gm.click("#turn button:has-text('RED ALERT')")
    expect(display.locator("#alert")).to_contain_text("RED ALERT", timeout=WAIT)
    expect(phone.locator("#status")).to_contain_text("RED ALERT", timeout=WAIT)

    pilot_row = gm.locator("article.gm-ship", has_text="Bastion-class").locator(
        ".gm-row", has_text="Pilot"
    )
    pilot_row.locator("input[name=damage]").fill("5")
    pilot_row.locator("button:has-text('dmg')").click()
    expect(phone.locator("#me")).to_contain_text("STATION DOWN", timeout=WAIT)
    expect(phone.locator("#me")).to_contain_text("no cards until Engineering repairs it")
    assert phone.evaluate("window.__buzz.length") > 0
    expect(phone.locator("#order")).to_contain_text("no cards until Engineering repairs it")
    expect(phone.locator("#order button:has-text('Send order')")).to_have_count(0)

    gm.select_option("#messages select[name=to]", "resolute/pilot")
    gm.fill("#messages input[name=text]", "Zed: your console is sparking. Duck!")
    gm.click("#messages button:has-text('Send')")
    expect(phone.locator("#messages")).to_contain_text("console is sparking", timeout=WAIT)
    other.wait_for_timeout(500)
    assert "console is sparking" not in other.content()
    assert "console is sparking" not in display.content()

    # Five ships: every one of them, the last included, is on screen.
    ships = display.locator("#ship-status article.ship")
    expect(ships).to_have_count(5)
    for index in range(5):
        box = ships.nth(index).bounding_box()
        assert box is not None and box["y"] + box["height"] <= 1080, index
    shot(phone, "phone-station-down-red-alert")
    shot(display, "projector-five-ships-red-alert")

    gm.click("#turn button:has-text('Stand down red alert')")
    expect(display.locator("#alert")).not_to_contain_text("RED ALERT", timeout=WAIT)


def test_a_phone_waking_up_resyncs_its_panels(
    server: Server, browser: Any, playwright: Any
) -> None:
    gm = browser.new_context().new_page()
    code = create_game(gm, server.base)
    phone = browser.new_context(**playwright.devices["iPhone 13"]).new_page()
    join(phone, server.base, code, "kestrel/weapons", "Ann")
    fetched: list[str] = []
    phone.on(
        "request",
        lambda request: fetched.append(request.url) if request.url.endswith("/panels") else None,
    )
    # The phone goes to sleep and wakes up: the page fetches every panel and reopens its socket.
    phone.evaluate("""() => {
        Object.defineProperty(document, 'hidden', {value: true, configurable: true});
        document.dispatchEvent(new Event('visibilitychange'));
    }""")
    phone.wait_for_timeout(2200)
    phone.evaluate("""() => {
        Object.defineProperty(document, 'hidden', {value: false, configurable: true});
        document.dispatchEvent(new Event('visibilitychange'));
    }""")
    expect(phone.locator("#offline")).to_be_hidden(timeout=WAIT)
    phone.wait_for_timeout(500)
    assert len(fetched) == 1
    gm.click("#turn button:has-text('Start combat')")
    expect(phone.locator("#status")).to_contain_text("T1 · Orders", timeout=WAIT)
