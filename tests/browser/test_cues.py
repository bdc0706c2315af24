"""Module cues (M-CUES-1..3) on real screens: a cue brings a wave in as turn 3 begins,
the GM's dashboard, the projector and a phone all show it, and a cue the GM skips never fires."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Server
from tests.browser.screens import create_game, join, shot

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WAIT = 15_000


def next_turn(gm: Page, turn: int) -> None:
    gm.click("#turn button:has-text('Close orders & reveal')")
    expect(gm.locator("#reveal")).to_contain_text(f"Turn {turn - 1} revealed", timeout=WAIT)
    gm.click(f"#turn button:has-text('Start turn {turn}')")
    expect(gm.locator("#turn .gm-phase")).to_contain_text(f"Turn {turn}", timeout=WAIT)


def test_a_cue_brings_a_wave_at_turn_3_and_a_skipped_cue_stays_silent(
    server: Server, browser: Any, playwright: Any
) -> None:
    gm = browser.new_context(viewport={"width": 1600, "height": 1000}).new_page()
    code = create_game(gm, server.base, scenario="cue-wave")
    game_id = gm.url.rsplit("/", 1)[1]
    phone = browser.new_context(**playwright.devices["Pixel 7"]).new_page()
    join(phone, server.base, code, "kestrel/pilot", "Ann")
    display = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    display.goto(f"{server.base}/display/{game_id}")

    wave = gm.locator("#cue-second-wave")
    distress = gm.locator("#cue-distress")
    expect(wave).to_contain_text("As turn 3 begins")
    expect(wave).to_contain_text("Bone Saw joins the raiders, a message, red alert")
    expect(wave.locator(".cue-status")).to_have_text("armed")

    gm.click("#turn button:has-text('Start combat')")
    expect(phone.locator("#status")).to_contain_text("T1 · Orders", timeout=WAIT)
    next_turn(gm, 2)
    expect(display.locator("#ship-status")).not_to_contain_text("Bone Saw")
    next_turn(gm, 3)

    # Every screen shows the wave: the GM's ships and log, the projector, the phone.
    expect(wave.locator(".cue-status")).to_have_text("fired", timeout=WAIT)
    expect(gm.locator("#ships")).to_contain_text("Bone Saw", timeout=WAIT)
    expect(gm.locator("#log")).to_contain_text("Cue Second wave: Bone Saw joins the raiders")
    expect(display.locator("#ship-status")).to_contain_text("Bone Saw", timeout=WAIT)
    expect(display.locator("#messages")).to_contain_text("Bone Saw drops out", timeout=WAIT)
    expect(display.locator("#alert")).to_contain_text("RED ALERT", timeout=WAIT)
    expect(phone.locator("#contacts")).to_contain_text("Bone Saw", timeout=WAIT)
    expect(phone.locator("#messages")).to_contain_text("Bone Saw drops out", timeout=WAIT)
    shot(gm, "gm-cues-wave-fired")
    shot(display, "projector-cue-wave")

    # The GM skips the distress call: turn 4 begins without it, and it can be armed again.
    distress.locator("button:has-text('Skip')").click()
    expect(distress.locator(".cue-status")).to_have_text("skipped", timeout=WAIT)
    expect(distress.locator("button:has-text('Arm again')")).to_be_visible()
    next_turn(gm, 4)
    expect(phone.locator("#status")).to_contain_text("T4", timeout=WAIT)
    display.wait_for_timeout(500)
    for page in (gm, display, phone):
        assert "Mayday" not in page.content()
    expect(distress.locator(".cue-status")).to_have_text("skipped")
