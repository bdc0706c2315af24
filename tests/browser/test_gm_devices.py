"""A GM's devices: a phone that holds the GM's cookie and a seat of the same game (a GM trying
their own game as a player) opens what it asks for."""

from __future__ import annotations

import re
from typing import Any

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
