"""The projector's sound: each cue fires on its moment, as the page records it
(window.bridgecrewSounds), and the GM's mute and volume reach the projector."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.chromium import CHROMIUM, CHROMIUM_ARGS
from tests.browser.conftest import Server
from tests.browser.screens import create_game, join

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT = 15_000


@pytest.fixture
def loud_browser(playwright: Any) -> Iterator[Any]:
    """Chromium that plays sound without a click first (a room's projector gets one click)."""
    chromium = playwright.chromium.launch(
        executable_path=CHROMIUM,
        args=[*CHROMIUM_ARGS, "--autoplay-policy=no-user-gesture-required"],
    )
    try:
        yield chromium
    finally:
        chromium.close()


def played(page: Page) -> list[str]:
    cues: list[str] = page.evaluate("window.bridgecrewSounds.map(s => s.cue)")
    return cues


def wait_for_cue(page: Page, cue: str) -> None:
    page.wait_for_function(f"window.bridgecrewSounds.some(s => s.cue === '{cue}')", timeout=WAIT)


def gm_and_projector(server: Server, browser: Any, scenario: str) -> tuple[Page, Page]:
    """A new game's GM dashboard, and its projector with the sound on."""
    gm: Page = browser.new_context(viewport={"width": 1600, "height": 1000}).new_page()
    create_game(gm, server.base, scenario)
    game_id = gm.url.rsplit("/", 1)[1]
    page: Page = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    page.goto(f"{server.base}/display/{game_id}")
    expect(page.locator("#sound")).to_have_attribute("data-on", "true")
    return gm, page


def set_track(gm: Page, ship: str, damage: int) -> None:
    row = gm.locator("article.gm-ship", has_text=ship).locator(".gm-row", has_text="Hull")
    row.locator("input[name=damage]").fill(str(damage))
    row.locator("button:has-text('dmg')").click()


def test_every_cue_fires_and_the_gm_mutes_and_sets_the_volume(
    server: Server, loud_browser: Any
) -> None:
    gm, page = gm_and_projector(server, loud_browser, "skirmish")
    assert played(page) == []

    gm.click("#gm-settings summary")
    timer = gm.locator("#gm-settings form", has_text="Turn timer")
    timer.locator("input[name=value]").fill("12")
    timer.locator("button").click()
    gm.click("#turn button:has-text('Start combat')")
    wait_for_cue(page, "turn-start")
    wait_for_cue(page, "countdown")
    gm.click("#turn button:has-text('RED ALERT')")
    wait_for_cue(page, "red-alert")
    set_track(gm, "Kestrel", 1)
    wait_for_cue(page, "hit-players")
    set_track(gm, "Rustjaw", 1)
    wait_for_cue(page, "hit-enemy")
    set_track(gm, "Rustjaw", 8)
    wait_for_cue(page, "destroyed")
    assert page.locator(".d-sound-enable").is_hidden()

    volume = gm.locator("#gm-settings form", has_text="Volume")
    volume.locator("input[name=value]").fill("30")
    volume.locator("button").click()
    expect(page.locator("#sound")).to_have_attribute("data-volume", "30", timeout=WAIT)
    set_track(gm, "Kestrel", 2)
    page.wait_for_function(
        "window.bridgecrewSounds.some(s => s.cue === 'hit-players' && s.volume === 30)",
        timeout=WAIT,
    )

    gm.click("#gm-sound")
    expect(page.locator("#sound")).to_have_attribute("data-on", "false", timeout=WAIT)
    expect(gm.locator("#gm-sound")).to_have_text("Projector sound: muted")
    before = len(played(page))
    set_track(gm, "Kestrel", 3)
    expect(page.locator("#ship-status")).to_contain_text("Hull 9/12", timeout=WAIT)
    page.wait_for_timeout(500)
    assert len(played(page)) == before


def test_a_phone_thuds_with_the_buzz_once_a_tap_has_readied_its_sound(
    server: Server, browser: Any, playwright: Any
) -> None:
    gm = browser.new_context(viewport={"width": 1600, "height": 1000}).new_page()
    code = create_game(gm, server.base, "skirmish")
    phone = browser.new_context(**playwright.devices["iPhone 13"]).new_page()
    join(phone, server.base, code, "kestrel/weapons", "Ann")
    phone.locator("#me").click()  # the tap that lets the page make sound
    row = gm.locator("article.gm-ship", has_text="Kestrel").locator(".gm-row", has_text="Weapons")
    row.locator("input[name=damage]").fill("1")
    row.locator("button:has-text('dmg')").click()
    wait_for_cue(phone, "phone-hit")


def test_a_cue_sounds_the_boarding_alarm_each_time_the_gm_fires_it(
    server: Server, loud_browser: Any
) -> None:
    """M-CUES-7: the boarding party's alarm (a prop's button, or the GM's) sounds on the
    projector every time it fires."""
    gm, page = gm_and_projector(server, loud_browser, "boarding-party")
    for times in (1, 2):
        gm.locator("#cue-alarm button:has-text('Fire now')").click()
        expect(page.locator("#sound")).to_have_attribute("data-played-n", str(times), timeout=WAIT)
        page.wait_for_function(
            f"window.bridgecrewSounds.filter(s => s.cue === 'alarm').length === {times}",
            timeout=WAIT,
        )
