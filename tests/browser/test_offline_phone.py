"""A phone goes offline in the middle of Orders on the worst table (tests/browser/worst_case.py):
the GM's dashboard at 1366x768 names the station the turn waits for and offers the one button
that moves it on; the GM presses it and the turn is revealed."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server
from tests.browser.screens import shot
from tests.browser.worst_case import CREW, SHIP, WAIT, gm_page, phone_page, spills, worst_table

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_gm_passes_for_a_phone_gone_offline_and_the_turn_is_revealed(
    server: Server, browser: Any
) -> None:
    crew = {station: CREW[station] for station in ("weapons", "engineering")}
    table = worst_table(server.base, ships=2, crew=crew)
    ship = next(s["name"] for s in table.view()["ships"] if s["id"] == SHIP)
    phones = {station: phone_page(browser, table, station) for station in crew}
    gm = gm_page(browser, table)
    table.command("StartTurn", seconds=0)
    for phone in phones.values():
        expect(phone.locator("#status")).to_contain_text("R1 · Befehle", timeout=WAIT)
    waiting = gm.locator("#waiting")
    expect(gm.locator("#turn")).to_contain_text("Runde 1", timeout=WAIT)
    if waiting.locator("button:has-text('NSC')").count():  # NPC crews the GM orders for
        waiting.locator("button:has-text('NSC')").click()
    engineering = table.seats["engineering"]
    table._send(engineering, type="PassOrder", ship=SHIP, station="engineering")
    expect(waiting).not_to_contain_text("offline")  # both phones are here

    phones["weapons"].close()  # Weapons' phone goes away: the turn waits for it alone
    line = waiting.locator(".gm-offline")
    expect(line).to_contain_text(
        f"Es wird auf Waffen der {ship} gewartet — das Handy ist offline.", timeout=WAIT
    )
    button = line.locator("button:has-text('Für diese Station passen')")
    expect(button).to_be_in_viewport()
    assert spills(gm, "#orders") == []
    shot(gm, "gm-offline-phone")
    button.click()
    expect(gm.locator("#reveal")).to_contain_text("Runde 1 aufgedeckt", timeout=WAIT)
    expect(waiting).not_to_contain_text("offline")
