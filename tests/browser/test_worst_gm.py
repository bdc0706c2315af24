"""The GM's dashboard on the worst table (tests/browser/worst_case.py) at 1366x768: it says
whether the projector has had time to show the whole last reveal before the GM starts the next
turn."""

from __future__ import annotations

import random
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server
from tests.browser.worst_case import GM, WAIT, worst_table

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_dashboard_says_whether_the_room_has_seen_the_whole_reveal(
    server: Server, browser: Any
) -> None:
    table = worst_table(server.base, ships=3)
    gm = browser.new_context(viewport=GM, locale="de-DE").new_page()
    gm.clock.install()
    gm.goto(f"{table.base}/gm/{table.game_id}?token={table.gm_token}")
    table.command("StartTurn")
    table.order_all(random.Random(3))
    if table.view()["game"]["phase"] == "orders":
        table.command("CloseOrders")
    reading = gm.locator("#turn .room-reading")
    expect(reading).to_contain_text("zeigt noch", timeout=WAIT)
    entries = gm.locator(
        "#reveal .turn-tally > li, #reveal .results > li, #reveal .orders-revealed > li"
    ).count()
    assert entries > 3
    # The projector gives an entry three seconds: not yet all shown after half of that.
    gm.clock.run_for(entries * 1500)
    expect(reading).to_contain_text("zeigt noch")
    gm.clock.run_for(entries * 1500 + 1000)
    expect(reading).to_contain_text(f"alles gezeigt, was in Runde {table.view()['game']['turn']}")
