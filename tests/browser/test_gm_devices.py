"""A GM's devices: a phone that holds the GM's cookie and a seat of the same game (a GM trying
their own game as a player) opens what it asks for, and a co-GM's tablet gets the dashboard from
the link the GM's dashboard shows behind a second click."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server
from tests.browser.screens import create_game, join, pass_turn

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT = 15_000
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def test_a_gm_trying_their_own_game_on_a_phone_gets_the_station_and_its_orders_count(
    server: Server, browser: Any
) -> None:
    phone = browser.new_context(**PHONE)
    gm = phone.new_page()
    code = create_game(gm, server.base)
    game_id = gm.url.rsplit("/", 1)[1]
    player = phone.new_page()  # the same browser: the GM's cookie and now a seat's
    join(player, server.base, code, "kestrel/pilot", "Friedrich-Wilhelm von Hohenzollern-Sigma")
    assert player.url == f"{server.base}/play/{game_id}"
    gm.reload()
    expect(gm.locator("#turn")).to_be_visible()  # the dashboard stays the GM's
    gm.click("#turn button:has-text('Start combat')")
    expect(player.locator("#status")).to_contain_text("T1 · Orders", timeout=WAIT)
    pass_turn(player)  # taken, not dropped with a reload: the turn it completed is revealed
    expect(gm.locator("#reveal")).to_contain_text("Turn 1 revealed", timeout=WAIT)
    player.goto(f"{server.base}/join/{code}")  # the join link again: back to the station
    player.wait_for_url(re.compile(r"/play/[0-9a-f-]+$"))
    expect(player.locator("#order .order-state")).to_have_text(re.compile("Sent|is over|Resolving"))


def test_a_co_gm_tablet_opens_the_dashboard_from_the_link_the_gm_shows(
    server: Server, browser: Any
) -> None:
    gm = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
    create_game(gm, server.base)
    game_id = gm.url.rsplit("/", 1)[1]
    tablet = browser.new_context(viewport={"width": 1024, "height": 768}).new_page()
    tablet.goto(f"{server.base}/gm/{game_id}")
    expect(tablet.locator(".error-box")).to_contain_text("GM link for another device")

    # A secret: not on the dashboard until asked, and asked with a second click.
    assert "token=" not in gm.content()
    ask = gm.locator("#gm-link button")
    ask.click()
    expect(ask).to_have_class(re.compile("confirming"))
    assert "token=" not in gm.content()
    ask.click()
    link = gm.locator("#gm-link .gm-link-url")
    expect(link).to_have_value(re.compile(rf"/gm/{game_id}\?token="), timeout=WAIT)
    expect(gm.locator("#gm-link .qr svg")).to_be_visible()
    box = gm.locator("#gm-link").bounding_box()
    assert box is not None and box["x"] + box["width"] <= 1366

    # The link names the address other devices use; this test's server answers on loopback.
    shown = urlsplit(link.input_value())
    tablet.goto(f"{server.base}{shown.path}?{shown.query}")
    tablet.wait_for_url(f"{server.base}/gm/{game_id}")  # the token leaves the address bar
    expect(tablet.locator("#turn")).to_be_visible()
    gm.locator("#gm-link button:has-text('Hide the GM link')").click()
    expect(gm.locator("#gm-link .gm-link-url")).to_have_count(0)
