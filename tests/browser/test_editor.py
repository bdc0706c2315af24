"""Through the real server and Chromium: from the lobby, an organiser copies a built-in
ship class and changes it, builds a new scenario from scratch with a five-zone map and two
ships, starts it, and the crew play a turn on it with phones."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Server
from tests.browser.screens import join, pass_turn, pick_cards, send, shot

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT = 15_000


def _saved(page: Page) -> None:
    page.locator("button.save").first.click()
    expect(page.locator(".ok-box")).to_contain_text("Saved as version 1.", timeout=WAIT)


def _touch(page: Page, zone: int, other: str) -> None:
    page.locator(f"#f-map-zones-{zone} input[value='{other}']").check()


def test_copy_a_ship_class_build_a_zone_scenario_start_it_and_play_a_turn(
    server: Server, browser: Any, playwright: Any
) -> None:
    base = server.base
    key = (server.data_dir / "organiser_key").read_text().strip()
    organiser = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    organiser.goto(f"{base}/gm")
    organiser.click("a[href='/editor']")
    # Without the key the editor says why, and takes the key typed in.
    expect(organiser.locator(".error-box")).to_contain_text("organiser key")
    organiser.fill("#organiser-key", key)
    organiser.click("button:has-text('Open the editor')")
    expect(organiser.locator("h1")).to_have_text("Content editor")

    # A copy of the built-in frigate, tougher, under a name of its own.
    organiser.click("a[aria-label='Copy Kestrel-class Frigate']")
    organiser.fill("#f-id", "gunboat")
    organiser.fill("#f-name", "Gunboat")
    organiser.fill("#f-defence", "6")
    expect(organiser.locator("#preview .ship")).to_contain_text("Gunboat", timeout=WAIT)
    _saved(organiser)

    # A new scenario: the blank one has two zones and two ships; three zones more make a line.
    organiser.goto(f"{base}/editor")
    organiser.click("#kind-scenario a:has-text('New')")
    organiser.fill("#f-id", "ring-fight")
    organiser.fill("#f-name", "Ring Fight")
    organiser.fill("#f-description", "Five zones in a line, two ships.")
    for _ in range(3):
        organiser.click("button:has-text('Add a zone')")
    expect(organiser.locator("#f-map-zones-4")).to_be_visible()
    links = ((1, "zone-3"), (2, "zone-2"), (2, "zone-4"), (3, "zone-3"), (3, "zone-5"))
    for zone, other in links:
        _touch(organiser, zone, other)
    # Touching goes both ways: the preview says so beside the map until the fifth zone agrees.
    expect(organiser.locator("#preview")).to_contain_text("touching goes both ways", timeout=WAIT)
    _touch(organiser, 4, "zone-4")
    organiser.select_option("#f-ships-0-ship_class", "gunboat")
    organiser.select_option("#f-ships-1-zone", "zone-5")
    expect(organiser.locator("#preview svg.zone-map g.zone")).to_have_count(5, timeout=WAIT)
    _saved(organiser)
    shot(organiser, "editor-zone-scenario", full_page=True)

    # The lobby lists it with its description; the GM starts it.
    gm = browser.new_context(viewport={"width": 1600, "height": 1000}).new_page()
    gm.goto(f"{base}/gm")
    choice = gm.locator("label.choice:has(input[value=ring-fight])")
    expect(choice).to_contain_text("Five zones in a line, two ships.")
    choice.click()
    gm.fill("#seed", "7")
    gm.click("button:has-text('Create game')")
    gm.wait_for_url(re.compile(r"/gm/[0-9a-f-]+$"))
    code = gm.inner_text(".gm-join .d-code").strip()
    expect(gm.locator("#ship-status, main").first).to_contain_text("Gunboat")

    phones: dict[str, Page] = {}
    for seat, device in (("ship-1/pilot", "Pixel 7"), ("ship-1/weapons", "iPhone 13")):
        page = browser.new_context(**playwright.devices[device]).new_page()
        join(page, base, code, seat, seat.replace("/", " "))
        phones[seat] = page
    expect(gm.locator("#seats")).to_contain_text("ship-1 weapons", timeout=WAIT)

    gm.locator("#turn input[name=seconds]").fill("0")
    gm.locator("#turn button:has-text('Start combat')").first.click()
    for page in phones.values():
        expect(page.locator("#status")).to_contain_text("T1 · Orders", timeout=WAIT)
    # The Pilot flies the Gunboat into the next zone; the Weapons officer holds fire.
    pilot = phones["ship-1/pilot"]
    pick_cards(pilot, 5)
    total = int(pilot.inner_text("#hand [data-total]"))
    assert total >= 3, f"seed 7 deals the Pilot {total}: pick another seed"
    pilot.locator(".zone-pick-map g.zone[data-zone=zone-2]").click()
    send(pilot)
    pass_turn(phones["ship-1/weapons"])
    gm.locator("#turn button:has-text('Close orders')").first.click()
    display = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    display.goto(gm.url.replace("/gm/", "/display/"))
    expect(display.locator("#reveal")).to_contain_text("Turn 1 revealed", timeout=WAIT)
    expect(display.locator("#reveal")).to_contain_text("Ship 1 moved from Zone 1 to Zone 2")
    expect(display.locator("svg.zone-map g.zone")).to_have_count(5)
    shot(display, "projector-custom-scenario")
