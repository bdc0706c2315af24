"""The Pilot's map on a phone: the whole battle fits the screen's width, squares carry
their coordinates, and a destroyed ship is drawn as a wreck, while the squares to tap stay
finger-sized."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server
from tests.browser.screens import create_game, join, shot, small_targets

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT = 15_000

# Each ship's marker on the overview, left and right edges as drawn.
MARKERS = """() => Array.from(document.querySelectorAll('.pilot-overview .ship-shape'))
  .map(g => { const r = g.getBoundingClientRect(); return [r.left, r.right]; })"""


def test_the_pilot_sees_every_ship_with_coordinates_and_wrecks(
    server: Server, browser: Any, playwright: Any
) -> None:
    gm = browser.new_context(viewport={"width": 1600, "height": 1000}).new_page()
    code = create_game(gm, server.base, "skirmish")
    phone = browser.new_context(**playwright.devices["iPhone 13"]).new_page()
    join(phone, server.base, code, "kestrel/pilot", "Ann")
    gm.click("#turn button:has-text('Start combat')")
    expect(phone.locator("#status")).to_contain_text("T1 · Orders", timeout=WAIT)

    width = phone.viewport_size["width"]
    overview = phone.locator(".pilot-overview svg").bounding_box()
    assert overview is not None and overview["x"] >= 0
    assert overview["x"] + overview["width"] <= width
    markers: list[list[float]] = phone.evaluate(MARKERS)
    assert len(markers) == 2
    assert all(left >= 0 and right <= width for left, right in markers), markers
    # Numbers along the tappable grid: 16 columns and 10 rows on skirmish's map.
    coords = phone.locator(".map-grid .grid-coord")
    expect(coords).to_have_count(1 + 16 + 10)
    expect(coords.nth(16)).to_have_text("15")

    rustjaw = gm.locator("article.gm-ship", has_text="Rustjaw").locator(".gm-row", has_text="Hull")
    rustjaw.locator("input[name=damage]").fill("8")
    rustjaw.locator("button:has-text('dmg')").click()
    expect(phone.locator(".pilot-overview .ship-mark.destroyed .wreck")).to_have_count(
        1, timeout=WAIT
    )
    expect(phone.locator(".map-grid .cell.wreck")).to_have_count(1)
    phone.locator("#hand .card:not(.unfit)").first.click()
    assert small_targets(phone) == []
    shot(phone, "phone-pilot-map-wreck")
