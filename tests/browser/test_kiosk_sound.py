"""The README's kiosk flag: a projector browser started with
--autoplay-policy=no-user-gesture-required plays sound without a click, so the "Click to enable
sound" button, which otherwise covers part of the screen until someone clicks, never shows."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.chromium import CHROMIUM, CHROMIUM_ARGS
from tests.browser.conftest import Server
from tests.browser.screens import create_game

pytestmark = [pytest.mark.browser, pytest.mark.slow]
KIOSK_FLAG = "--autoplay-policy=no-user-gesture-required"


def projector(browser: Any, server: Server, game_id: str) -> Page:
    page: Page = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    page.goto(f"{server.base}/display/{game_id}")
    expect(page.locator("#timer")).to_contain_text("Before combat")
    return page


def test_the_kiosk_flag_lets_the_projector_play_sound_without_the_click_button(
    server: Server, browser: Any, playwright: Any
) -> None:
    gm = browser.new_context().new_page()
    create_game(gm, server.base)
    game_id = gm.url.rsplit("/", 1)[1]
    # Without the flag the button asks for a click (the GM's sound setting is on by default),
    # and covers nothing: it takes a place of its own in the header.
    page = projector(browser, server, game_id)
    expect(page.locator(".d-sound-enable")).to_be_visible()
    covered = page.evaluate(
        """() => {
            const button = document.querySelector('.d-sound-enable');
            const b = button.getBoundingClientRect();
            return [...document.querySelectorAll('main section, header')].filter(s => {
                if (s.contains(button)) return false;  // the header it stands in
                const r = s.getBoundingClientRect();
                return r.width && r.height && r.left < b.right && b.left < r.right
                    && r.top < b.bottom && b.top < r.bottom;
            }).map(s => s.id || s.className);
        }"""
    )
    assert covered == [], f"the sound button covers {covered}"

    kiosk = playwright.chromium.launch(executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, KIOSK_FLAG])
    try:
        page = projector(kiosk, server, game_id)
        page.wait_for_timeout(2500)  # sound.js checks again every 2 s
        expect(page.locator(".d-sound-enable")).to_be_hidden()
    finally:
        kiosk.close()


def test_the_click_button_stays_while_the_projector_is_drawn_again(
    server: Server, browser: Any
) -> None:
    """Until someone clicks, every push of the sound panel and every resync draws the button
    hidden again; it must be asked for again at once, or the projector's whole layout (the
    reveal's pages with it) jumps by a line and back."""
    gm = browser.new_context(viewport={"width": 1600, "height": 1000}).new_page()
    create_game(gm, server.base)
    game_id = gm.url.rsplit("/", 1)[1]
    page: Page = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    page.clock.install()
    page.goto(f"{server.base}/display/{game_id}")
    expect(page.locator(".d-sound-enable")).to_be_visible()
    # The page's timers stop here, sound.js's check every 2 s with them: only the swap can say.
    page.clock.pause_at(page.evaluate("Date.now()") + 1000)

    gm.click("#gm-settings summary")
    volume = gm.locator("#gm-settings form", has_text="Volume")
    volume.locator("input[name=value]").fill("30")
    volume.locator("button").click()
    expect(page.locator("#sound")).to_have_attribute("data-volume", "30")
    assert page.locator(".d-sound-enable").is_visible()
